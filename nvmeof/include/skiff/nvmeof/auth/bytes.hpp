// Byte strings for DH-HMAC-CHAP: secrets wiped when freed, constant-time comparison, random
// bytes from OpenSSL's CSPRNG. Control path only (authentication runs once per queue).
#pragma once

#include <cstddef>
#include <cstdint>
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

// Compares without an early exit, so timing does not tell an attacker how many bytes matched.
bool equal_constant_time(ByteView a, ByteView b);
// n bytes from OpenSSL's RAND_bytes (aborts if the CSPRNG fails: nothing safe can follow).
Bytes random_bytes(size_t n);
// A random 32-bit value that is not zero (a DH-HMAC-CHAP sequence number: 0 means "none").
uint32_t random_nonzero_u32();

} // namespace skiff::nvmeof::auth
