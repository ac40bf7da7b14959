// The PSKs the target accepts: the configured ones, keyed by (host NQN, subsystem NQN) like the
// DH-HMAC-CHAP secrets: an entry with an empty subsystem NQN applies to every subsystem, one
// naming a subsystem overrides it there. Read at TLS handshakes (never per I/O); replaced
// whole by the configuration and skiff-ctl while the target runs. Keys never leave this store
// except into a handshake.
#pragma once

#include "skiff/nvmeof/tls/psk.hpp"

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

namespace skiff::nvmeof::tls {

class PskStore {
  public:
    using Map = std::map<std::pair<std::string, std::string>, ConfiguredPsk>;
    // Replaces every key (a configuration change); connections keep the session they have.
    void replace(Map keys);
    // The key for this host on this subsystem (the specific entry, else the host's general one).
    std::optional<ConfiguredPsk> find(const std::string &hostnqn, const std::string &subnqn) const;
    // Whether the host has a key for any subsystem (or for all of them).
    bool has_host(const std::string &hostnqn) const;
    size_t size() const;

    // Secure channel concatenation: the PSK a host's DH-HMAC-CHAP generated (generated_psk.hpp),
    // kept in memory only. The host's next concatenation on the same subsystem replaces it, so
    // there is at most one per authenticated host and subsystem.
    void put_generated(const std::string &hostnqn, const std::string &subnqn, PskHash hash,
                       KeyBytes generated);
    // The generated PSK whose identity digest is `digest`.
    std::optional<KeyBytes> find_generated(const std::string &hostnqn, const std::string &subnqn,
                                           PskHash hash, const std::string &digest) const;

  private:
    struct Generated {
        PskHash hash;
        std::string digest;
        KeyBytes key;
    };
    mutable std::mutex mu_;
    Map keys_;
    std::map<std::pair<std::string, std::string>, Generated> generated_;
};

} // namespace skiff::nvmeof::tls
