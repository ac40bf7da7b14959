#include "skiff/nvmeof/auth/bytes.hpp"

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include <cstdlib>
#include <cstring>

namespace skiff::nvmeof::auth {

Secret &Secret::operator=(const Secret &other) {
    if (this != &other) {
        wipe();
        bytes_ = other.bytes_;
    }
    return *this;
}

Secret &Secret::operator=(Secret &&other) noexcept {
    if (this != &other) {
        wipe();
        bytes_ = std::move(other.bytes_);
    }
    return *this;
}

void Secret::wipe() {
    if (!bytes_.empty()) OPENSSL_cleanse(bytes_.data(), bytes_.size());
    bytes_.clear();
}

void wipe_memory(void *p, size_t n) {
    if (p && n) OPENSSL_cleanse(p, n);
}

bool equal_constant_time(ByteView a, ByteView b) {
    if (a.size() != b.size()) return false;
    return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

Bytes random_bytes(size_t n) {
    Bytes out(n);
    if (n && RAND_bytes(out.data(), static_cast<int>(n)) != 1) std::abort();
    return out;
}

uint32_t random_nonzero_u32() {
    for (;;) {
        Bytes b = random_bytes(4);
        uint32_t v;
        std::memcpy(&v, b.data(), 4);
        if (v) return v;
    }
}

} // namespace skiff::nvmeof::auth
