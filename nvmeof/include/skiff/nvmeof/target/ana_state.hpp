// Asymmetric Namespace Access: the state of each ANA group of one subsystem as seen through one
// port (listener). A subsystem keeps one PortAna per port; a controller looks its own up once, at
// association, and reads it per I/O with one relaxed atomic load (no lock on the data path).
// States are NVMe's (NVME_ANA_STATE_*): optimized, non-optimized, inaccessible, persistent loss
// and change. Every transition counts, per group and per port, so controllers notice it (the
// ANA change event) and log page 0Ch reports change counts.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <optional>
#include <string_view>

namespace skiff::nvmeof::target {

// ANA group ids run 1..kMaxAnaGroups (Identify Controller ANAGRPMAX and NANAGRPID).
constexpr uint32_t kMaxAnaGroups = 128;

// NVMe ANA state codes (log page 0Ch, ANA State).
enum class AnaState : uint8_t {
    kOptimized = 0x1,
    kNonOptimized = 0x2,
    kInaccessible = 0x3,
    kPersistentLoss = 0x4,
    kChange = 0xF,
};

// "optimized", "non-optimized", "inaccessible", "persistent-loss", "change" (config, skiff-ctl).
const char *ana_state_name(AnaState s);
std::optional<AnaState> parse_ana_state(std::string_view name);
// Whether I/O may run on a path in this state (optimized or non-optimized).
inline bool ana_state_accessible(AnaState s) {
    return s == AnaState::kOptimized || s == AnaState::kNonOptimized;
}

class PortAna {
  public:
    PortAna() {
        for (auto &s : states_) s.store(uint8_t(AnaState::kOptimized), std::memory_order_relaxed);
    }
    PortAna(const PortAna &) = delete;
    PortAna &operator=(const PortAna &) = delete;

    // The group's state on this port; group ids outside 1..kMaxAnaGroups read as optimized.
    AnaState state(uint32_t group) const {
        if (group == 0 || group > kMaxAnaGroups) return AnaState::kOptimized;
        return AnaState(states_[group - 1].load(std::memory_order_relaxed));
    }
    // Transitions of one group, and of every group of this port.
    uint64_t group_changes(uint32_t group) const {
        if (group == 0 || group > kMaxAnaGroups) return 0;
        return group_changes_[group - 1].load(std::memory_order_acquire);
    }
    uint64_t changes() const { return changes_.load(std::memory_order_acquire); }
    // Control plane (one writer: the subsystem's lock). False when the state was already so.
    bool set(uint32_t group, AnaState s);

  private:
    std::array<std::atomic<uint8_t>, kMaxAnaGroups> states_;
    std::array<std::atomic<uint64_t>, kMaxAnaGroups> group_changes_{};
    std::atomic<uint64_t> changes_{0};
};

} // namespace skiff::nvmeof::target
