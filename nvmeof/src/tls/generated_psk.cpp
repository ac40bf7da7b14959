#include "skiff/nvmeof/tls/generated_psk.hpp"

#include "skiff/nvmeof/auth/hash.hpp"

#include <cstdio>

namespace skiff::nvmeof::tls {

std::optional<PskHash> concat_hash(uint8_t dhchap_hash_id) {
    if (dhchap_hash_id == auth::kHashSha256) return PskHash::kSha256;
    if (dhchap_hash_id == auth::kHashSha384) return PskHash::kSha384;
    return std::nullopt;
}

namespace {

uint8_t dhchap_id(PskHash hash) {
    return hash == PskHash::kSha384 ? auth::kHashSha384 : auth::kHashSha256;
}

} // namespace

KeyBytes generated_psk(PskHash hash, auth::ByteView session_key, auth::ByteView c1, auth::ByteView c2) {
    auth::Bytes mac = auth::hmac(dhchap_id(hash), session_key, {c1, c2});
    KeyBytes out(mac.begin(), mac.end());
    std::fill(mac.begin(), mac.end(), uint8_t{0});
    return out;
}

std::string identity_context(PskHash hash, std::string_view digest) {
    char hh[4];
    std::snprintf(hh, sizeof(hh), "%02d", static_cast<int>(hash));
    return std::string(hh) + " " + std::string(digest);
}

std::string generated_identity(PskHash hash, std::string_view hostnqn, std::string_view subnqn,
                               std::string_view digest) {
    char head[16];
    std::snprintf(head, sizeof(head), "NVMe1G%02d ", static_cast<int>(hash));
    return std::string(head) + std::string(hostnqn) + " " + std::string(subnqn) + " " + std::string(digest);
}

} // namespace skiff::nvmeof::tls
