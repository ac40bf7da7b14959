// Byte strings for DH-HMAC-CHAP and TLS PSKs: secrets wiped when freed, constant-time comparison, random
// bytes from OpenSSL's CSPRNG. Control path only (authentication runs once per queue).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace skiff::nvmeof::auth {

using Bytes = std::vector<uint8_t>;
using ByteView = std::span<const uint8_t>;

// A secret (a key, a session key): its memory is cleared before it is released, so a freed
// buffer never leaves key material in the heap.
class Secret {
  public:
    Secret() = default;
    explicit Secret(Bytes bytes) : bytes_(std::move(bytes)) {}
    Secret(const Secret &other) : bytes_(other.bytes_) {}
    Secret &operator=(const Secret &other);
    Secret(Secret &&other) noexcept : bytes_(std::move(other.bytes_)) {}
    Secret &operator=(Secret &&other) noexcept;
    ~Secret() { wipe(); }

    ByteView view() const { return bytes_; }
    const uint8_t *data() const { return bytes_.data(); }
    size_t size() const { return bytes_.size(); }
    bool empty() const { return bytes_.empty(); }
    bool operator==(const Secret &other) const { return bytes_ == other.bytes_; }

  private:
    void wipe();
    Bytes bytes_;
};

// Clears n bytes at p in a way the compiler cannot drop as a dead store (OPENSSL_cleanse).
void wipe_memory(void *p, size_t n);

// An allocator that wipes every buffer before it frees it: a vector with it leaves no key
// material in the heap, neither when it is destroyed nor when it grows and moves. Upstream does
// the allocating (std::allocator; tests put an inspecting one in its place).
template <typename T, template <typename> class Upstream = std::allocator>
class WipingAllocator {
  public:
    using value_type = T;
    template <typename U>
    struct rebind {
        using other = WipingAllocator<U, Upstream>;
    };
    WipingAllocator() = default;
    template <typename U>
    WipingAllocator(const WipingAllocator<U, Upstream> &) {}

    T *allocate(size_t n) { return Upstream<T>().allocate(n); }
    void deallocate(T *p, size_t n) {
        wipe_memory(p, n * sizeof(T));
        Upstream<T>().deallocate(p, n);
    }
    template <typename U>
    bool operator==(const WipingAllocator<U, Upstream> &) const {
        return true;
    }
};

// Key bytes (TLS PSKs and what is derived from them): wiped when freed.
using KeyBytes = std::vector<uint8_t, WipingAllocator<uint8_t>>;

// Compares without an early exit, so timing does not tell an attacker how many bytes matched.
bool equal_constant_time(ByteView a, ByteView b);
// n bytes from OpenSSL's RAND_bytes (aborts if the CSPRNG fails: nothing safe can follow).
Bytes random_bytes(size_t n);
// A random 32-bit value that is not zero (a DH-HMAC-CHAP sequence number: 0 means "none").
uint32_t random_nonzero_u32();

} // namespace skiff::nvmeof::auth
