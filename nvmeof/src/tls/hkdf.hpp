// HKDF (RFC 5869) with the HkdfLabel of HKDF-Expand-Label (RFC 8446, 7.1), shared by the NVMe/TCP
// key derivations (psk.cpp) and the TLS 1.3 binder check (psk_binder.cpp).
#pragma once

#include "skiff/nvmeof/tls/psk.hpp"

#include <openssl/evp.h>

#include <cstdint>
#include <string_view>
#include <vector>

namespace skiff::nvmeof::tls::detail {

// The digest of a PSK hash indicator (kNone is not a hash: callers pass the cipher's).
const EVP_MD *md_of(PskHash hash);

// The HkdfLabel for out_len bytes, "tls13 " + label and context, in either layout (psk.hpp,
// PskDerivation).
std::vector<uint8_t> hkdf_label(size_t out_len, std::string_view label, std::string_view context,
                                PskDerivation d = PskDerivation::kRfc8446);

// One HKDF call in OpenSSL's `mode` (EVP_PKEY_HKDEF_MODE_EXTRACT_AND_EXPAND, _EXTRACT_ONLY with a
// zero salt, or _EXPAND_ONLY); empty on failure.
KeyBytes hkdf(PskHash hash, int mode, const KeyBytes &key, const std::vector<uint8_t> &info, size_t out_len);

} // namespace skiff::nvmeof::tls::detail
