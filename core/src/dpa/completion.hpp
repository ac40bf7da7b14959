// The object behind doca_dpa_completion: a ring of queue_size elements, written by any number of
// producers (async ops, RDMA on the DPA, skiff_dpa_completion_post) and read by one consumer (the
// attached DPA thread, or any device code polling it).
//
// Indexes grow forever (slot = index % queue_size):
//   reserved_  next index a producer takes;          visible_  what the consumer may read up to;
//   read_      next index the consumer reads;        acked_    what the consumer released.
// A producer finding reserved - acked >= queue_size overflows (the fatal error). With a thread
// attached, a new completion is populated (visible_ advanced) only when the context is armed
// (request_notification); the first one after arming disarms it and triggers the thread once.
// Without a thread there is nobody to notify: completions are populated at once (polled use).
//
// SKIFF_DPA_COMPLETIONS=hardware selects what the hardware's completion queues do instead, which
// NVIDIA's dpa_ping_pong relies on: a started context is armed (its first completion triggers the
// thread without any request_notification), and every completion is populated at once; arming
// decides only whether a completion triggers the thread. The default keeps the documented rule
// above (doca_dpa_dev.h: "new completions won't be populated" without request_notification).
#pragma once

#include <doca_dpa.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

struct doca_dpa_thread;

namespace skiff::core::dpa {

// Room for the work completion (struct ibv_wc) behind a completion delivered by an attached verbs
// CQ (dpa_verbs_cq.hpp); checked against sizeof(ibv_wc) where verbs is compiled in.
constexpr size_t kRawWcBytes = 48;

struct CompletionSlot {
    std::atomic<uint64_t> seq{0}; // index + 1 once written
    uint32_t type = 0;
    uint32_t user_data = 0;
    uint32_t immediate = 0;
    bool has_raw_wc = false;
    alignas(8) unsigned char raw_wc[kRawWcBytes];
};

class Eu;
struct VerbsCqAttachment;
// With SKIFF_DPA_COMPLETIONS=hardware, device code that finds its completion context empty polls
// the verbs CQ delivering into it, on its own EU (the hardware's CQ needs no EU: a DPA thread that
// busy-polls its context, as NVIDIA's dpa_ping_pong does, must see completions arrive while it
// holds the EU the CQ's poller would run on). True when completions were delivered.
bool drain_verbs_cq_inline(VerbsCqAttachment *attachment, Eu *current);

} // namespace skiff::core::dpa

struct doca_dpa_completion {
    static constexpr uint32_t kMagic = 0x44504343; // "DPCC"
    uint32_t magic = kMagic;
    doca_dpa *dpa = nullptr;
    unsigned queue_size = 0;
    doca_dpa_thread *thread = nullptr;
    bool started = false;
    std::atomic<uint32_t> attached{0}; // async ops (and later RDMA contexts) posting to it
    std::unique_ptr<skiff::core::dpa::CompletionSlot[]> ring;

    alignas(64) std::atomic<uint64_t> reserved{0};
    alignas(64) std::atomic<uint64_t> visible{0};
    std::atomic<uint64_t> acked{0};
    std::atomic<bool> armed{false};
    std::atomic<skiff::core::dpa::VerbsCqAttachment *> verbs{nullptr}; // the attached verbs CQ, if any
    alignas(64) uint64_t read = 0;                                     // consumer only

    // Producers. DOCA_ERROR_FULL on overflow (the context is then in its fatal state). raw_wc
    // (kRawWcBytes) is the work completion of a verbs CQ producer, copied into the slot.
    doca_error_t post(uint32_t type, uint32_t user_data, uint32_t immediate, const void *raw_wc = nullptr);
    // Consumer (device side).
    skiff::core::dpa::CompletionSlot *get();
    void ack(uint64_t n);
    void request_notification();
    // SKIFF_DPA_COMPLETIONS=hardware (read once per process).
    static bool hardware_semantics();

  private:
    void populate(uint64_t upto);
};
