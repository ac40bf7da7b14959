#include "skiff/nvmeof/auth/hash.hpp"

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include <cstdlib>
#include <memory>

namespace skiff::nvmeof::auth {
namespace {

const char *openssl_name(uint8_t id) {
    switch (id) {
    case kHashSha256:
        return "SHA256";
    case kHashSha384:
        return "SHA384";
    case kHashSha512:
        return "SHA512";
    default:
        return nullptr;
    }
}

// OpenSSL failing to hash with a built-in digest means a broken library: nothing sensible can
// follow, and returning a wrong MAC would be worse than stopping.
void check(int ok) {
    if (ok != 1) std::abort();
}

} // namespace

size_t hash_length(uint8_t id) {
    switch (id) {
    case kHashSha256:
        return 32;
    case kHashSha384:
        return 48;
    case kHashSha512:
        return 64;
    default:
        return 0;
    }
}

std::string_view hash_name(uint8_t id) {
    switch (id) {
    case kHashSha256:
        return "sha256";
    case kHashSha384:
        return "sha384";
    case kHashSha512:
        return "sha512";
    default:
        return "";
    }
}

std::optional<uint8_t> hash_from_name(std::string_view name) {
    if (name.starts_with("hmac(") && name.ends_with(")")) name = name.substr(5, name.size() - 6);
    for (uint8_t id : all_hashes()) {
        std::string_view n = hash_name(id);
        if (name == n) return id;
        // "sha-256"
        if (name.size() == 7 && name.substr(0, 4) == "sha-" && name.substr(4) == n.substr(3)) return id;
    }
    return std::nullopt;
}

std::initializer_list<uint8_t> all_hashes() {
    static constexpr std::initializer_list<uint8_t> kAll = {kHashSha256, kHashSha384, kHashSha512};
    return kAll;
}

Bytes digest(uint8_t id, ByteView data) {
    const char *name = openssl_name(id);
    if (!name) std::abort();
    Bytes out(hash_length(id));
    unsigned len = 0;
    check(EVP_Digest(data.data(), data.size(), out.data(), &len, EVP_get_digestbyname(name), nullptr));
    return out;
}

Bytes hmac(uint8_t id, ByteView key, std::initializer_list<ByteView> parts) {
    const char *name = openssl_name(id);
    if (!name) std::abort();
    std::unique_ptr<EVP_MAC, decltype(&EVP_MAC_free)> mac(EVP_MAC_fetch(nullptr, "HMAC", nullptr),
                                                          EVP_MAC_free);
    if (!mac) std::abort();
    std::unique_ptr<EVP_MAC_CTX, decltype(&EVP_MAC_CTX_free)> ctx(EVP_MAC_CTX_new(mac.get()),
                                                                  EVP_MAC_CTX_free);
    if (!ctx) std::abort();
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, const_cast<char *>(name), 0),
        OSSL_PARAM_construct_end()};
    check(EVP_MAC_init(ctx.get(), key.data(), key.size(), params));
    for (ByteView part : parts) check(EVP_MAC_update(ctx.get(), part.data(), part.size()));
    Bytes out(hash_length(id));
    size_t len = 0;
    check(EVP_MAC_final(ctx.get(), out.data(), &len, out.size()));
    return out;
}

} // namespace skiff::nvmeof::auth
