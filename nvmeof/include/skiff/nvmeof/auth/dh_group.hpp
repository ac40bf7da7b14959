// The Diffie-Hellman groups of DH-HMAC-CHAP: the null group (no exchange) and the RFC 7919
// finite-field groups ffdhe2048 .. ffdhe8192, and one ephemeral key pair in such a group.
#pragma once

#include "skiff/core/status.hpp"
#include "skiff/nvmeof/auth/bytes.hpp"

#include <initializer_list>
#include <memory>
#include <optional>
#include <string_view>

typedef struct evp_pkey_st EVP_PKEY;

namespace skiff::nvmeof::auth {

// Wire ids (the DHgID field of the Challenge, the group list of AUTH_Negotiate).
constexpr uint8_t kDhNull = 0x00;
constexpr uint8_t kDhFfdhe2048 = 0x01;
constexpr uint8_t kDhFfdhe3072 = 0x02;
constexpr uint8_t kDhFfdhe4096 = 0x03;
constexpr uint8_t kDhFfdhe6144 = 0x04;
constexpr uint8_t kDhFfdhe8192 = 0x05;

// Whether the id names a group skiff implements.
bool dh_group_known(uint8_t id);
// The length of a public value (and of the shared secret) in bytes: the prime's size; 0 for
// the null group.
size_t dh_value_length(uint8_t id);
// "null", "ffdhe2048", ...; "" for an unknown id.
std::string_view dh_group_name(uint8_t id);
// Accepts the names above (nvmet's spelling).
std::optional<uint8_t> dh_group_from_name(std::string_view name);
// Every supported id, in the order a host offers them.
std::initializer_list<uint8_t> all_dh_groups();

// An ephemeral key pair: x random, the public value g^x mod p. Made once per transaction.
class DhKeyPair {
  public:
    // A fresh pair in `group` (not the null group).
    static Result<DhKeyPair> generate(uint8_t group);
    DhKeyPair(DhKeyPair &&) noexcept;
    DhKeyPair &operator=(DhKeyPair &&) noexcept;
    ~DhKeyPair();

    uint8_t group() const { return group_; }
    // g^x mod p, big-endian, zero-padded to dh_value_length().
    const Bytes &public_value() const { return public_; }
    // (peer)^x mod p, big-endian, zero-padded to the prime's size. Fails for a value of the
    // wrong length or one that is not a valid public value of the group (0, 1, p-1, >= p).
    Result<Secret> shared_secret(ByteView peer_public) const;

  private:
    DhKeyPair() = default;
    uint8_t group_ = kDhNull;
    EVP_PKEY *key_ = nullptr;
    Bytes public_;
};

} // namespace skiff::nvmeof::auth
