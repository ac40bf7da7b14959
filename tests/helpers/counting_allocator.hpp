// A counting heap for the allocation probes (spec 5.1 rule 2): counts every heap allocation of the
// one program that includes it in `allocations`. Include it in exactly one source file of a probe
// program.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <new>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SKIFF_PROBE_UNDER_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) && !defined(SKIFF_PROBE_UNDER_ASAN)
#define SKIFF_PROBE_UNDER_ASAN 1
#endif

namespace {

std::atomic<long> allocations{0};

} // namespace

#ifdef SKIFF_PROBE_UNDER_ASAN
// Under AddressSanitizer, which owns malloc, the probe must not replace it: its interceptors
// (strdup, for one) allocate from ASan's heap, and a pointer from there freed by glibc's free aborts
// the probe. ASan instead calls a malloc hook for every allocation the program makes through it
// (malloc, calloc, realloc, operator new, its interceptors), and none for its own bookkeeping,
// which uses the sanitizer's internal allocator: the count is the program's alone.
#include <sanitizer/allocator_interface.h>

namespace {

void count_allocation(const volatile void *, size_t) {
    allocations.fetch_add(1, std::memory_order_relaxed);
}
void ignore_free(const volatile void *) {}

// Installed before main, like the replaced allocator of the other branch.
[[maybe_unused]] const int hooks_installed = __sanitizer_install_malloc_and_free_hooks(count_allocation, ignore_free);

} // namespace
#else
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
#endif
