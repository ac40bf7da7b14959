#include "rdma_queue_pair.hpp"

#include "rdma_dpa_queue.hpp"
#include "skiff/nvmeof/rdma/rdma_limits.hpp"
#include "skiff/nvmeof/transport/buffer_areas.hpp"

#include <nvme/types.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <unistd.h>

namespace skiff::nvmeof::rdma {

using target::DataDir;

namespace {

constexpr uint32_t kSqeLen = sizeof(wire::Sqe);
constexpr int kCqBatch = 32;
constexpr int kCqBudget = 16;         // batches per call: bounded work per connection
constexpr unsigned kCqAckBatch = 128; // CQ events acknowledged together (the ack takes a lock)

bool set_nonblocking(int fd) {
    int flags = fcntl(fd, F_GETFL);
    return flags >= 0 && fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0;
}

Status fail(const std::string &what) {
    return make_error(DOCA_ERROR_DRIVER, what + ": " + std::strerror(errno));
}

size_t round_up(size_t v, size_t a) {
    return (v + a - 1) / a * a;
}

} // namespace

const char *to_string(RdmaRequestState state) {
    switch (state) {
    case RdmaRequestState::kFree:
        return "free";
    case RdmaRequestState::kReadingHostData:
        return "reading-host-data";
    case RdmaRequestState::kExecuting:
        return "executing";
    case RdmaRequestState::kSending:
        return "sending";
    }
    return "?";
}

RdmaQueuePair::RdmaQueuePair(rdma_cm_id *id, std::string peer, target::Target &target, target::Port port,
                             std::shared_ptr<DpaRuntime> dpa)
    : id_(id), peer_(std::move(peer)), target_(target), queue_(target, std::move(port), *this),
      limits_(target.limits()), dpa_runtime_(std::move(dpa)) {}

RdmaQueuePair::~RdmaQueuePair() {
    if (dpa_) dpa_->stop(); // from here this thread owns the data path again
    finish("connection destroyed");
    for (auto &req : reqs_) queue_.release(req); // requests that never completed (namespace pins)
    destroy();
    dpa_.reset(); // its channels, after the queue let go of them
}

Status RdmaQueuePair::start(const CmDecision &decision, const rdma_conn_param &host_param) {
    depth_ = decision.depth;
    if (decision.qid == 0) dpa_runtime_.reset(); // the admin queue stays on its poll group
    // Our own event channel: established / disconnected events of this connection reach the
    // poll group that owns it, not the acceptor.
    channel_ = rdma_create_event_channel();
    if (!channel_) return fail("rdma_create_event_channel");
    if (!set_nonblocking(channel_->fd)) return fail("O_NONBLOCK on the CM channel");
    if (rdma_migrate_id(id_, channel_)) return fail("rdma_migrate_id");

    ibv_device_attr dev{};
    if (ibv_query_device(id_->verbs, &dev)) return fail("ibv_query_device");
    ibv_port_attr port{};
    if (ibv_query_port(id_->verbs, id_->port_num, &port)) return fail("ibv_query_port");
    cm_qid_ = decision.qid;
    // MDTS: one keyed block moves with one READ/WRITE of one SGE, so the message size bounds it;
    // the controller advertises what this device allows (TransportOps::max_transfer).
    max_transfer_ = max_transfer_for_device(limits_.max_transfer, port.max_msg_sz);
    if (max_transfer_ == 0) {
        errno = EMSGSIZE;
        return fail("device " + std::string(ibv_get_device_name(id_->verbs->device)) + " max message " +
                    std::to_string(port.max_msg_sz) + " bytes is below 4 KiB");
    }
    if (max_transfer_ < limits_.max_transfer)
        log_->info("{}: device {} moves at most {} bytes per message: MDTS {} bytes", peer_,
                   ibv_get_device_name(id_->verbs->device), port.max_msg_sz, max_transfer_);
    if (auto st = create_resources(std::min<uint32_t>(host_param.initiator_depth, dev.max_qp_init_rd_atom));
        !st)
        return st;

    CmAccept acc = make_accept(decision);
    rdma_conn_param param{};
    param.private_data = &acc;
    param.private_data_len = sizeof(acc);
    // Reads we may have outstanding towards the host, and reads the host may issue to us
    // (NVMe/RDMA hosts issue none, but a non-zero request is tolerated).
    param.initiator_depth =
        static_cast<uint8_t>(std::min<uint32_t>(host_param.initiator_depth, dev.max_qp_init_rd_atom));
    param.responder_resources =
        static_cast<uint8_t>(std::min<uint32_t>(host_param.responder_resources, dev.max_qp_rd_atom));
    param.rnr_retry_count = 7;
    if (rdma_accept(id_, &param)) return fail("rdma_accept");
    log_->debug("{}: accepted qid {} depth {} (host ird {} ord {})", peer_, decision.qid, depth_,
                host_param.responder_resources, host_param.initiator_depth);
    if (dpa_) log_->info("{}: qid {} runs on DPA thread (dpa data path)", peer_, decision.qid);
    return Status::success();
}

Status RdmaQueuePair::create_resources(uint32_t max_rd_atomic) {
    (void)max_rd_atomic; // rdma_accept programs it into the QP from the accept parameters
    // With an SRQ the QP must live in the SRQ's PD (which the SRQ owns).
    pd_ = srq_ ? srq_->pd() : ibv_alloc_pd(id_->verbs);
    if (!pd_) return fail("ibv_alloc_pd");
    comp_channel_ = ibv_create_comp_channel(id_->verbs);
    if (!comp_channel_ || !set_nonblocking(comp_channel_->fd)) return fail("ibv_create_comp_channel");
    // Per slot: one receive, then at most an RDMA READ or WRITE and the response SEND.
    cq_ = ibv_create_cq(id_->verbs, 3 * depth_ + 1, this, comp_channel_, 0);
    if (!cq_) return fail("ibv_create_cq");
    if (ibv_req_notify_cq(cq_, 0)) return fail("ibv_req_notify_cq");

    ibv_qp_init_attr attr{};
    attr.send_cq = cq_;
    attr.recv_cq = cq_;
    attr.qp_type = IBV_QPT_RC;
    attr.cap.max_send_wr = 2u * depth_;
    attr.cap.max_recv_wr = srq_ ? 0 : depth_;
    attr.srq = srq_ ? srq_->srq() : nullptr;
    attr.cap.max_send_sge = 1;
    attr.cap.max_recv_sge = 1;
    if (rdma_create_qp(id_, pd_, &attr)) return fail("rdma_create_qp");
    qp_created_ = true;

    // One region, one registration: capsules, responses, then page-aligned data buffers.
    capsule_len_ = kSqeLen + target::in_capsule_limit(limits_);
    size_t caps = srq_ ? 0 : round_up(size_t(depth_) * capsule_len_, 64);
    size_t resps = round_up(size_t(depth_) * sizeof(wire::Cqe), 4096);
    region_len_ = caps + resps + size_t(depth_) * max_transfer_;
    void *p = mmap(nullptr, region_len_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        region_ = nullptr;
        return fail("mmap of " + std::to_string(region_len_) + " bytes of queue buffers");
    }
    region_ = static_cast<uint8_t *>(p);
    transport::buffer_areas::add(region_, region_len_); // DMA backends (hostmem) may target the slots
    responses_ = reinterpret_cast<wire::Cqe *>(region_ + caps);
    uint8_t *data = region_ + caps + resps;
    // The target only reads and writes its own buffers (the host never touches them remotely).
    mr_ = ibv_reg_mr(pd_, region_, region_len_, IBV_ACCESS_LOCAL_WRITE);
    if (!mr_) return fail("ibv_reg_mr of " + std::to_string(region_len_) + " bytes");

    reqs_.resize(depth_);
    free_.reserve(depth_);
    backlog_ = CapsuleBacklog(depth_);
    for (size_t i = depth_; i-- > 0;) {
        reqs_[i].index = static_cast<uint16_t>(i);
        reqs_[i].slot_buf = data + i * max_transfer_;
        reqs_[i].slot_cap = max_transfer_;
        free_.push_back(static_cast<uint16_t>(i));
    }
    for (uint16_t r = 0; !srq_ && r < depth_; ++r)
        if (!post_recv(r)) return fail("ibv_post_recv");

    if (dpa_runtime_) {
        auto q = DpaQueue::create(dpa_runtime_, *this, cq_, comp_channel_, 3 * depth_ + 1);
        if (!q) return q.error();
        dpa_ = std::move(*q);
    }
    epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
    if (epoll_fd_ < 0) return fail("epoll_create1");
    for (int fd : {channel_->fd, comp_channel_->fd}) {
        if (dpa_ && fd == comp_channel_->fd) continue; // the DPA side polls the CQ
        epoll_event ev{};
        ev.events = EPOLLIN;
        ev.data.fd = fd;
        if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev)) return fail("epoll_ctl");
    }
    return Status::success();
}

void RdmaQueuePair::destroy() {
    // Order matters: the QP (no more DMA into our buffers) before its MR, CQ and PD.
    if (qp_created_) rdma_destroy_qp(id_);
    qp_created_ = false;
    if (srq_) return_srq_capsules();
    if (dpa_) dpa_->detach_cq(); // no more completions; the CQ can go
    if (mr_) ibv_dereg_mr(mr_);
    mr_ = nullptr;
    if (region_) {
        transport::buffer_areas::remove(region_);
        munmap(region_, region_len_);
    }
    region_ = nullptr;
    if (cq_) {
        ibv_ack_cq_events(cq_, cq_events_);
        ibv_destroy_cq(cq_);
    }
    cq_ = nullptr;
    if (comp_channel_) ibv_destroy_comp_channel(comp_channel_);
    comp_channel_ = nullptr;
    if (pd_ && !srq_) ibv_dealloc_pd(pd_);
    pd_ = nullptr;
    if (id_) rdma_destroy_id(id_);
    id_ = nullptr;
    if (channel_) rdma_destroy_event_channel(channel_);
    channel_ = nullptr;
    if (epoll_fd_ >= 0) ::close(epoll_fd_);
    epoll_fd_ = -1;
    srq_.reset(); // the last connection of its group and device frees the SRQ
}

// ---------------------------------------------------------------------------------------------
// Events and completions

void RdmaQueuePair::attach(target::PollContext &ctx) {
    if (!dpa_) return queue_.attach(ctx);
    queue_.attach(dpa_->context());
    dpa_->run();
}

void RdmaQueuePair::on_readable() {
    handle_cm_events();
    if (dpa_ || finished_ || !cq_) return;
    ibv_cq *cq = nullptr;
    void *ctx = nullptr;
    while (ibv_get_cq_event(comp_channel_, &cq, &ctx) == 0) {
        if (++cq_events_ == kCqAckBatch) {
            ibv_ack_cq_events(cq_, cq_events_);
            cq_events_ = 0;
        }
    }
    // Re-arm first, then drain: a completion landing in between raises a new event.
    ibv_req_notify_cq(cq_, 0);
    poll_cq();
}

void RdmaQueuePair::handle_cm_events() {
    rdma_cm_event *ev = nullptr;
    while (channel_ && rdma_get_cm_event(channel_, &ev) == 0) {
        rdma_cm_event_type type = ev->event;
        rdma_ack_cm_event(ev);
        switch (type) {
        case RDMA_CM_EVENT_ESTABLISHED:
            log_->debug("{}: established", peer_);
            break;
        case RDMA_CM_EVENT_DISCONNECTED:
            end("host disconnected");
            break;
        case RDMA_CM_EVENT_DEVICE_REMOVAL:
            end("RDMA device removed");
            break;
        default:
            log_->debug("{}: CM event {}", peer_, rdma_event_str(type));
            break;
        }
    }
}

void RdmaQueuePair::poll_cq() {
    ibv_wc wcs[kCqBatch];
    cq_more_ = false;
    for (int batch = 0; batch < kCqBudget; ++batch) {
        int n = ibv_poll_cq(cq_, kCqBatch, wcs);
        if (n < 0) return finish("ibv_poll_cq failed");
        for (int i = 0; i < n; ++i) finished_ ? drop_completion(wcs[i]) : on_completion(wcs[i]);
        if (finished_ || n < kCqBatch) return;
    }
    cq_more_ = true; // more may be waiting: progress() continues
}

void RdmaQueuePair::on_completion(const ibv_wc &wc) {
    if (wc.status != IBV_WC_SUCCESS) {
        drop_completion(wc);
        if (wc.status != IBV_WC_WR_FLUSH_ERR)
            log_->warn("{}: work request failed: {} (vendor error {:#x})", peer_,
                       ibv_wc_status_str(wc.status), wc.vendor_err);
        return finish(wc.status == IBV_WC_WR_FLUSH_ERR ? "queue pair flushed" : "work request failed");
    }
    auto index = static_cast<uint32_t>(wc.wr_id & 0xFFFFFF);
    switch (wc.wr_id >> 56) {
    case kWrRecv:
        return on_recv(static_cast<uint16_t>(index), wc.byte_len);
    case kWrRead: {
        RdmaRequest &req = reqs_[index];
        set_state(req, RdmaRequestState::kExecuting);
        return queue_.execute(req);
    }
    case kWrSend: {
        free_request(reqs_[index]);
        if (queue_.disconnect_requested()) return finish(queue_.disconnect_reason());
        if (backlog_.empty()) return;
        CapsuleBacklog::Capsule next = backlog_.pop();
        return start_request(*alloc_request(), next.recv, next.byte_len);
    }
    }
}

void RdmaQueuePair::on_recv(uint16_t recv, uint32_t byte_len) {
    if (byte_len < kSqeLen) {
        log_->warn("{}: received {} bytes, shorter than a command capsule; closing", peer_, byte_len);
        release_recv(recv);
        return finish("short command capsule");
    }
    RdmaRequest *req = alloc_request();
    if (!req && backlog_.full()) {
        // Only possible with an SRQ (our own ring holds depth receives): the host sent more
        // commands than its queue size.
        log_->warn("{}: more commands in flight than the queue's {} entries; closing", peer_, depth_);
        release_recv(recv);
        return finish("queue size exceeded");
    }
    if (!req) {
        // Every slot is still waiting for its response SEND to complete; the capsule waits.
        backlog_.push({recv, byte_len});
        return;
    }
    start_request(*req, recv, byte_len);
}

// ---------------------------------------------------------------------------------------------
// Request transitions

RdmaRequest *RdmaQueuePair::alloc_request() {
    if (free_.empty()) return nullptr;
    RdmaRequest &req = reqs_[free_.back()];
    free_.pop_back();
    req.reset();
    req.prepared = false;
    return &req;
}

void RdmaQueuePair::free_request(RdmaRequest &req) {
    set_state(req, RdmaRequestState::kFree);
    free_.push_back(req.index);
}

void RdmaQueuePair::set_state(RdmaRequest &req, RdmaRequestState state) {
    if (log_->should_log(spdlog::level::trace))
        log_->trace("{}: cid {} {} -> {}", peer_, uint16_t(req.cmd.cid), to_string(req.state),
                    to_string(state));
    req.state = state;
}

void RdmaQueuePair::start_request(RdmaRequest &req, uint16_t recv, uint32_t byte_len) {
    req.recv = recv;
    std::memcpy(&req.cmd, capsule(recv), kSqeLen);
    req.sgl = plan_sgl(req.cmd, byte_len - kSqeLen, max_transfer_);
    req.buf = req.slot_buf;
    req.buf_cap = max_transfer_;
    set_state(req, RdmaRequestState::kExecuting);
    if (req.sgl.status) {
        queue_.fail_before_prepare(req, req.sgl.status);
        return queue_.complete(req);
    }
    req.data_len = req.sgl.length;
    if (req.sgl.kind == SglPlan::kInCapsule) {
        // In-capsule data is used where it landed: the capsule stays ours until the response.
        req.buf = capsule(recv) + kSqeLen + req.sgl.offset;
        req.buf_cap = req.sgl.length;
    }
    req.prepared = queue_.prepare(req);
    after_host_data(req);
}

void RdmaQueuePair::after_host_data(RdmaRequest &req) {
    if (!req.prepared) return queue_.complete(req);
    if (req.sgl.kind == SglPlan::kInCapsule && req.dir == DataDir::kCtrlToHost) {
        // Data for the host cannot travel in a command capsule.
        req.fail(NVME_SCT_GENERIC, NVME_SC_SGL_INVALID_TYPE);
        return queue_.complete(req);
    }
    if (req.dir == DataDir::kHostToCtrl && req.sgl.kind == SglPlan::kKeyed) return post_read(req);
    queue_.execute(req);
}

void RdmaQueuePair::post_read(RdmaRequest &req) {
    set_state(req, RdmaRequestState::kReadingHostData);
    ibv_sge sge{reinterpret_cast<uintptr_t>(req.buf), req.data_len, mr_->lkey};
    ibv_send_wr wr{};
    wr.wr_id = wr_id(kWrRead, req.index);
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = IBV_WR_RDMA_READ;
    wr.send_flags = IBV_SEND_SIGNALED;
    wr.wr.rdma.remote_addr = req.sgl.remote_addr;
    wr.wr.rdma.rkey = req.sgl.rkey;
    ibv_send_wr *bad = nullptr;
    if (ibv_post_send(id_->qp, &wr, &bad)) {
        log_->warn("{}: posting an RDMA READ failed: {}", peer_, std::strerror(errno));
        finish("ibv_post_send failed");
    }
}

bool RdmaQueuePair::post_recv(uint16_t recv) {
    if (srq_) return srq_->post(recv);
    ibv_sge sge{reinterpret_cast<uintptr_t>(capsule(recv)), capsule_len_, mr_->lkey};
    ibv_recv_wr wr{};
    wr.wr_id = wr_id(kWrRecv, recv);
    wr.sg_list = &sge;
    wr.num_sge = 1;
    ibv_recv_wr *bad = nullptr;
    return ibv_post_recv(id_->qp, &wr, &bad) == 0;
}

void RdmaQueuePair::queue_response(target::Request &r) {
    auto &req = static_cast<RdmaRequest &>(r);
    if (finished_) return; // the QP is going away; the slot is never reused
    // The capsule is consumed: post it again before the host can see the completion and send
    // the next command.
    if (!post_recv(req.recv)) return finish("ibv_post_recv failed");
    set_state(req, RdmaRequestState::kSending);
    responses_[req.index] = req.cqe;

    ibv_sge resp{reinterpret_cast<uintptr_t>(&responses_[req.index]), sizeof(wire::Cqe), mr_->lkey};
    ibv_send_wr send{};
    send.wr_id = wr_id(kWrSend, req.index);
    send.sg_list = &resp;
    send.num_sge = 1;
    send.send_flags = IBV_SEND_SIGNALED;
    if (req.sgl.invalidate) {
        send.opcode = IBV_WR_SEND_WITH_INV;
        send.invalidate_rkey = req.sgl.rkey;
    } else {
        send.opcode = IBV_WR_SEND;
    }
    // Data for the host goes first with an unsignaled RDMA WRITE; the QP orders it before the
    // response, and the response's completion frees the slot.
    bool data = req.dir == DataDir::kCtrlToHost && !req.failed() && req.data_len > 0 &&
                req.sgl.kind == SglPlan::kKeyed;
    ibv_sge data_sge{reinterpret_cast<uintptr_t>(req.buf), req.data_len, mr_->lkey};
    ibv_send_wr write{};
    if (data) {
        write.sg_list = &data_sge;
        write.num_sge = 1;
        write.opcode = IBV_WR_RDMA_WRITE;
        write.wr.rdma.remote_addr = req.sgl.remote_addr;
        write.wr.rdma.rkey = req.sgl.rkey;
        write.next = &send;
    }
    ibv_send_wr *bad = nullptr;
    if (ibv_post_send(id_->qp, data ? &write : &send, &bad)) {
        log_->warn("{}: posting the response failed: {}", peer_, std::strerror(errno));
        finish("ibv_post_send failed");
    }
}

// ---------------------------------------------------------------------------------------------
// Shared receive queue: capsules this connection took from the SRQ go back to it, never into
// a dead QP. A connection holds one from its receive completion until the response reposts it
// (requests reading host data or executing, and receives waiting for a slot).

void RdmaQueuePair::release_recv(uint16_t recv) {
    if (srq_ && !srq_->post(recv))
        log_->warn("{}: returning capsule {} to the shared receive queue failed", peer_, recv);
}

void RdmaQueuePair::drop_completion(const ibv_wc &wc) {
    if (srq_ && (wc.wr_id >> 56) == kWrRecv) release_recv(static_cast<uint16_t>(wc.wr_id & 0xFFFFFF));
}

void RdmaQueuePair::return_srq_capsules() {
    // The QP is destroyed: its completions still in the CQ are the last receives it consumed.
    ibv_wc wcs[kCqBatch];
    for (int n; cq_ && (n = ibv_poll_cq(cq_, kCqBatch, wcs)) > 0;)
        for (int i = 0; i < n; ++i) drop_completion(wcs[i]);
    for (auto &req : reqs_)
        if (req.state == RdmaRequestState::kReadingHostData || req.state == RdmaRequestState::kExecuting) {
            release_recv(req.recv);
            req.state = RdmaRequestState::kFree;
        }
    while (!backlog_.empty()) release_recv(backlog_.pop().recv);
}

// ---------------------------------------------------------------------------------------------
// Connection level

bool RdmaQueuePair::finished() const {
    if (dpa_) return dpa_->done();
    return drained();
}

bool RdmaQueuePair::progress() {
    return dpa_ ? dpa_->request_progress() : advance();
}

bool RdmaQueuePair::advance() {
    if (finished_) return false;
    bool did = false;
    if (cq_more_) {
        poll_cq();
        did = true;
    }
    if (!finished_ && queue_.has_deferred()) {
        queue_.run_deferred();
        did = true;
    }
    // I/O over a QoS limit whose tokens are due.
    if (!finished_ && queue_.has_throttled() && queue_.run_throttled()) did = true;
    return did;
}

void RdmaQueuePair::poll(uint64_t now_ms) {
    if (dpa_) return dpa_->request_tick(now_ms);
    tick(now_ms);
}

void RdmaQueuePair::tick(uint64_t now_ms) {
    if (finished_) return;
    if (!queue_.poll(now_ms)) finish("association torn down");
}

void RdmaQueuePair::end(const char *why) {
    if (dpa_)
        dpa_->request_close(why);
    else
        finish(why);
}

void RdmaQueuePair::finish(const char *why) {
    if (finished_) return;
    finished_ = true;
    if (queue_.connected())
        queue_.disconnect(why);
    else
        log_->debug("{}: connection closed before Connect: {}", peer_, why);
    // Moves the QP to the error state (outstanding work flushes) and tells the host.
    if (id_ && qp_created_) rdma_disconnect(id_);
}

} // namespace skiff::nvmeof::rdma
