// A counting heap for the allocation probes (spec 5.1 rule 2): replaces malloc/calloc/realloc and
// the global operator new/delete of the one program that includes it, and counts every
// allocation in `allocations`. Include it in exactly one source file of a probe program, and
// not under AddressSanitizer (which owns malloc).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <new>

namespace {

std::atomic<long> allocations{0};

} // namespace

// The C allocator, counted; glibc's real implementation is reached through __libc_malloc & co.
extern "C" {
void *__libc_malloc(size_t);
void *__libc_calloc(size_t, size_t);
void *__libc_realloc(void *, size_t);
void __libc_free(void *);

void *malloc(size_t n) {
    allocations.fetch_add(1, std::memory_order_relaxed);
    return __libc_malloc(n);
}
void *calloc(size_t a, size_t b) {
    allocations.fetch_add(1, std::memory_order_relaxed);
    return __libc_calloc(a, b);
}
void *realloc(void *p, size_t n) {
    allocations.fetch_add(1, std::memory_order_relaxed);
    return __libc_realloc(p, n);
}
void free(void *p) {
    __libc_free(p);
}
}

void *operator new(size_t n) {
    void *p = malloc(n == 0 ? 1 : n);
    if (p == nullptr) throw std::bad_alloc();
    return p;
}
void *operator new[](size_t n) {
    return operator new(n);
}
void *operator new(size_t n, const std::nothrow_t &) noexcept {
    return malloc(n == 0 ? 1 : n);
}
void *operator new[](size_t n, const std::nothrow_t &) noexcept {
    return malloc(n == 0 ? 1 : n);
}
void operator delete(void *p) noexcept {
    free(p);
}
void operator delete[](void *p) noexcept {
    free(p);
}
void operator delete(void *p, size_t) noexcept {
    free(p);
}
void operator delete[](void *p, size_t) noexcept {
    free(p);
}
