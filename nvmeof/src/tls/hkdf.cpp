#include "hkdf.hpp"

#include <openssl/kdf.h>

#include <memory>
#include <string>

namespace skiff::nvmeof::tls::detail {

const EVP_MD *md_of(PskHash hash) {
    return hash == PskHash::kSha384 ? EVP_sha384() : EVP_sha256();
}

// RFC 8446: length (16 bits, big endian), then "tls13 " + label and the context, each preceded
// by its one-byte length. The legacy layout: the length little endian, no length bytes before
// the strings.
std::vector<uint8_t> hkdf_label(size_t out_len, std::string_view label, std::string_view context,
                                PskDerivation d) {
    std::string full_label = "tls13 " + std::string(label);
    std::vector<uint8_t> info;
    const bool legacy = d == PskDerivation::kNvmeCliLegacy;
    info.push_back(static_cast<uint8_t>(legacy ? out_len : out_len >> 8));
    info.push_back(static_cast<uint8_t>(legacy ? out_len >> 8 : out_len));
    if (!legacy) info.push_back(static_cast<uint8_t>(full_label.size()));
    info.insert(info.end(), full_label.begin(), full_label.end());
    if (!legacy) info.push_back(static_cast<uint8_t>(context.size()));
    info.insert(info.end(), context.begin(), context.end());
    return info;
}

KeyBytes hkdf(PskHash hash, int mode, const KeyBytes &key, const std::vector<uint8_t> &info, size_t out_len) {
    std::unique_ptr<EVP_PKEY_CTX, decltype(&EVP_PKEY_CTX_free)> ctx(
        EVP_PKEY_CTX_new_id(EVP_PKEY_HKDF, nullptr), EVP_PKEY_CTX_free);
    KeyBytes out(out_len);
    size_t got = out_len;
    if (!ctx || EVP_PKEY_derive_init(ctx.get()) <= 0 || EVP_PKEY_CTX_set_hkdf_mode(ctx.get(), mode) <= 0 ||
        EVP_PKEY_CTX_set_hkdf_md(ctx.get(), md_of(hash)) <= 0 ||
        EVP_PKEY_CTX_set1_hkdf_key(ctx.get(), key.data(), static_cast<int>(key.size())) <= 0 ||
        (!info.empty() &&
         EVP_PKEY_CTX_add1_hkdf_info(ctx.get(), info.data(), static_cast<int>(info.size())) <= 0) ||
        EVP_PKEY_derive(ctx.get(), out.data(), &got) <= 0 || got != out_len)
        return {};
    return out;
}

} // namespace skiff::nvmeof::tls::detail
