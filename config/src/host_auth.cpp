#include "skiff/config/host_auth.hpp"

#include "skiff/nvmeof/auth/dh_group.hpp"
#include "skiff/nvmeof/auth/hash.hpp"

namespace skiff::config {

nvmeof::target::Target::HostAuthMap host_auth_map(const Config &config) {
    namespace auth = nvmeof::auth;
    nvmeof::target::Target::HostAuthMap out;
    for (const HostConfig &h : config.hosts) {
        if (h.dhchap_key.empty()) continue; // a TLS-only entry
        auto entry = std::make_shared<nvmeof::target::HostAuth>();
        // The loader checked every field, so these parse; an entry that does not is skipped.
        auto key = auth::parse_dhchap_key(h.dhchap_key);
        if (!key) continue;
        entry->host_key = std::move(*key);
        if (!h.dhchap_ctrl_key.empty()) {
            auto ctrl = auth::parse_dhchap_key(h.dhchap_ctrl_key);
            if (!ctrl) continue;
            entry->ctrl_key = std::move(*ctrl);
        }
        for (auto &name : h.dhchap_hashes)
            if (auto id = auth::hash_from_name(name)) entry->hashes.push_back(*id);
        for (auto &name : h.dhchap_dhgroups)
            if (auto id = auth::dh_group_from_name(name)) entry->dhgroups.push_back(*id);
        out[{h.nqn, h.subsystem}] = std::move(entry);
    }
    return out;
}

nvmeof::tls::PskStore::Map tls_psk_map(const Config &config) {
    nvmeof::tls::PskStore::Map out;
    for (const HostConfig &h : config.hosts) {
        if (h.tls_psk.empty()) continue;
        if (auto key = nvmeof::tls::parse_interchange(h.tls_psk)) out[{h.nqn, h.subsystem}] = std::move(*key);
    }
    return out;
}

} // namespace skiff::config
