// A kernel launch: num_threads ranks of one function, started once the wait event's counter is
// greater than the threshold, then the completion event updated by the last rank to finish.
#pragma once

#include "dpa/app.hpp"
#include "dpa/event_waiters.hpp"
#include "dpa/eu_engine.hpp"

#include <atomic>
#include <memory>

struct doca_dpa;
struct doca_sync_event;

namespace skiff::core::dpa {

struct Launch;

struct RankJob final : Runnable {
    Launch *launch = nullptr;
    unsigned rank = 0;
    void run(Eu &eu) override;
};

struct Launch final : EventWaiter {
    doca_dpa *dpa = nullptr;
    const DeviceFunction *function = nullptr;
    Args args{};
    unsigned num_threads = 0;
    doca_sync_event *wait_event = nullptr;
    uint64_t wait_threshold = 0;
    doca_sync_event *comp_event = nullptr;
    uint64_t comp_count = 0;
    bool comp_set = false; // update_set (else update_add)
    std::atomic<bool> dispatched{false};
    std::atomic<unsigned> remaining{0};
    std::unique_ptr<RankJob[]> ranks;

    // Queues the ranks when the wait condition holds (once).
    void try_dispatch();
    // After an event update: still waiting -> stay registered, and check again.
    void retry() override {
        if (dispatched.load(std::memory_order_acquire)) return;
        add_waiter(this);
        try_dispatch();
    }
    // Called by each rank when it returns; the last one completes the launch.
    void rank_done();
};

// Drops launches that never started (doca_dpa_stop / destroy), and waits for running ones.
void cancel_waiting_launches(doca_dpa &dpa);

} // namespace skiff::core::dpa
