#include "skiff/nvmeof/tls/psk_binder.hpp"

#include "hkdf.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/kdf.h>

#include <string_view>

namespace skiff::nvmeof::tls {
namespace {

// A bounds-checked reader over the ClientHello's bytes.
struct Reader {
    const std::vector<uint8_t> &m;
    size_t at = 0, end = 0;
    bool ok = true;

    size_t take(size_t n) { // the offset of n bytes, which are skipped
        if (!ok || end - at < n) {
            ok = false;
            return at;
        }
        size_t where = at;
        at += n;
        return where;
    }
    size_t number(size_t bytes) {
        size_t where = take(bytes), v = 0;
        for (size_t i = 0; ok && i < bytes; ++i) v = v << 8 | m[where + i];
        return ok ? v : 0;
    }
    size_t vector(size_t len_bytes) { // skips a <len> vector, returns its length
        size_t n = number(len_bytes);
        take(n);
        return n;
    }
};

using detail::md_of;

// HKDF-Expand-Label as TLS 1.3 itself uses it (RFC 8446, 7.1): Expand only, the RFC layout.
KeyBytes expand_label(PskHash hash, const KeyBytes &secret, std::string_view label,
                      const std::vector<uint8_t> &context, size_t len) {
    std::string_view ctx(reinterpret_cast<const char *>(context.data()), context.size());
    return detail::hkdf(hash, EVP_PKEY_HKDEF_MODE_EXPAND_ONLY, secret, detail::hkdf_label(len, label, ctx),
                        len);
}

std::vector<uint8_t> digest(PskHash hash, const uint8_t *p, size_t n) {
    std::vector<uint8_t> out(static_cast<size_t>(EVP_MD_get_size(md_of(hash))));
    unsigned int len = 0;
    if (EVP_Digest(p, n, out.data(), &len, md_of(hash), nullptr) != 1) return {};
    out.resize(len);
    return out;
}

} // namespace

std::optional<ClientHelloBinder> client_hello_binder(const std::vector<uint8_t> &ch, size_t index) {
    constexpr size_t kPreSharedKey = 41, kMinBinder = 32;
    Reader r{ch, 0, ch.size()};
    if (r.number(1) != 1 || r.number(3) != ch.size() - 4) return std::nullopt; // ClientHello, whole
    r.take(2 + 32);                                                            // version, random
    r.vector(1);                                                               // session id
    r.vector(2);                                                               // cipher suites
    r.vector(1);                                                               // compression
    size_t ext_len = r.number(2);
    if (!r.ok || ext_len != ch.size() - r.at) return std::nullopt;
    while (r.ok && r.at < ch.size()) {
        size_t type = r.number(2), len = r.number(2);
        if (!r.ok || len > ch.size() - r.at) return std::nullopt;
        if (type != kPreSharedKey) {
            r.take(len);
            continue;
        }
        if (r.at + len != ch.size()) return std::nullopt; // pre_shared_key must come last
        r.vector(2);                                      // identities
        size_t covered = r.at;                            // the binders list is not covered
        size_t binders_len = r.number(2);
        if (!r.ok || binders_len != ch.size() - r.at) return std::nullopt;
        for (size_t i = 0; r.ok && r.at < ch.size(); ++i) {
            size_t n = r.number(1), at = r.take(n);
            if (!r.ok || n < kMinBinder) return std::nullopt; // PskBinderEntry<32..255>
            if (i == index)
                return ClientHelloBinder{
                    covered, {ch.begin() + static_cast<long>(at), ch.begin() + static_cast<long>(at + n)}};
        }
        return std::nullopt;
    }
    return std::nullopt;
}

bool binder_matches(PskHash hash, const KeyBytes &tls_psk, const std::vector<uint8_t> &ch,
                    const ClientHelloBinder &b) {
    size_t hash_len = static_cast<size_t>(EVP_MD_get_size(md_of(hash)));
    if (tls_psk.empty() || b.covered > ch.size() || b.binder.size() != hash_len) return false;
    // early secret -> binder key ("ext binder": an external PSK) -> finished key -> HMAC over the
    // hash of the ClientHello up to its binders.
    KeyBytes early = detail::hkdf(hash, EVP_PKEY_HKDEF_MODE_EXTRACT_ONLY, tls_psk, {}, hash_len);
    KeyBytes binder_key = expand_label(hash, early, "ext binder", digest(hash, nullptr, 0), hash_len);
    KeyBytes finished = expand_label(hash, binder_key, "finished", {}, hash_len);
    std::vector<uint8_t> transcript = digest(hash, ch.data(), b.covered);
    if (finished.empty() || transcript.empty()) return false;
    uint8_t mac[EVP_MAX_MD_SIZE];
    unsigned int mac_len = 0;
    if (!HMAC(md_of(hash), finished.data(), static_cast<int>(finished.size()), transcript.data(),
              transcript.size(), mac, &mac_len) ||
        mac_len != hash_len)
        return false;
    return CRYPTO_memcmp(mac, b.binder.data(), hash_len) == 0;
}

} // namespace skiff::nvmeof::tls
