#include "skiff/nvmeof/tls/psk_store.hpp"

namespace skiff::nvmeof::tls {

void PskStore::replace(Map keys) {
    std::lock_guard lock(mu_);
    keys_ = std::move(keys);
}

std::optional<ConfiguredPsk> PskStore::find(const std::string &hostnqn, const std::string &subnqn) const {
    std::lock_guard lock(mu_);
    if (auto it = keys_.find({hostnqn, subnqn}); it != keys_.end()) return it->second;
    if (auto it = keys_.find({hostnqn, std::string()}); it != keys_.end()) return it->second;
    return std::nullopt;
}

bool PskStore::has_host(const std::string &hostnqn) const {
    std::lock_guard lock(mu_);
    auto it = keys_.lower_bound({hostnqn, std::string()});
    return it != keys_.end() && it->first.first == hostnqn;
}

size_t PskStore::size() const {
    std::lock_guard lock(mu_);
    return keys_.size();
}

void PskStore::put_generated(const std::string &hostnqn, const std::string &subnqn, PskHash hash,
                             KeyBytes generated) {
    std::string digest = identity_digest(hash, generated, hostnqn, subnqn);
    std::lock_guard lock(mu_);
    generated_[{hostnqn, subnqn}] = Generated{hash, std::move(digest), std::move(generated)};
}

std::optional<KeyBytes> PskStore::find_generated(const std::string &hostnqn, const std::string &subnqn,
                                                 PskHash hash, const std::string &digest) const {
    std::lock_guard lock(mu_);
    auto it = generated_.find({hostnqn, subnqn});
    if (it == generated_.end() || it->second.hash != hash || it->second.digest != digest) return std::nullopt;
    return it->second.key;
}

} // namespace skiff::nvmeof::tls
