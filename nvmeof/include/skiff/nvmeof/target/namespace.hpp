// One namespace of a subsystem: identifiers, geometry, and the device that stores it.
#pragma once

#include "skiff/nvmeof/target/block_device.hpp"
#include "skiff/nvmeof/target/io_gate.hpp"
#include "skiff/nvmeof/target/namespace_visibility.hpp"
#include "skiff/nvmeof/target/qos_policy.hpp"
#include "skiff/nvmeof/target/reservation.hpp"

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>

namespace skiff::nvmeof::target {

struct NamespaceIds {
    std::array<uint8_t, 16> uuid{};
    std::array<uint8_t, 16> nguid{};
    std::array<uint8_t, 8> eui64{}; // all zero: not reported
};

// Created through std::make_shared (poll groups watch it through a weak_ptr to close its
// channels once it is gone).
class Namespace : public std::enable_shared_from_this<Namespace> {
  public:
    // block_size must be a power of two >= 512 dividing the device size.
    Namespace(uint32_t nsid, uint32_t block_size, std::shared_ptr<BlockDevice> device, NamespaceIds ids);

    uint32_t nsid() const { return nsid_; }
    uint32_t block_size() const { return block_size_; }
    uint8_t block_shift() const { return block_shift_; }
    // Grows while hosts are connected (grow_to): the I/O path sees the old or the new count.
    uint64_t num_blocks() const { return num_blocks_.load(std::memory_order_acquire); }
    // Counts attribute changes (a resize), so controllers raise the namespace-changed event.
    uint64_t attr_generation() const { return attr_generation_.load(std::memory_order_acquire); }
    // The new size after the device has grown to it (BlockDevice::grow): a whole number of
    // blocks, not smaller than today, not larger than the device. Control plane.
    Status grow_to(uint64_t size_bytes);
    const NamespaceIds &ids() const { return ids_; }
    BlockDevice &device() const { return *device_; }
    const std::shared_ptr<BlockDevice> &device_ptr() const { return device_; }
    // Unique for the life of the process (unlike the address or the nsid, never reused).
    uint64_t uid() const { return uid_; }
    // Excludes other I/O while a fused Compare and Write runs.
    IoGate &gate() const { return gate_; }

    // QoS limits of the namespace and of hosts on it (qos_policy.hpp); changed live.
    QosPolicy &qos() const { return qos_; }

    // Reservations (registrants, holder, PTPL file); checked on every I/O without a lock.
    Reservation &reservation() const { return reservation_; }

    // ANA group id, 1..kMaxAnaGroups (1 unless configured; set before the namespace is added):
    // the namespace's state on a port is its group's (ana_state.hpp).
    uint32_t ana_group() const { return ana_group_; }
    void set_ana_group(uint32_t id) { ana_group_ = id; }

    // Which hosts see it (namespace_visibility.hpp): set before the namespace is added; once it
    // is, only through Subsystem::set_namespace_visibility, whose lock guards it.
    const NamespaceVisibility &visibility() const { return visibility_; }
    void set_visibility(NamespaceVisibility v) { visibility_ = std::move(v); }

    // Requests that hold this namespace (from parse until completion or release), counted per
    // poll group lane: one writer per lane, a relaxed load and store, no lock and no shared
    // read-modify-write on the data path. A removed namespace is destroyed only once the sum is
    // zero (see dataplane NamespaceRetirement).
    void pin() { bump(1); }
    void unpin() { bump(-1); }
    int64_t pinned() const;

    // True when [slba, slba + nlb) lies inside the namespace.
    bool contains(uint64_t slba, uint64_t nlb) const {
        const uint64_t n = num_blocks();
        return slba < n && nlb <= n - slba;
    }

  private:
    uint32_t nsid_;
    uint32_t block_size_;
    uint8_t block_shift_;
    std::atomic<uint64_t> num_blocks_;
    std::atomic<uint64_t> attr_generation_{0};
    uint64_t uid_;
    std::shared_ptr<BlockDevice> device_;
    NamespaceIds ids_;
    // Next to the fields every I/O reads: qos_.active() is read per command (QoS off: no other
    // cache line is touched).
    mutable QosPolicy qos_;
    mutable IoGate gate_;
    mutable Reservation reservation_;
    uint32_t ana_group_ = 1;
    NamespaceVisibility visibility_;
    struct alignas(64) PinLane {
        std::atomic<int64_t> n{0};
    };
    // A read-modify-write, not load + store: a lane is not always one thread's (DPA queues share
    // lanes 32..63 round-robin and run on different execution units), and a lost update would
    // leave pinned() off for good: a namespace never retired, or freed under in-flight I/O.
    void bump(int64_t d) { pins_[IoGate::thread_lane()].n.fetch_add(d, std::memory_order_release); }
    PinLane pins_[IoGate::kMaxLanes];
};

// A UUID, NGUID and EUI-64 derived from a subsystem NQN and nsid, stable across restarts.
NamespaceIds derive_namespace_ids(const std::string_view nqn, uint32_t nsid);

} // namespace skiff::nvmeof::target
