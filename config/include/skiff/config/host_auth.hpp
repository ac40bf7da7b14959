// The hosts[] section as the target consumes it: each entry's DH-HMAC-CHAP secrets parsed into
// the nvmeof::target::HostAuth that Connect looks up by (host NQN, subsystem NQN), and its TLS
// PSK into the store the TLS handshake looks up by the same pair.
#pragma once

#include "skiff/config/config.hpp"
#include "skiff/nvmeof/target/target.hpp"
#include "skiff/nvmeof/tls/psk_store.hpp"

namespace skiff::config {

// Every entry of config.hosts (already validated: the secrets and names parse).
// Entries without a dhchap_key are left out (those hosts do not authenticate).
nvmeof::target::Target::HostAuthMap host_auth_map(const Config &config);
// Every entry with a tls_psk (already validated: the key parses).
nvmeof::tls::PskStore::Map tls_psk_map(const Config &config);

} // namespace skiff::config
