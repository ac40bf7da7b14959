// The hash functions of DH-HMAC-CHAP (NVMe Base Specification, "DH-HMAC-CHAP hash function
// identifiers"): their ids on the wire, names in configuration, digest and HMAC.
#pragma once

#include "skiff/nvmeof/auth/bytes.hpp"

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

namespace skiff::nvmeof::auth {

// Wire ids (the HashID field of the Challenge, the hash list of AUTH_Negotiate, and the "xx"
// of a DHHC-1 secret, where 00 means "not transformed").
constexpr uint8_t kHashSha256 = 0x01;
constexpr uint8_t kHashSha384 = 0x02;
constexpr uint8_t kHashSha512 = 0x03;

// Digest length in bytes (32, 48, 64), or 0 for an id that is not one of the three.
size_t hash_length(uint8_t id);
// "sha256", "sha384", "sha512", or "" for an unknown id.
std::string_view hash_name(uint8_t id);
// Accepts "sha256"/"sha384"/"sha512", nvmet's "hmac(sha256)" spellings, and "sha-256".
std::optional<uint8_t> hash_from_name(std::string_view name);
// Every supported id, in the order a host offers them.
std::initializer_list<uint8_t> all_hashes();

// H(data) with the hash `id` (which must be known).
Bytes digest(uint8_t id, ByteView data);
// HMAC-H(key, part0 || part1 || ...).
Bytes hmac(uint8_t id, ByteView key, std::initializer_list<ByteView> parts);

} // namespace skiff::nvmeof::auth
