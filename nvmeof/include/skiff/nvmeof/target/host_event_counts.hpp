// Events that end a host's controller or queue, counted per host NQN by the subsystem, since
// the controller is gone by the time anyone looks (the metrics endpoint exports them). Rare
// events, so a mutex; the number of hosts kept is bounded, so a peer inventing host NQNs
// cannot grow it without limit (the rest count under kOtherHosts).
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>

namespace skiff::nvmeof::target {

class HostEventCounts {
  public:
    struct Counts {
        uint64_t keep_alive_expiries = 0;
        uint64_t auth_failures = 0; // DH-HMAC-CHAP refused or not completed in time
    };
    static constexpr size_t kMaxHosts = 1024;
    static constexpr const char *kOtherHosts = "(other hosts)";

    void keep_alive_expired(const std::string &hostnqn) {
        std::lock_guard lock(mu_);
        ++slot(hostnqn).keep_alive_expiries;
    }
    void auth_failed(const std::string &hostnqn) {
        std::lock_guard lock(mu_);
        ++slot(hostnqn).auth_failures;
    }
    std::map<std::string, Counts> snapshot() const {
        std::lock_guard lock(mu_);
        return counts_;
    }

  private:
    Counts &slot(const std::string &hostnqn) {
        if (counts_.size() >= kMaxHosts && !counts_.count(hostnqn)) return counts_[kOtherHosts];
        return counts_[hostnqn];
    }

    mutable std::mutex mu_;
    std::map<std::string, Counts> counts_; // guarded by mu_
};

} // namespace skiff::nvmeof::target
