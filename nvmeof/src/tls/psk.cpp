#include "skiff/nvmeof/tls/psk.hpp"

#include "hkdf.hpp"

#include <openssl/evp.h>
#include <openssl/kdf.h>

#include <cstring>

namespace skiff::nvmeof::tls {
namespace {

constexpr std::string_view kPrefix = "NVMeTLSkey-1:";

const char *digest_name(PskHash hash) {
    return hash == PskHash::kSha384 ? "SHA384" : "SHA256";
}

// The CRC-32 of the interchange format (IEEE 802.3, as zlib's crc32()). Keys are 48 bytes at
// most, so the bitwise form is fast enough.
uint32_t crc32_ieee(const uint8_t *p, size_t n) {
    uint32_t crc = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; ++i) {
        crc ^= p[i];
        for (int b = 0; b < 8; ++b) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

// HKDF-Expand-Label(HKDF-Extract(0, secret), label, context, out_len) in layout d.
KeyBytes hkdf_expand_label(PskHash hash, const KeyBytes &secret, std::string_view label,
                           std::string_view context, size_t out_len, PskDerivation d) {
    return detail::hkdf(hash, EVP_PKEY_HKDEF_MODE_EXTRACT_AND_EXPAND, secret,
                        detail::hkdf_label(out_len, label, context, d), out_len);
}

} // namespace

PskHash ConfiguredPsk::cipher_hash() const {
    if (hash != PskHash::kNone) return hash;
    return key.size() == 48 ? PskHash::kSha384 : PskHash::kSha256;
}

Result<ConfiguredPsk> parse_interchange(std::string_view text) {
    auto bad = [](const std::string &what) {
        return make_error(DOCA_ERROR_INVALID_VALUE,
                          "TLS PSK: " + what +
                              " (expected NVMeTLSkey-1:01:<base64>: or "
                              "NVMeTLSkey-1:02:<base64>: as nvme gen-tls-key prints)");
    };
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ' || text.back() == '\r'))
        text.remove_suffix(1);
    if (text.substr(0, kPrefix.size()) != kPrefix) return bad("does not start with NVMeTLSkey-1:");
    text.remove_prefix(kPrefix.size());
    if (text.size() < 4 || text[2] != ':') return bad("no two-digit hash indicator");
    ConfiguredPsk psk;
    std::string_view hh = text.substr(0, 2);
    if (hh == "00")
        psk.hash = PskHash::kNone;
    else if (hh == "01")
        psk.hash = PskHash::kSha256;
    else if (hh == "02")
        psk.hash = PskHash::kSha384;
    else
        return bad("unknown hash indicator " + std::string(hh));
    text.remove_prefix(3);
    if (text.empty() || text.back() != ':') return bad("does not end with ':'");
    text.remove_suffix(1);
    if (text.size() % 4 != 0 || text.empty() || text.size() > 128)
        return bad("base64 part has a wrong length");
    KeyBytes raw(text.size() / 4 * 3); // the key and its CRC: wiped whatever the outcome
    int n = EVP_DecodeBlock(raw.data(), reinterpret_cast<const unsigned char *>(text.data()),
                            static_cast<int>(text.size()));
    if (n < 0) return bad("base64 part is not valid base64");
    size_t len = static_cast<size_t>(n);
    for (size_t i = text.size(); i-- > 0 && text[i] == '=';) --len; // padding decodes as zeros
    if (len != 36 && len != 52) return bad("key is not 32 or 48 bytes");
    size_t key_len = len - 4;
    if ((psk.hash == PskHash::kSha256 && key_len != 32) || (psk.hash == PskHash::kSha384 && key_len != 48))
        return bad("key length does not match the hash indicator");
    uint32_t crc = uint32_t(raw[key_len]) | uint32_t(raw[key_len + 1]) << 8 |
                   uint32_t(raw[key_len + 2]) << 16 | uint32_t(raw[key_len + 3]) << 24;
    if (crc != crc32_ieee(raw.data(), key_len)) return bad("CRC-32 does not match the key");
    psk.key.assign(raw.begin(), raw.begin() + static_cast<long>(key_len));
    return psk;
}

std::string format_interchange(const ConfiguredPsk &psk) {
    KeyBytes raw = psk.key;
    uint32_t crc = crc32_ieee(raw.data(), raw.size());
    for (int i = 0; i < 4; ++i) raw.push_back(static_cast<uint8_t>(crc >> (8 * i)));
    std::string b64((raw.size() + 2) / 3 * 4 + 1, '\0');
    int n = EVP_EncodeBlock(reinterpret_cast<unsigned char *>(b64.data()), raw.data(),
                            static_cast<int>(raw.size()));
    b64.resize(static_cast<size_t>(n));
    char hh[4];
    std::snprintf(hh, sizeof(hh), "%02d", static_cast<int>(psk.hash));
    return std::string(kPrefix) + hh + ":" + b64 + ":";
}

const char *derivation_name(PskDerivation d) {
    return d == PskDerivation::kNvmeCliLegacy ? "nvme-cli before 2.16 (libnvme 1.15 and older)" : "RFC 8446";
}

KeyBytes retained_psk(const ConfiguredPsk &psk, std::string_view hostnqn, PskDerivation d) {
    if (psk.hash == PskHash::kNone) return psk.key;
    return hkdf_expand_label(psk.hash, psk.key, "HostNQN", hostnqn, psk.key.size(), d);
}

std::string psk_identity(PskHash hash, std::string_view hostnqn, std::string_view subnqn) {
    char head[16];
    std::snprintf(head, sizeof(head), "NVMe0R%02d ", static_cast<int>(hash));
    return std::string(head) + std::string(hostnqn) + " " + std::string(subnqn);
}

KeyBytes tls_psk(PskHash hash, const KeyBytes &retained, std::string_view context, PskDerivation d) {
    return hkdf_expand_label(hash, retained, "nvme-tls-psk", context, retained.size(), d);
}

std::string identity_digest(PskHash hash, const KeyBytes &retained, std::string_view hostnqn,
                            std::string_view subnqn) {
    std::string msg = std::string(hostnqn) + " " + std::string(subnqn) + " NVMe-over-Fabrics";
    uint8_t mac[EVP_MAX_MD_SIZE];
    size_t mac_len = 0;
    if (!EVP_Q_mac(nullptr, "HMAC", nullptr, digest_name(hash), nullptr, retained.data(), retained.size(),
                   reinterpret_cast<const unsigned char *>(msg.data()), msg.size(), mac, sizeof(mac),
                   &mac_len))
        return {};
    std::string b64((mac_len + 2) / 3 * 4 + 1, '\0');
    int n = EVP_EncodeBlock(reinterpret_cast<unsigned char *>(b64.data()), mac, static_cast<int>(mac_len));
    b64.resize(static_cast<size_t>(n));
    return b64;
}

std::optional<PskIdentity> parse_identity(std::string_view text) {
    // "NVMe" version 'R'|'G' hh ' ' hostnqn ' ' subnqn [' ' digest]; NQNs contain no spaces.
    if (text.size() < 9 || text.substr(0, 4) != "NVMe" || (text[5] != 'R' && text[5] != 'G') ||
        text[8] != ' ')
        return std::nullopt;
    PskIdentity id;
    if (text[4] != '0' && text[4] != '1') return std::nullopt;
    id.version = text[4] - '0';
    id.generated = text[5] == 'G';
    if (id.generated && id.version != 1) return std::nullopt; // a generated PSK needs its digest
    std::string_view hh = text.substr(6, 2);
    if (hh == "01")
        id.hash = PskHash::kSha256;
    else if (hh == "02")
        id.hash = PskHash::kSha384;
    else
        return std::nullopt;
    std::string_view rest = text.substr(9);
    size_t sp = rest.find(' ');
    if (sp == std::string_view::npos || sp == 0) return std::nullopt;
    id.hostnqn = rest.substr(0, sp);
    rest.remove_prefix(sp + 1);
    sp = rest.find(' ');
    if (id.version == 0) {
        if (sp != std::string_view::npos || rest.empty()) return std::nullopt;
        id.subnqn = rest;
    } else {
        if (sp == std::string_view::npos || sp == 0 || sp + 1 >= rest.size()) return std::nullopt;
        id.subnqn = rest.substr(0, sp);
        id.digest = rest.substr(sp + 1);
    }
    return id;
}

SessionPsk session_psk(const ConfiguredPsk &psk, std::string_view hostnqn, std::string_view subnqn,
                       PskDerivation d) {
    SessionPsk s;
    s.hash = psk.cipher_hash();
    s.identity = psk_identity(s.hash, hostnqn, subnqn);
    s.key = tls_psk(s.hash, retained_psk(psk, hostnqn, d), s.identity, d);
    return s;
}

} // namespace skiff::nvmeof::tls
