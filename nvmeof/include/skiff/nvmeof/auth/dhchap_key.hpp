// A DH-HMAC-CHAP secret in the representation `nvme gen-dhchap-key` prints and nvmet and the
// Linux host take: "DHHC-1:<xx>:<base64 of key || CRC-32 of key, little endian>:". <xx> says
// how the key is transformed before use: 00 as is, 01/02/03 through HMAC-SHA-256/384/512 keyed
// with the key over the NQN and "NVMe-over-Fabrics" (NVMe Base Specification, "DH-HMAC-CHAP
// secret representation"). Keys never appear in error messages.
#pragma once

#include "skiff/core/status.hpp"
#include "skiff/nvmeof/auth/bytes.hpp"

#include <string>
#include <string_view>

namespace skiff::nvmeof::auth {

struct DhchapKey {
    uint8_t transform = 0; // 0: none, else the hash id of the transformation
    Secret key;            // 32, 48 or 64 bytes

    bool operator==(const DhchapKey &) const = default;
};

// Parses "DHHC-1:xx:<base64>:"; checks the prefix, the transformation id, the key length (32,
// 48 or 64 bytes, and the hash's own length when transformed) and the CRC-32.
Result<DhchapKey> parse_dhchap_key(std::string_view text);
// The representation parse_dhchap_key reads (what `nvme gen-dhchap-key` would print).
std::string format_dhchap_key(const DhchapKey &key);
// The key the HMAC is keyed with: the key itself (transform 0), else
// HMAC-H(key, nqn || "NVMe-over-Fabrics"). The host key is transformed with the host NQN, the
// controller key with the subsystem NQN.
Secret transform_dhchap_key(const DhchapKey &key, std::string_view nqn);

// CRC-32 (IEEE 802.3, as zlib's crc32()) of data.
uint32_t crc32_ieee(ByteView data);

} // namespace skiff::nvmeof::auth
