// C++ handle for a standalone CPU sync event: a 64-bit counter to set, add to, read and wait on.
#pragma once

#include <skiff/core/status.hpp>

#include <doca_sync_event.h>

#include <cstdint>
#include <utility>

namespace skiff::core {

class SyncEvent {
  public:
    SyncEvent() = default;
    SyncEvent(SyncEvent &&other) noexcept : ev_(std::exchange(other.ev_, nullptr)) {}
    SyncEvent &operator=(SyncEvent &&other) noexcept;
    SyncEvent(const SyncEvent &) = delete;
    SyncEvent &operator=(const SyncEvent &) = delete;
    ~SyncEvent();

    // Created, published and subscribed on the DPU/CPU side, and started. `external` optionally
    // holds the counter (8-byte aligned, must outlive the event).
    static Result<SyncEvent> create_started(uint64_t *external = nullptr);

    doca_sync_event *get() const { return ev_; }
    uint64_t value() const;
    Status set(uint64_t v);
    // Atomic add; returns the value before.
    Result<uint64_t> add(uint64_t v);
    // Blocks (spin, then sleep) until (value & mask) > threshold; mask 0 = whole value.
    Status wait_gt(uint64_t threshold, uint64_t mask = 0);

  private:
    doca_sync_event *ev_ = nullptr;
};

} // namespace skiff::core
