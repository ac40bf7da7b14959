// Attaching a raw rdma-core CQ to a DPA completion context: the work completions of the CQ are
// delivered to the context (and activate its DPA thread when it asked for a notification) the
// same way the completions of async ops or of a doca_rdma context on the DPA data path are.
// doca_rdma uses this for its DPA data path; the NVMe/RDMA target uses it to run its own queue
// pairs (raw verbs) on DPA threads.
//
// Host side (control path, one thread at a time per attachment):
//
//     skiff::core::dpa::VerbsCqConfig cfg;
//     cfg.cq = cq;                // created with ibv_create_cq(ctx, n, nullptr, channel, 0)
//     cfg.channel = channel;      // ibv_create_comp_channel(ctx)
//     cfg.classify = my_classify; // optional; see VerbsWcClassifier
//     cfg.classify_arg = me;
//     skiff::core::dpa::VerbsCqAttachment *att = nullptr;
//     doca_error_t r = skiff::core::dpa::attach_verbs_cq(comp, cfg, &att); // comp: started
//     ... traffic; device code reads completions from comp ...
//     // destroy (or drain) the QPs using the CQ first, then:
//     skiff::core::dpa::detach_verbs_cq(att);
//     ibv_destroy_cq(cq); ibv_destroy_comp_channel(channel);
//
// Device side (the DPA thread attached to comp, or any device code polling it):
//
//     doca_dpa_dev_completion_element_t e;
//     while (doca_dpa_dev_get_completion(comp_handle, &e)) {
//         const ibv_wc *wc = skiff::core::dpa::dev_completion_verbs_wc(e); // wr_id, opcode, status,
//         ...                                                             // byte_len, qp_num, imm
//         doca_dpa_dev_completion_ack(comp_handle, 1); // the element (and wc) is reused after this
//     }
//     doca_dpa_dev_completion_request_notification(comp_handle);
//
// How it runs. While the CQ is busy it is polled by the execution unit (EU) of the completion
// context's thread, as a piece of work that requeues itself on that EU between DPA-thread runs:
// no syscall and no lock per completion, and the thread it activates runs on the same EU next.
// After SKIFF_DPA_SPIN_US (default 50 us) without a work completion the poller arms the CQ
// (ibv_req_notify_cq), polls once more (a completion that raced the arming is not lost) and stops
// requeuing; the EU may then sleep. One process-wide waiter thread sleeps in epoll on the
// completion channels of idle CQs and requeues a poller when its channel fires. Syscalls happen
// only on the idle -> busy transition.
//
// Rules:
// - comp must be started; the attachment counts as an object of comp's DPA context (doca_dpa_stop
//   refuses while it exists) and as attached to comp (doca_dpa_completion_stop / destroy refuse).
// - Completions go to comp->thread's EU when the thread is started at attach time, else to an EU
//   chosen round robin.
// - While attached, the completion channel belongs to the attachments: nobody else may read it
//   (several attachments may share one channel). The channel is made non-blocking.
// - Overflowing comp (more un-acked completions than its queue size) is the DPA's fatal error, as
//   for every producer; after it the poller drops completions.
// - detach_verbs_cq returns when the poller no longer runs, and reads and acknowledges the CQ's
//   pending channel events so that ibv_destroy_cq does not block. Call it after the QPs that use
//   the CQ are destroyed (or can produce no more completions), and before doca_dpa_stop.
// - Built without rdma-core, attach returns DOCA_ERROR_NOT_SUPPORTED.
#pragma once

#include <doca_dpa.h>
#include <doca_dpa_dev.h>
#include <doca_error.h>

#include <cstdint>

struct ibv_cq;
struct ibv_comp_channel;
struct ibv_wc;

namespace skiff::core::dpa {

// What one work completion becomes in the DPA completion context.
struct VerbsCompletionFields {
    uint32_t type = DOCA_DPA_DEV_COMP_SEND; // doca_dpa_dev_completion_type_t
    uint32_t user_data = 0;                 // doca_dpa_dev_get_completion_user_data
    uint32_t immediate = 0;                 // doca_dpa_dev_get_completion_immediate
};

// Fills `out` for `wc` and returns true to deliver it, false to drop it (no DPA completion). Runs
// on the EU, once per work completion: no blocking, no allocation.
using VerbsWcClassifier = bool (*)(void *arg, const ibv_wc &wc, VerbsCompletionFields &out);

// The classifier used when none is given: successful completions by opcode (IBV_WC_RECV ->
// RECV_SEND, or RECV_SEND_IMM with immediate data; IBV_WC_RECV_RDMA_WITH_IMM ->
// RECV_RDMA_WRITE_IMM; everything else -> SEND); a failed completion (whose opcode verbs leaves
// undefined) -> SEND_ERR. user_data = qp_num; immediate = the host-order value of wc.imm_data.
bool default_verbs_classifier(void *arg, const ibv_wc &wc, VerbsCompletionFields &out);

struct VerbsCqConfig {
    ibv_cq *cq = nullptr;
    ibv_comp_channel *channel = nullptr;  // the channel the CQ was created with
    VerbsWcClassifier classify = nullptr; // nullptr: default_verbs_classifier
    void *classify_arg = nullptr;
    unsigned poll_batch = 16; // work completions per ibv_poll_cq (1..64)
};

struct VerbsCqAttachment; // opaque

// INVALID_VALUE: null arguments, a poll_batch outside 1..64, or a CQ already attached;
// BAD_STATE: comp not started, or its DPA context in the fatal state; NOT_SUPPORTED without
// rdma-core; DRIVER: the channel could not be watched.
doca_error_t attach_verbs_cq(doca_dpa_completion *comp, const VerbsCqConfig &config, VerbsCqAttachment **out);
// Stops delivery and frees the attachment (see the rules above). INVALID_VALUE for nullptr.
doca_error_t detach_verbs_cq(VerbsCqAttachment *attachment);

// Device side: the work completion behind a completion element delivered by an attached CQ (also
// for doca_rdma on the DPA data path), or nullptr for one from another producer (async ops, ...).
// Valid until the element is acknowledged.
const ibv_wc *dev_completion_verbs_wc(doca_dpa_dev_completion_element_t element);

} // namespace skiff::core::dpa
