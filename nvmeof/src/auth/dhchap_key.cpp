#include "skiff/nvmeof/auth/dhchap_key.hpp"

#include "skiff/nvmeof/auth/hash.hpp"

#include <openssl/evp.h>

#include <array>

namespace skiff::nvmeof::auth {
namespace {

constexpr std::string_view kPrefix = "DHHC-1:";
constexpr std::string_view kTransformLabel = "NVMe-over-Fabrics";

Error bad_key(const std::string &why) {
    return make_error(DOCA_ERROR_INVALID_VALUE, "DH-HMAC-CHAP secret: " + why +
                                                    " (expected \"DHHC-1:xx:<base64>:\" as printed by "
                                                    "nvme gen-dhchap-key)");
}

} // namespace

uint32_t crc32_ieee(ByteView data) {
    uint32_t crc = 0xFFFFFFFFu;
    for (uint8_t b : data) {
        crc ^= b;
        for (int i = 0; i < 8; ++i) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

Result<DhchapKey> parse_dhchap_key(std::string_view text) {
    if (!text.starts_with(kPrefix)) return bad_key("does not start with \"DHHC-1:\"");
    text.remove_prefix(kPrefix.size());
    if (text.size() < 4 || text[2] != ':') return bad_key("no two-digit transformation id after \"DHHC-1:\"");
    if (text[0] != '0' || text[1] < '0' || text[1] > '3')
        return bad_key("transformation id \"" + std::string(text.substr(0, 2)) +
                       "\" is not 00, 01, 02 or 03");
    DhchapKey out;
    out.transform = static_cast<uint8_t>(text[1] - '0');
    text.remove_prefix(3);
    if (!text.ends_with(":")) return bad_key("does not end with \":\"");
    text.remove_suffix(1);
    // key || CRC: 36, 52 or 68 bytes, so 48, 72 or 92 base64 characters.
    if (text.size() % 4 != 0 || text.size() > 92) return bad_key("the base64 part has a wrong length");
    Bytes raw(text.size() / 4 * 3);
    int n = EVP_DecodeBlock(raw.data(), reinterpret_cast<const unsigned char *>(text.data()),
                            static_cast<int>(text.size()));
    if (n < 0) {
        OPENSSL_cleanse(raw.data(), raw.size()); // what did decode may be most of a key
        return bad_key("the base64 part does not decode");
    }
    size_t len = static_cast<size_t>(n);
    for (size_t i = text.size(); i > 0 && text[i - 1] == '='; --i) --len; // DecodeBlock keeps padding
    if (len != 36 && len != 52 && len != 68) {
        OPENSSL_cleanse(raw.data(), raw.size());
        return bad_key("the key is " + std::to_string(len < 4 ? 0 : len - 4) +
                       " bytes; 32, 48 or 64 expected");
    }
    const size_t key_len = len - 4;
    const uint32_t stored = raw[key_len] | raw[key_len + 1] << 8 | raw[key_len + 2] << 16 |
                            static_cast<uint32_t>(raw[key_len + 3]) << 24;
    const bool crc_ok = crc32_ieee(ByteView(raw.data(), key_len)) == stored;
    raw.resize(key_len);
    out.key = Secret(std::move(raw));
    if (!crc_ok) return bad_key("the CRC-32 does not match the key (a typo?)");
    if (out.transform != 0 && hash_length(out.transform) != key_len)
        return bad_key("a key transformed with " + std::string(hash_name(out.transform)) + " must be " +
                       std::to_string(hash_length(out.transform)) + " bytes, not " + std::to_string(key_len));
    return out;
}

std::string format_dhchap_key(const DhchapKey &key) {
    Bytes raw(key.key.view().begin(), key.key.view().end());
    const uint32_t crc = crc32_ieee(key.key.view());
    for (int i = 0; i < 4; ++i) raw.push_back(static_cast<uint8_t>(crc >> (8 * i)));
    std::string b64(4 * ((raw.size() + 2) / 3) + 1, '\0');
    int n = EVP_EncodeBlock(reinterpret_cast<unsigned char *>(b64.data()), raw.data(),
                            static_cast<int>(raw.size()));
    OPENSSL_cleanse(raw.data(), raw.size());
    b64.resize(static_cast<size_t>(n));
    return std::string(kPrefix) + "0" + std::to_string(key.transform) + ":" + b64 + ":";
}

Secret transform_dhchap_key(const DhchapKey &key, std::string_view nqn) {
    if (key.transform == 0) return key.key;
    auto as_bytes = [](std::string_view s) {
        return ByteView(reinterpret_cast<const uint8_t *>(s.data()), s.size());
    };
    return Secret(hmac(key.transform, key.key.view(), {as_bytes(nqn), as_bytes(kTransformLabel)}));
}

} // namespace skiff::nvmeof::auth
