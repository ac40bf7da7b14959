#include "rdma_dpa_queue.hpp"

#include "rdma_queue_pair.hpp"
#include "skiff/nvmeof/target/io_gate.hpp"

#include <doca_dpa_dev.h>
#include <infiniband/verbs.h>

namespace skiff::nvmeof::rdma {

namespace {

constexpr unsigned kBellQueueSize = 4; // at most one doorbell is outstanding
constexpr unsigned kCqBudget = 64;     // work completions per run: EUs are shared by queues

Status dpa_check(doca_error_t r, const char *what) {
    return check(r, std::string("dpa data path: ") + what);
}

} // namespace

DpaQueue::DpaQueue(std::shared_ptr<DpaRuntime> runtime, RdmaQueuePair &qp)
    : runtime_(std::move(runtime)), qp_(qp), ctx_(runtime_->next_lane()) {}

Result<std::unique_ptr<DpaQueue>> DpaQueue::create(std::shared_ptr<DpaRuntime> runtime, RdmaQueuePair &qp,
                                                   ibv_cq *cq, ibv_comp_channel *channel,
                                                   unsigned cq_entries) {
    std::unique_ptr<DpaQueue> q(new DpaQueue(std::move(runtime), qp));
    doca_dpa *dpa = q->runtime_->dpa();
    if (auto st = dpa_check(doca_dpa_thread_create(dpa, &q->thread_), "doca_dpa_thread_create"); !st)
        return st.error();
    if (auto st = dpa_check(doca_dpa_thread_set_func_arg(q->thread_, DpaRuntime::queue_thread_function(),
                                                         reinterpret_cast<uint64_t>(q.get())),
                            "doca_dpa_thread_set_func_arg");
        !st)
        return st.error();
    // Un-acked completions never exceed the work requests in flight, which the CQ bounds.
    for (auto [comp, size] :
         {std::pair{&q->cq_comp_, 2 * cq_entries}, std::pair{&q->bell_comp_, kBellQueueSize}}) {
        if (auto st = dpa_check(doca_dpa_completion_create(dpa, size, comp), "doca_dpa_completion_create");
            !st)
            return st.error();
        if (auto st = dpa_check(doca_dpa_completion_set_thread(*comp, q->thread_),
                                "doca_dpa_completion_set_thread");
            !st)
            return st.error();
        if (auto st = dpa_check(doca_dpa_completion_start(*comp), "doca_dpa_completion_start"); !st)
            return st.error();
    }
    if (auto st =
            dpa_check(doca_dpa_completion_get_dpa_handle(q->cq_comp_, &q->cq_handle_), "completion handle");
        !st)
        return st.error();
    if (auto st = dpa_check(doca_dpa_completion_get_dpa_handle(q->bell_comp_, &q->bell_handle_),
                            "completion handle");
        !st)
        return st.error();
    // Started before the CQ is attached: its work completions are polled on the thread's EU.
    if (auto st = dpa_check(doca_dpa_thread_start(q->thread_), "doca_dpa_thread_start"); !st)
        return st.error();
    q->thread_started_ = true;
    core::dpa::VerbsCqConfig cfg;
    cfg.cq = cq;
    cfg.channel = channel;
    if (auto st =
            dpa_check(core::dpa::attach_verbs_cq(q->cq_comp_, cfg, &q->attachment_), "attaching the CQ");
        !st)
        return st.error();
    return q;
}

DpaQueue::~DpaQueue() {
    stop();
    detach_cq();
    for (doca_dpa_completion *comp : {cq_comp_, bell_comp_}) {
        if (!comp) continue;
        doca_dpa_completion_stop(comp);
        doca_dpa_completion_destroy(comp);
    }
    if (thread_) doca_dpa_thread_destroy(thread_);
}

// Completion contexts start disarmed: the first arming is device code, run as an RPC.
static uint64_t arm_rpc(uint64_t cq_handle, uint64_t bell_handle) {
    doca_dpa_dev_completion_request_notification(cq_handle);
    doca_dpa_dev_completion_request_notification(bell_handle);
    return 0;
}

doca_dpa_func_t *DpaQueue::arm_function() {
    return reinterpret_cast<doca_dpa_func_t *>(&arm_rpc);
}

void DpaQueue::run() {
    if (running_) return;
    running_ = true;
    auto log = skiff::log::get("rdma");
    if (doca_error_t r = doca_dpa_thread_run(thread_); r != DOCA_SUCCESS) {
        log->error("{}: dpa data path: doca_dpa_thread_run: {}", qp_.peer(), doca_error_get_descr(r));
        return;
    }
    uint64_t ret = 0;
    // Arming with completions already waiting triggers the thread at once: nothing is lost.
    if (doca_error_t r = doca_dpa_rpc(runtime_->dpa(), arm_function(), &ret, cq_handle_, bell_handle_);
        r != DOCA_SUCCESS)
        log->error("{}: dpa data path: arming the completion contexts: {}", qp_.peer(),
                   doca_error_get_descr(r));
}

void DpaQueue::ring(Op op) {
    if (mailbox_.fetch_or(op, std::memory_order_acq_rel) != 0) return; // a doorbell is outstanding
    skiff_dpa_completion_post(bell_comp_, DOCA_DPA_DEV_COMP_SEND, 0, 0);
}

void DpaQueue::request_tick(uint64_t now_ms) {
    tick_ms_.store(now_ms, std::memory_order_relaxed);
    ring(kTick);
}

void DpaQueue::request_close(const char *why) {
    const char *none = nullptr;
    close_why_.compare_exchange_strong(none, why, std::memory_order_acq_rel);
    ring(kClose);
}

bool DpaQueue::request_progress() {
    if (!wants_progress_.load(std::memory_order_relaxed)) return false;
    ring(kProgress);
    return true;
}

void DpaQueue::stop() {
    if (!thread_started_) return;
    doca_dpa_thread_stop(thread_); // returns once the thread is neither queued nor running
    thread_started_ = false;
}

void DpaQueue::detach_cq() {
    if (attachment_) core::dpa::detach_verbs_cq(attachment_);
    attachment_ = nullptr;
}

// ---------------------------------------------------------------------------------------------
// Device side: one run of the queue's DPA thread.

void DpaQueue::thread_main(uint64_t arg) {
    reinterpret_cast<DpaQueue *>(arg)->on_dpa();
    doca_dpa_dev_thread_reschedule();
}

void DpaQueue::on_dpa() {
    target::IoGate::set_thread_lane(ctx_.index());
    take_mailbox();
    drain_cq();
    qp_.advance(); // deferred commands (Compare and Write exclusion)
    wants_progress_.store(qp_.wants_progress(), std::memory_order_relaxed);
    if (qp_.drained()) done_.store(true, std::memory_order_release);
    // Arming with completions waiting (a budget left some) triggers the next run at once.
    doca_dpa_dev_completion_request_notification(bell_handle_);
    doca_dpa_dev_completion_request_notification(cq_handle_);
}

void DpaQueue::take_mailbox() {
    doca_dpa_dev_completion_element_t e;
    uint64_t n = 0;
    while (doca_dpa_dev_get_completion(bell_handle_, &e)) ++n;
    if (n == 0) return;
    doca_dpa_dev_completion_ack(bell_handle_, n);
    // After the ack: a request from now on finds the mailbox empty and rings again.
    uint32_t ops = mailbox_.exchange(0, std::memory_order_acq_rel);
    if (ops & kClose) qp_.finish(close_why_.load(std::memory_order_acquire));
    if (ops & kTick) {
        qp_.tick(tick_ms_.load(std::memory_order_relaxed));
        ctx_.sweep_channels(); // channels of namespaces that are gone, as poll groups do
    }
}

unsigned DpaQueue::drain_cq() {
    doca_dpa_dev_completion_element_t e;
    unsigned n = 0;
    while (n < kCqBudget && doca_dpa_dev_get_completion(cq_handle_, &e)) {
        const ibv_wc *wc = core::dpa::dev_completion_verbs_wc(e);
        if (wc) qp_.deliver(*wc);
        ++n;
    }
    if (n) doca_dpa_dev_completion_ack(cq_handle_, n);
    return n;
}

} // namespace skiff::nvmeof::rdma
