#include "skiff/nvmeof/tls/psk_store.hpp"

namespace skiff::nvmeof::tls {

void PskStore::set(const std::string &hostnqn, ConfiguredPsk psk) {
    std::lock_guard lock(mu_);
    keys_[hostnqn] = std::move(psk);
}

bool PskStore::remove(const std::string &hostnqn) {
    std::lock_guard lock(mu_);
    return keys_.erase(hostnqn) > 0;
}

std::optional<ConfiguredPsk> PskStore::find(const std::string &hostnqn) const {
    std::lock_guard lock(mu_);
    auto it = keys_.find(hostnqn);
    if (it == keys_.end()) return std::nullopt;
    return it->second;
}

std::vector<std::string> PskStore::hosts() const {
    std::lock_guard lock(mu_);
    std::vector<std::string> out;
    for (const auto &[nqn, key] : keys_) out.push_back(nqn);
    return out;
}

} // namespace skiff::nvmeof::tls
