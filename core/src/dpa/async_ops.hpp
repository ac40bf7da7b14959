// The object behind doca_dpa_async_ops: a queue of operations posted by device code (memcpy,
// post-wait on a sync event), executed in order by the emulated hardware, completing into the
// attached completion context.
//
// Posting is single-producer (DPA objects are not thread-safe): post() appends to the ring; an op
// with FLUSH publishes every op posted so far (without FLUSH ops may wait, here until the next
// FLUSH). advance() executes published ops in order, on whichever thread gets there first (the
// poster at flush, or an event updater when a wait becomes true); a wait that does not hold yet
// stops the queue and registers it as an event waiter. An op without OPTIMIZE_REPORTS posts one
// completion (type SEND, or SEND_ERR if it or a deferred op before it failed) that also reports
// every earlier deferred op.
#pragma once

#include "dpa/event_waiters.hpp"
#include "dpa/owner_check.hpp"

#include <doca_dpa.h>

#include <atomic>
#include <cstdint>
#include <memory>

struct doca_sync_event;
struct doca_dpa_completion;

namespace skiff::core::dpa {

struct AsyncOp {
    enum class Kind : uint8_t { memcpy, wait_gt, wait_ne };
    Kind kind = Kind::memcpy;
    bool valid = true; // false: fails with an error completion
    uint32_t flags = 0;
    uint8_t *dst = nullptr;
    const uint8_t *src = nullptr;
    size_t len = 0;
    doca_sync_event *event = nullptr;
    uint64_t value = 0;
};

} // namespace skiff::core::dpa

struct doca_dpa_async_ops final : skiff::core::dpa::EventWaiter {
    static constexpr uint32_t kMagic = 0x4450414f; // "DPAO"
    uint32_t magic = kMagic;
    doca_dpa *dpa = nullptr;
    unsigned queue_size = 0;
    uint64_t user_data = 0;
    doca_dpa_completion *comp = nullptr;
    bool started = false;
    std::unique_ptr<skiff::core::dpa::AsyncOp[]> ring;

    uint64_t posted = 0; // producer only
    alignas(64) std::atomic<uint64_t> published{0};
    alignas(64) std::atomic<uint64_t> executed{0};
    bool deferred_failed = false; // advancer only
    std::atomic<bool> busy{false};
    std::atomic<bool> again{false};
    skiff::core::dpa::OwnerCheck owner; // device posters (debug builds)

    // Device side; false when the queue is full (the caller faults).
    bool post(const skiff::core::dpa::AsyncOp &op);
    void advance();
    void retry() override { advance(); }

  private:
    void run_ops();
};
