// Which hosts see a namespace (config `visible_hosts`, skiff-ctl namespace host add / remove):
// every host the subsystem lets in, or only the listed host NQNs (SPDK's no_auto_visible with
// nvmf_ns_add_host, the Ceph gateway's namespace add_host). To a host that does not see it, the
// nsid is inactive: Identify Namespace reads zeroes, the active list skips it, and I/O, Identify
// descriptors and per-namespace features fail with Invalid Namespace or Format.
#pragma once

#include "skiff/nvmeof/target/namespace_io_metrics.hpp" // kMaxNamespaces

#include <array>
#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace skiff::nvmeof::target {

struct NamespaceVisibility {
    bool all_hosts = true;
    std::vector<std::string> hosts; // the NQNs that see it when !all_hosts (may be empty)

    bool sees(std::string_view hostnqn) const;
    bool operator==(const NamespaceVisibility &) const = default;
};

// One controller's view: a bit per nsid, set when its host must not see that namespace. The
// subsystem writes it under its lock whenever a namespace is added or its visibility changes,
// before it publishes the namespace; the I/O path reads one word. 128 bytes for 1024 nsids.
class HiddenNamespaces {
  public:
    bool hidden(uint32_t nsid) const {
        const uint32_t i = nsid - 1;
        return (words_[i / 64].load(std::memory_order_acquire) >> (i % 64)) & 1;
    }
    void set(uint32_t nsid, bool hidden) {
        const uint32_t i = nsid - 1;
        const uint64_t bit = uint64_t(1) << (i % 64);
        if (hidden)
            words_[i / 64].fetch_or(bit, std::memory_order_release);
        else
            words_[i / 64].fetch_and(~bit, std::memory_order_release);
    }

  private:
    std::array<std::atomic<uint64_t>, kMaxNamespaces / 64> words_{};
};

} // namespace skiff::nvmeof::target
