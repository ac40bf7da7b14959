// Internal: one NVMe/RDMA I/O queue in the dpa data path. The queue pair's CQ is attached to a
// DPA completion context (skiff/core/dpa_verbs_cq.hpp) whose DPA thread runs the same
// completion handling the poll groups run (RdmaQueuePair::on_completion -> target::Queue ->
// controller -> backend -> queue_response). Who owns what (nvmeof/TARGET.md, "The dpa data
// path"):
//
//   poll group thread  CM events, the keep-alive / async-event clock, reaping, destruction;
//                      it never touches the queue's state while the DPA thread runs: it asks,
//                      through the mailbox below.
//   DPA thread         every work completion, the command layer, Queue::poll and deferred
//                      commands, and finish() (the queue's end), all on one EU, one run at a time.
//
// The mailbox: the poll group sets a bit (tick, progress, close) and, when the mailbox was
// empty, posts one doorbell completion to a second, small completion context of the same thread;
// the thread takes the bits on that doorbell. At most one doorbell is outstanding, so the
// doorbell ring never overflows (an overflow would be the DPA's fatal error).
//
// The handover back: the thread publishes done() (release) once the queue is finished and has no
// backend I/O in flight; the poll group then reaps the connection and its destructor calls
// stop(): doca_dpa_thread_stop returns only when the thread is neither queued nor running, and
// from then on the poll group thread owns everything (it destroys the QP, detaches the CQ,
// releases the requests).
#pragma once

#include "dpa_poll_context.hpp"
#include "dpa_runtime.hpp"
#include "skiff/core/dpa_verbs_cq.hpp"
#include "skiff/core/status.hpp"

#include <atomic>
#include <cstdint>
#include <memory>

struct ibv_cq;
struct ibv_comp_channel;

namespace skiff::nvmeof::rdma {

class RdmaQueuePair;

class DpaQueue {
  public:
    // Creates the thread (started, not yet running), the CQ and doorbell completion contexts
    // and attaches the CQ. cq_entries bounds the work completions in flight.
    static Result<std::unique_ptr<DpaQueue>> create(std::shared_ptr<DpaRuntime> runtime, RdmaQueuePair &qp,
                                                    ibv_cq *cq, ibv_comp_channel *channel,
                                                    unsigned cq_entries);
    ~DpaQueue();

    // Poll group thread, when it takes the connection over: the queue's backend I/O uses this
    // queue's own context; then the thread runs (completions that arrived before are replayed).
    target::PollContext &context() { return ctx_; }
    void run();

    // Poll group thread: requests for the DPA thread.
    void request_tick(uint64_t now_ms);
    void request_close(const char *why);
    // Rings the doorbell when the thread left deferred commands behind; true when it did.
    bool request_progress();
    bool done() const { return done_.load(std::memory_order_acquire); }

    // Poll group thread, in the queue pair's destructor: the thread never runs again.
    void stop();
    // After the QP is destroyed, before its CQ is: no more completions are delivered.
    void detach_cq();

    // The DPA thread's function (registered in the runtime's app); arg is the DpaQueue.
    static void thread_main(uint64_t arg);
    // The RPC that arms a new queue's two completion contexts (registered in the app).
    static doca_dpa_func_t *arm_function();

  private:
    enum Op : uint32_t { kTick = 1, kProgress = 2, kClose = 4 };

    DpaQueue(std::shared_ptr<DpaRuntime> runtime, RdmaQueuePair &qp);
    void ring(Op op);
    void on_dpa();
    unsigned drain_cq();
    void take_mailbox();

    std::shared_ptr<DpaRuntime> runtime_;
    RdmaQueuePair &qp_;
    DpaPollContext ctx_;
    doca_dpa_thread *thread_ = nullptr;
    doca_dpa_completion *cq_comp_ = nullptr;
    doca_dpa_completion *bell_comp_ = nullptr;
    doca_dpa_dev_completion_t cq_handle_ = 0, bell_handle_ = 0;
    core::dpa::VerbsCqAttachment *attachment_ = nullptr;
    bool thread_started_ = false, running_ = false;

    alignas(64) std::atomic<uint32_t> mailbox_{0};
    std::atomic<uint64_t> tick_ms_{0};
    std::atomic<const char *> close_why_{nullptr};
    std::atomic<bool> wants_progress_{false};
    std::atomic<bool> done_{false};
};

} // namespace skiff::nvmeof::rdma
