// The configured PSKs the target accepts, one per host NQN. Read at TLS handshakes (never per
// I/O); changed by the configuration and skiff-ctl while the target runs. Keys never leave
// this store except into a handshake: listings show which hosts have one, not the key.
#pragma once

#include "skiff/nvmeof/tls/psk.hpp"

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace skiff::nvmeof::tls {

class PskStore {
  public:
    void set(const std::string &hostnqn, ConfiguredPsk psk);
    bool remove(const std::string &hostnqn); // false when the host had no key
    std::optional<ConfiguredPsk> find(const std::string &hostnqn) const;
    bool has(const std::string &hostnqn) const { return find(hostnqn).has_value(); }
    std::vector<std::string> hosts() const;

  private:
    mutable std::mutex mu_;
    std::map<std::string, ConfiguredPsk> keys_;
};

} // namespace skiff::nvmeof::tls
