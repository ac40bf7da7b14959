// The objects behind doca_dpa_thread, doca_dpa_eu_affinity and doca_dpa_thread_group.
//
// A DPA thread is activated (queued on its home EU) by trigger(): a completion on an armed
// completion context it is attached to, or a notification. At most one activation is queued at a
// time and a thread only ever runs on its home EU, so it never runs twice at once; a trigger
// during a run queues the next run. Triggers before doca_dpa_thread_run are remembered.
#pragma once

#include "dpa/app.hpp"
#include "dpa/eu_engine.hpp"

#include <doca_dpa.h>

#include <atomic>
#include <cstdint>
#include <vector>

struct doca_dpa_completion;
struct doca_dpa_thread_group;

struct doca_dpa_eu_affinity {
    doca_dpa *dpa = nullptr;
    bool set = false;
    unsigned eu_id = 0;
};

struct doca_dpa_thread final : skiff::core::dpa::Runnable {
    static constexpr uint32_t kMagic = 0x44505448; // "DPTH"
    uint32_t magic = kMagic;
    doca_dpa *dpa = nullptr;
    doca_dpa_func_t *func = nullptr;
    const skiff::core::dpa::DeviceFunction *function = nullptr;
    uint64_t arg = 0;
    doca_dpa_eu_affinity affinity{};
    uint64_t local_storage = 0;
    bool started = false;
    std::vector<doca_dpa_completion *> completions; // attached (host side only)
    doca_dpa_thread_group *group = nullptr;
    skiff::core::dpa::Eu *home = nullptr; // chosen at start

    std::atomic<bool> runnable{false}; // doca_dpa_thread_run .. stop
    std::atomic<bool> finished{false}; // doca_dpa_dev_thread_finish
    std::atomic<bool> queued{false};
    std::atomic<bool> running{false};
    std::atomic<bool> deferred{false}; // triggered before run
    std::atomic<uint64_t> runs{0};

    ~doca_dpa_thread() override;
    // From any thread (completion producers, notifiers).
    void trigger();
    void run(skiff::core::dpa::Eu &eu) override;
    // Waits until no activation is queued or running (after runnable was cleared).
    void quiesce();
};

struct doca_dpa_thread_group {
    doca_dpa *dpa = nullptr;
    std::vector<doca_dpa_thread *> ranks;
    bool started = false;
};
