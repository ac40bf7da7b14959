#include "skiff/nvmeof/target/queue.hpp"

#include "skiff/nvmeof/target/auth_session.hpp"
#include "commands.hpp"
#include "skiff/core/log.hpp"
#include "skiff/nvmeof/target/monotonic_clock.hpp"
#include "skiff/nvmeof/target/namespace.hpp"
#include "skiff/nvmeof/target/target.hpp"

#include <cstring>
#include <utility>

namespace skiff::nvmeof::target {

Queue::Queue(Target &target, Port port, TransportOps &transport)
    : target_(target), port_(std::move(port)), transport_(transport) {
    channel_params_.max_io_bytes = target.limits().max_transfer;
}

Queue::~Queue() {
    disconnect("queue destroyed");
    stop_metrics();
}

void Queue::bind(std::shared_ptr<Controller> ctrl, uint16_t qid, uint16_t sqsize, bool sqflow_disabled) {
    ctrl_ = std::move(ctrl);
    qid_ = qid;
    sqsize_ = sqsize;
    sqflow_disabled_ = sqflow_disabled;
    authenticated_ = !ctrl_->auth();
    auth_deadline_ms_ =
        authenticated_ || !target_.limits().auth_timeout_ms ? 0 : now_ms_ + target_.limits().auth_timeout_ms;
    ctrl_->touch(now_ms_);
    ctrl_->attach_queue(this);
    start_metrics();
}

// Every command received: it consumed an SQ slot and, Traffic Based Keep Alive, it restarts the
// association's Keep Alive timer.
void Queue::admit(Request &req) {
    req.queue = this;
    req.cqe = {};
    req.qos_admitted = false;
    if (metrics_) {
        req.received_ns = monotonic_ns();
        commands_in_flight_.store(commands_in_flight_.load(std::memory_order_relaxed) + 1,
                                  std::memory_order_relaxed);
    }
    sq_head_ = static_cast<uint16_t>(sq_head_ == sqsize_ ? 0 : sq_head_ + 1);
    if (ctrl_) ctrl_->touch(now_ms_);
}

void Queue::fail_before_prepare(Request &req, uint16_t status) {
    admit(req);
    req.set_status(status);
    // Refused by the transport, it pairs with nothing: a fused first half waiting for its second
    // half fails now (Failed Fused Command when this was meant as that half, else Missing Fused
    // Command), as prepare() would fail it. Left waiting, it would never be answered.
    if (Request *first = std::exchange(fused_first, nullptr)) {
        first->fail(NVME_SCT_GENERIC, req.cmd.fuse() == 2 ? NVME_SC_FUSED_FAIL : NVME_SC_FUSED_MISSING);
        if (first->fused_waiting) complete(*first); // else it completes when its data is in
    }
}

bool Queue::prepare(Request &req) {
    admit(req);

    if (fused_first && req.cmd.fuse() != 2) {
        // A fused first half must be followed at once by its second half; it was not.
        Request *first = fused_first;
        fused_first = nullptr;
        first->fail(NVME_SCT_GENERIC, NVME_SC_FUSED_MISSING);
        if (first->fused_waiting) complete(*first); // else it completes when its data is in
    }
    // The command itself, once its fused-pair bookkeeping above is done.
    auto parse = [this, &req] {
        if (req.cmd.opcode == wire::kFabricsOpcode) return detail::parse_fabrics(req);
        // Only Connect may come before the queue is connected.
        if (!ctrl_) return detail::fail(req, NVME_SCT_GENERIC, NVME_SC_CMD_SEQ_ERROR);
        // A queue that must authenticate serves nothing else until it did (one flag per command).
        if (!authenticated_) return detail::fail(req, NVME_SCT_CMD_SPECIFIC, NVME_SC_AUTH_REQUIRED);
        if (qid_ == 0)
            return ctrl_->is_discovery() ? detail::parse_discovery_admin(req) : detail::parse_admin(req);
        bool ok = detail::parse_io(req);
        // The request holds its namespace until it completes or is released (safe removal).
        if (req.ns) req.ns->pin();
        return ok;
    };
    Request *first = req.cmd.fuse() == 2 ? fused_first : nullptr;
    bool ok = parse();
    if (first && fused_first == first) {
        // A second half refused before it was paired with its first half (no such namespace,
        // controller not ready, not an I/O command...): the pair fails together. Left waiting,
        // the first half would never be answered.
        fused_first = nullptr;
        first->fail(NVME_SCT_GENERIC, NVME_SC_FUSED_FAIL);
        if (first->fused_waiting) complete(*first); // else it completes when its data is in
    }
    return ok;
}

void Queue::release(Request &req) {
    if (!req.ns) return;
    req.ns->unpin();
    req.ns = nullptr;
}

void Queue::execute(Request &req) {
    req.data_ready = true;
    Namespace *ns = req.ns;
    // Fused halves take the gate themselves (io_cmd.cpp); other I/O passes it shared.
    if (!ns || req.cmd.fuse()) return req.execute(req);
    // QoS: one relaxed load and a branch when the namespace has no limit.
    if (ns->qos().active() && !req.qos_admitted) [[unlikely]] {
        if (!qos_admit(req)) return; // queued; run_throttled() runs it when its tokens are due
    }
    if (!ns->gate().enter()) return defer(req);
    req.holds_gate = true; // until complete(): the backend I/O may finish later
    req.execute(req);
}

void Queue::start_auth_session(std::unique_ptr<AuthSession> session) {
    auth_ = std::move(session);
}

void Queue::defer(Request &req) {
    req.next_deferred = nullptr;
    if (deferred_tail_)
        deferred_tail_->next_deferred = &req;
    else
        deferred_head_ = &req;
    deferred_tail_ = &req;
}

void Queue::run_deferred() {
    // Retry each waiting request once, in order; those still blocked queue up again.
    Request *req = deferred_head_;
    deferred_head_ = deferred_tail_ = nullptr;
    while (req) {
        Request *next = req->next_deferred;
        execute(*req);
        req = next;
    }
}

void Queue::submit(Request &req) {
    if (prepare(req))
        execute(req);
    else
        complete(req);
}

void Queue::complete(Request &req) {
    if (req.holds_gate) {
        req.holds_gate = false;
        req.ns->gate().leave();
    }
    if (req.received_ns) record_metrics(req); // before release(): it charges req.ns
    release(req);
    req.cqe.sq_id = qid_;
    req.cqe.sq_head = sqflow_disabled_ ? 0xFFFF : sq_head_;
    req.cqe.cid = req.cmd.cid;
    transport_.queue_response(req);
}

bool Queue::poll(uint64_t now_ms) {
    now_ms_ = now_ms;
    if (!ctrl_) return true;
    if (ctrl_->dead()) return false;
    if (detail::authentication_overdue(*this, now_ms)) return false;
    if (qid_ != 0) return true;
    if (ctrl_->keep_alive_expired(now_ms)) {
        skiff::log::get("nvmeof")->warn("keep-alive timeout ({} ms) on controller {} (host {})",
                                        ctrl_->kato_ms(), ctrl_->cntlid(), ctrl_->hostnqn());
        ctrl_->subsystem().host_events().keep_alive_expired(ctrl_->hostnqn());
        ctrl_->kill("keep-alive timer expired");
        return false;
    }
    if (ctrl_->parked_aers() && ctrl_->collect_namespace_changes()) {
        Request *aer = ctrl_->take_aer();
        // Notice (type 2), namespace attribute changed (info 0), log page 04h.
        aer->cqe.result = NVME_AER_NOTICE | (NVME_LOG_LID_CHANGED_NS << 16);
        ctrl_->mask_ns_event();
        complete(*aer);
    }
    if (ctrl_->parked_aers() && ctrl_->collect_ana_changes()) {
        Request *aer = ctrl_->take_aer();
        // Notice (type 2), ANA change (info 3), log page 0Ch.
        aer->cqe.result = NVME_AER_NOTICE | (NVME_AER_NOTICE_ANA << 8) | (NVME_LOG_LID_ANA << 16);
        ctrl_->mask_ana_event();
        complete(*aer);
    }
    if (ctrl_->parked_aers() && ctrl_->is_discovery() &&
        ctrl_->collect_discovery_change(target_.discovery_generation())) {
        Request *aer = ctrl_->take_aer();
        // Notice (type 2), discovery log page change (info F0h), log page 70h.
        aer->cqe.result =
            NVME_AER_NOTICE | (NVME_AER_NOTICE_DISC_CHANGED << 8) | (NVME_LOG_LID_DISCOVER << 16);
        complete(*aer);
    }
    if (ctrl_->parked_aers() && ctrl_->collect_reservation_event()) {
        Request *aer = ctrl_->take_aer();
        // I/O command set specific (type 6), reservation log page available (info 0), page 80h.
        aer->cqe.result =
            NVME_AER_CSS | (NVME_AER_CSS_NVM_RESERVATION << 8) | (NVME_LOG_LID_RESERVATION << 16);
        ctrl_->mask_resv_event();
        complete(*aer);
    }
    return true;
}

void Queue::disconnect(const char *why) {
    if (!ctrl_) return;
    auto log = skiff::log::get("nvmeof");
    if (qid_ == 0) {
        log->info("disconnect: {} admin queue of controller {} ({}): {}", transport_.peer_name(),
                  ctrl_->cntlid(), ctrl_->subsystem().nqn(), why);
        target_.remove_controller(ctrl_->cntlid());
        ctrl_->kill("admin queue closed");
    } else {
        log->debug("disconnect: {} I/O queue {} of controller {}: {}", transport_.peer_name(), qid_,
                   ctrl_->cntlid(), why);
        ctrl_->release_qid(qid_);
    }
    ctrl_->detach_queue(this);
    quota_.reset(); // taken at Connect (fabrics_cmd.cpp) or authentication (auth_cmd.cpp)
    ctrl_.reset();
    auth_.reset();
    fused_first = nullptr;
    drop_deferred();
    qos_.take_all(); // the transport releases its requests (their namespace pins) itself
}

void Queue::delete_by_host() {
    abort_held_requests();
    disconnect("host sent Disconnect");
}

void Queue::abort_held_requests() {
    // The host may retry these on another queue: no DNR.
    auto abort = [this](Request &req) {
        req.fail(NVME_SCT_GENERIC, NVME_SC_ABORT_QUEUE, false);
        req.fused_waiting = false;
        complete(req);
    };
    Request *req = deferred_head_;
    deferred_head_ = deferred_tail_ = nullptr;
    while (req) {
        Request *next = req->next_deferred;
        if (req->cmd.fuse()) {
            // A deferred half of a Compare and Write: its partner waits for it (fused_waiting), and
            // the compare half may have claimed the namespace's gate already.
            Request *partner = req->fused_partner;
            const Request *cmp = req->cmd.fuse() == 1 ? req : partner;
            if (req->ns && cmp) req->ns->gate().leave_exclusive(cmp);
            if (partner && partner->fused_waiting) abort(*partner);
        }
        abort(*req);
        req = next;
    }
    // Requests over their QoS limit never ran: nothing else holds them.
    for (Request *r = qos_.take_all(); r;) {
        Request *next = r->next_throttled;
        abort(*r);
        r = next;
    }
    // A first half whose partner never came: answered now if its data is in, else when it is
    // (execute_fused_half completes a failed half).
    if (Request *first = std::exchange(fused_first, nullptr)) {
        bool waiting = first->fused_waiting;
        first->fail(NVME_SCT_GENERIC, NVME_SC_ABORT_QUEUE, false);
        if (waiting) abort(*first);
    }
}

void Queue::drop_deferred() {
    // A deferred Compare and Write may have claimed its namespace's gate already: give it up.
    for (Request *req = deferred_head_; req; req = req->next_deferred) {
        if (!req->ns || !req->cmd.fuse()) continue;
        const Request *cmp = req->cmd.fuse() == 1 ? req : req->fused_partner;
        if (cmp) req->ns->gate().leave_exclusive(cmp);
    }
    deferred_head_ = deferred_tail_ = nullptr;
}

namespace detail {

bool expect_transfer(Request &req, uint32_t len, DataDir dir) {
    if (req.data_len != len) return fail(req, NVME_SCT_GENERIC, NVME_SC_SGL_INVALID_DATA);
    req.dir = len ? dir : DataDir::kNone;
    return true;
}

bool check_ready(Request &req) {
    Controller *ctrl = req.queue->controller();
    uint32_t csts = ctrl->csts();
    if (csts & kCstsFatal) return fail(req, NVME_SCT_GENERIC, NVME_SC_INTERNAL, false);
    if (!(csts & kCstsReady)) return fail(req, NVME_SCT_GENERIC, NVME_SC_CMD_SEQ_ERROR);
    return true;
}

void PageWindow::put(uint64_t page_off, const void *src, size_t n) {
    uint64_t begin = std::max(page_off, offset_);
    uint64_t end = std::min(page_off + n, offset_ + len_);
    if (begin >= end) return;
    std::memcpy(dst_ + (begin - offset_), static_cast<const uint8_t *>(src) + (begin - page_off),
                end - begin);
}

} // namespace detail
} // namespace skiff::nvmeof::target
