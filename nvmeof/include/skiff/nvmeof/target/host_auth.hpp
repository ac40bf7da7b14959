// What a host must prove before a queue serves it: its DH-HMAC-CHAP secret, optionally the
// controller's secret for bidirectional authentication, and the hash functions and DH groups
// the controller may choose (in order of preference). Configured per host NQN, or per host NQN
// and subsystem (the more specific entry wins); see Target::set_host_auth.
#pragma once

#include "skiff/nvmeof/auth/dhchap_key.hpp"

#include <optional>
#include <vector>

namespace skiff::nvmeof::target {

struct HostAuth {
    auth::DhchapKey host_key;
    std::optional<auth::DhchapKey> ctrl_key; // set: the host may ask the controller to prove itself
    std::vector<uint8_t> hashes;             // auth::kHash* ids, preferred first; empty: all
    std::vector<uint8_t> dhgroups;           // auth::kDh* ids, preferred first; empty: all

    bool operator==(const HostAuth &) const = default;
};

} // namespace skiff::nvmeof::target
