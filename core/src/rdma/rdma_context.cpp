// The RDMA context's engine: resources brought up by start, RDMA-CM events, CQ polling and the
// stop path. Everything here runs on the PE thread (start/stop are called by the application on
// the thread that progresses the PE, as with every skiff context).
#ifdef SKIFF_HAVE_RDMA
#include "rdma/rdma_context.hpp"

#include "dpa/completion.hpp"
#include "rdma/rdma_dpa.hpp"

#include "dev/device.hpp"
#include "mem/buf.hpp"

#include <skiff/core/log.hpp>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include <fcntl.h>
#include <netdb.h>

#include <bit>
#include <cerrno>
#include <cstring>

namespace {

auto logger() {
    return skiff::log::get("rdma");
}

const char *err() {
    return std::strerror(errno);
}

} // namespace

doca_rdma::doca_rdma(doca_dev *dev) : doca_ctx("rdma"), dev_(dev) {
    for (skiff::core::TaskKind *k : std::initializer_list<skiff::core::TaskKind *>{
             &receive_kind, &send_kind, &send_imm_kind, &read_kind, &write_kind, &write_imm_kind,
             &se_get_kind, &se_set_kind, &se_add_kind})
        register_task_kind(k);
}

doca_rdma::~doca_rdma() {
    teardown();
    if (dpa_comp_ != nullptr) dpa_comp_->attached.fetch_sub(1);
}

doca_error_t doca_rdma::on_start() {
    using namespace skiff::core;
    if (auto r = rdma::verbs_device_of(dev_, "doca_rdma start", &vd_); r != DOCA_SUCCESS) return r;
    uint32_t sq = std::bit_ceil(send_queue_size), rq = std::bit_ceil(recv_queue_size);
    channel_ = rdma_create_event_channel();
    if (channel_ == nullptr) {
        logger()->error("doca_rdma start: rdma_create_event_channel: {}", err());
        return DOCA_ERROR_DRIVER;
    }
    // Non-blocking: progress polls it.
    int flags = fcntl(channel_->fd, F_GETFL);
    fcntl(channel_->fd, F_SETFL, flags | O_NONBLOCK);
    if (dpa_ != nullptr) {
        // DPA data path: the CQ is polled by the DPA's EUs and sleeps on a completion channel.
        if (dpa_comp_ == nullptr || !dpa_comp_->started) {
            logger()->error("doca_rdma start on the DPA: attach a started DPA completion context first "
                            "(doca_rdma_dpa_completion_attach)");
            teardown();
            return DOCA_ERROR_BAD_STATE;
        }
        comp_channel_ = ibv_create_comp_channel(vd_.ctx);
        if (comp_channel_ == nullptr) {
            logger()->error("doca_rdma start on the DPA: ibv_create_comp_channel: {}", err());
            teardown();
            return DOCA_ERROR_DRIVER;
        }
    }
    int cqe = static_cast<int>(sq * max_connections + rq);
    cq_ = ibv_create_cq(vd_.ctx, cqe, nullptr, comp_channel_, 0);
    ibv_srq_init_attr sa{};
    sa.attr.max_wr = rq;
    sa.attr.max_sge = recv_buf_list_len;
    if (cq_ != nullptr) srq_ = ibv_create_srq(vd_.pd, &sa);
    if (cq_ == nullptr || srq_ == nullptr) {
        logger()->error("doca_rdma start: creating the CQ ({} entries) / SRQ ({}) on {} failed: {}", cqe, rq,
                        dev::desc_of(dev_).ibdev_name, err());
        teardown();
        return DOCA_ERROR_DRIVER;
    }
    conns_.assign(max_connections, doca_rdma_connection{});
    for (uint32_t i = 0; i < max_connections; ++i) {
        conns_[i].rdma = this;
        conns_[i].id = i;
    }
    active_conns_ = 0;
    size_t total = receive_kind.capacity() + send_kind.capacity() + send_imm_kind.capacity() +
                   read_kind.capacity() + write_kind.capacity() + write_imm_kind.capacity() +
                   se_get_kind.capacity() + se_set_kind.capacity() + se_add_kind.capacity();
    done_now_.clear();
    done_now_.reserve(total);
    done_now_head_ = 0;
    posted_recvs_ = nullptr;
    if (dpa_ != nullptr) {
        if (auto r = start_dpa_datapath(); r != DOCA_SUCCESS) {
            teardown();
            return r;
        }
    }
    return DOCA_SUCCESS;
}

void doca_rdma::teardown() {
    if (dpa_state_ != nullptr)
        for (uint32_t i = 0; i < dpa_state_->num_conns; ++i) dpa_state_->qp[i].store(nullptr);
    for (auto &c : conns_)
        if (c.state != doca_rdma_connection::State::free) release(&c);
    if (listen_id_ != nullptr) rdma_destroy_id(listen_id_);
    listen_id_ = nullptr;
    stop_dpa_datapath(); // the QPs are gone: no completion can arrive any more
    if (srq_ != nullptr) ibv_destroy_srq(srq_);
    srq_ = nullptr;
    if (cq_ != nullptr) ibv_destroy_cq(cq_);
    cq_ = nullptr;
    if (comp_channel_ != nullptr) ibv_destroy_comp_channel(comp_channel_);
    comp_channel_ = nullptr;
    if (channel_ != nullptr) rdma_destroy_event_channel(channel_);
    channel_ = nullptr;
}

void doca_rdma::on_stop_requested() {
    if (listen_id_ != nullptr) rdma_destroy_id(listen_id_);
    listen_id_ = nullptr;
    // Disconnecting moves each QP to the error state: its posted work comes back flushed.
    for (auto &c : conns_) {
        if (c.state == doca_rdma_connection::State::free) continue;
        if (c.cm_id != nullptr)
            rdma_disconnect(c.cm_id);
        else if (c.qp != nullptr)
            skiff::core::rdma::move_qp_to_error(c.qp); // export / connect: no RDMA-CM to do it
        c.state = doca_rdma_connection::State::closing;
    }
}

void doca_rdma::on_stopped() {
    teardown();
    conns_.clear();
}

bool doca_rdma::completions_pending() const {
    // The CM channel and the CQ are polled, not waited on: report work while anything could
    // produce some (spurious wake-ups are allowed by the PE's notification contract).
    return done_now_head_ < done_now_.size() || inflight() > 0 || active_conns_ > 0 || listen_id_ != nullptr;
}

doca_task *doca_rdma::poll_completion() {
    if (done_now_head_ < done_now_.size()) {
        doca_task *t = done_now_[done_now_head_++];
        if (done_now_head_ == done_now_.size()) {
            done_now_.clear();
            done_now_head_ = 0;
        }
        return t;
    }
    if (channel_ != nullptr) handle_cm_event();
    // On the DPA data path the CQ belongs to the DPA, and a connection is released only when the
    // ctx stops (device code may still name it; its QP, in the error state, flushes what it gets).
    if (on_dpa()) return nullptr;
    if (doca_task *t = poll_cq()) return t;
    reap_closing();
    if (state() == DOCA_CTX_STATE_STOPPING && active_conns_ == 0 && posted_recvs_ != nullptr) {
        // No QP is left to consume them: receives on the SRQ come back flushed.
        while (posted_recvs_ != nullptr) {
            doca_rdma_task_base *t = posted_recvs_;
            unlink_posted(t);
            t->status = DOCA_ERROR_SHUTDOWN;
            done_now_.push_back(t);
        }
        return poll_completion();
    }
    return nullptr;
}

void doca_rdma::complete_now(doca_task *task, doca_error_t status) {
    task->status = status;
    done_now_.push_back(task); // capacity reserved at start: every task fits
}

// ---- connections

doca_rdma_connection *doca_rdma::free_slot() {
    for (auto &c : conns_)
        if (c.state == doca_rdma_connection::State::free) return &c;
    return nullptr;
}

doca_error_t doca_rdma::create_qp(doca_rdma_connection *c) {
    if (c->cm_id->verbs != vd_.ctx) {
        logger()->error("connection {}: the address is on device {}, not on this context's device {}", c->id,
                        c->cm_id->verbs ? ibv_get_device_name(c->cm_id->verbs->device) : "?",
                        skiff::core::dev::desc_of(dev_).ibdev_name);
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    ibv_qp_init_attr qa{};
    qa.send_cq = cq_;
    qa.recv_cq = cq_;
    qa.srq = srq_;
    qa.qp_type = IBV_QPT_RC;
    qa.cap.max_send_wr = std::bit_ceil(send_queue_size);
    qa.cap.max_send_sge = 1;
    if (rdma_create_qp(c->cm_id, vd_.pd, &qa) != 0) {
        logger()->error("connection {}: rdma_create_qp: {}", c->id, err());
        return DOCA_ERROR_DRIVER;
    }
    c->qp = c->cm_id->qp;
    c->qp_num = c->qp->qp_num;
    if (dpa_state_ != nullptr) dpa_state_->qp_num[c->id].store(c->qp_num, std::memory_order_release);
    return DOCA_SUCCESS;
}

void doca_rdma::release(doca_rdma_connection *c) {
    if (c->cm_id != nullptr) {
        if (c->cm_id->qp != nullptr) rdma_destroy_qp(c->cm_id);
        rdma_destroy_id(c->cm_id);
    } else if (c->qp != nullptr) {
        ibv_destroy_qp(c->qp); // export / connect: ours
    }
    uint32_t id = c->id;
    *c = doca_rdma_connection{};
    c->rdma = this;
    c->id = id;
    if (active_conns_ > 0) --active_conns_;
}

void doca_rdma::fail_connection(doca_rdma_connection *c) {
    if (failure_cb != nullptr) failure_cb(c, c->user_data, user_data());
    c->state = doca_rdma_connection::State::closing;
}

// Connections being closed are released once their send queue has drained (flushed work
// requests must come back through the CQ first, or their tasks would be lost).
void doca_rdma::reap_closing() {
    for (auto &c : conns_)
        if (c.state == doca_rdma_connection::State::closing && c.outstanding == 0) release(&c);
}

doca_error_t doca_rdma::listen(uint16_t port) {
    if (listen_id_ != nullptr) {
        logger()->error("doca_rdma_start_listen_to_port: already listening");
        return DOCA_ERROR_BAD_STATE;
    }
    if (rdma_create_id(channel_, &listen_id_, nullptr, RDMA_PS_TCP) != 0) {
        logger()->error("doca_rdma_start_listen_to_port: rdma_create_id: {}", err());
        listen_id_ = nullptr;
        return DOCA_ERROR_DRIVER;
    }
    sockaddr_in sin{};
    sin.sin_family = AF_INET;
    sin.sin_port = htons(port);
    if (rdma_bind_addr(listen_id_, reinterpret_cast<sockaddr *>(&sin)) != 0 ||
        rdma_listen(listen_id_, 16) != 0) {
        logger()->error("doca_rdma_start_listen_to_port: port {}: {}", port, err());
        rdma_destroy_id(listen_id_);
        listen_id_ = nullptr;
        return errno == EADDRINUSE ? DOCA_ERROR_IN_USE : DOCA_ERROR_DRIVER;
    }
    logger()->info("listening for RDMA-CM connections on port {}", port);
    return DOCA_SUCCESS;
}

doca_error_t doca_rdma::connect(const doca_rdma_addr &addr, doca_data user_data, const void *pd,
                                uint8_t len) {
    doca_rdma_connection *c = free_slot();
    if (c == nullptr) {
        logger()->error("doca_rdma_connect_to_addr: all {} connections are in use", max_connections);
        return DOCA_ERROR_FULL;
    }
    addrinfo hints{}, *res = nullptr;
    hints.ai_family = addr.type == DOCA_RDMA_ADDR_TYPE_IPv6 ? AF_INET6 : AF_INET;
    hints.ai_socktype = SOCK_STREAM;
    if (getaddrinfo(addr.address, nullptr, &hints, &res) != 0 || res == nullptr) {
        logger()->error("doca_rdma_connect_to_addr: cannot resolve '{}'", addr.address);
        return DOCA_ERROR_INVALID_VALUE;
    }
    sockaddr_storage dst{};
    std::memcpy(&dst, res->ai_addr, res->ai_addrlen);
    freeaddrinfo(res);
    if (dst.ss_family == AF_INET)
        reinterpret_cast<sockaddr_in *>(&dst)->sin_port = htons(addr.port);
    else
        reinterpret_cast<sockaddr_in6 *>(&dst)->sin6_port = htons(addr.port);
    if (rdma_create_id(channel_, &c->cm_id, c, RDMA_PS_TCP) != 0) {
        logger()->error("doca_rdma_connect_to_addr: rdma_create_id: {}", err());
        c->cm_id = nullptr;
        return DOCA_ERROR_DRIVER;
    }
    c->state = doca_rdma_connection::State::resolving;
    c->user_data = user_data;
    c->private_data_len = len;
    if (len > 0) std::memcpy(c->private_data, pd, len);
    ++active_conns_;
    if (rdma_resolve_addr(c->cm_id, nullptr, reinterpret_cast<sockaddr *>(&dst), 2000) != 0) {
        logger()->error("doca_rdma_connect_to_addr: {}:{}: rdma_resolve_addr: {}", addr.address, addr.port,
                        err());
        release(c);
        return DOCA_ERROR_CONNECTION_ABORTED;
    }
    return DOCA_SUCCESS;
}

doca_error_t doca_rdma::accept(doca_rdma_connection *c, const void *pd, uint8_t len) {
    if (c->state != doca_rdma_connection::State::requested) {
        logger()->error("doca_rdma_connection_accept: connection {} has no pending request", c->id);
        return DOCA_ERROR_BAD_STATE;
    }
    rdma_conn_param p{};
    p.private_data = pd;
    p.private_data_len = len;
    p.responder_resources = 1;
    p.initiator_depth = 1;
    p.rnr_retry_count = 7;
    if (rdma_accept(c->cm_id, &p) != 0) {
        logger()->error("doca_rdma_connection_accept: connection {}: {}", c->id, err());
        return DOCA_ERROR_CONNECTION_ABORTED;
    }
    c->state = doca_rdma_connection::State::accepting;
    return DOCA_SUCCESS;
}

doca_error_t doca_rdma::reject(doca_rdma_connection *c) {
    if (c->state != doca_rdma_connection::State::requested) {
        logger()->error("doca_rdma_connection_reject: connection {} has no pending request", c->id);
        return DOCA_ERROR_BAD_STATE;
    }
    rdma_reject(c->cm_id, nullptr, 0);
    release(c);
    return DOCA_SUCCESS;
}

doca_error_t doca_rdma::disconnect(doca_rdma_connection *c) {
    if (c->state != doca_rdma_connection::State::established) {
        logger()->error("doca_rdma_connection_disconnect: connection {} is not established", c->id);
        return DOCA_ERROR_BAD_STATE;
    }
    if (c->cm_id == nullptr) {
        // Made by export / connect: no RDMA-CM to tell the peer; its work is flushed, the slot is
        // reaped once nothing is outstanding.
        skiff::core::rdma::move_qp_to_error(c->qp);
        c->state = doca_rdma_connection::State::closing;
        return DOCA_SUCCESS;
    }
    rdma_disconnect(c->cm_id);
    // The disconnect callback runs when RDMA-CM reports DISCONNECTED (both sides get it).
    return DOCA_SUCCESS;
}

void doca_rdma::handle_cm_event() {
    rdma_cm_event *ev = nullptr;
    if (rdma_get_cm_event(channel_, &ev) != 0) return; // EAGAIN: nothing
    rdma_cm_event_type type = ev->event;
    rdma_cm_id *id = ev->id;
    int status = ev->status;
    uint8_t pd[skiff::core::rdma::max_request_private_data];
    uint8_t pd_len = 0;
    if (type == RDMA_CM_EVENT_CONNECT_REQUEST && ev->param.conn.private_data != nullptr) {
        pd_len = std::min<uint8_t>(ev->param.conn.private_data_len, sizeof pd);
        std::memcpy(pd, ev->param.conn.private_data, pd_len);
    }
    rdma_ack_cm_event(ev);
    logger()->debug("RDMA-CM event {} (status {})", rdma_event_str(type), status);

    if (type == RDMA_CM_EVENT_CONNECT_REQUEST) {
        doca_rdma_connection *c = state() == DOCA_CTX_STATE_RUNNING ? free_slot() : nullptr;
        if (c == nullptr || request_cb == nullptr) {
            logger()->warn("connection request rejected: {}",
                           c == nullptr ? "no free connection slot (or stopping)" : "no request callback");
            rdma_reject(id, nullptr, 0);
            rdma_destroy_id(id);
            return;
        }
        c->cm_id = id;
        id->context = c;
        ++active_conns_;
        if (create_qp(c) != DOCA_SUCCESS) {
            rdma_reject(id, nullptr, 0);
            release(c);
            return;
        }
        std::memcpy(c->private_data, pd, pd_len);
        c->private_data_len = pd_len;
        c->state = doca_rdma_connection::State::requested;
        request_cb(c, user_data());
        return;
    }
    auto *c = static_cast<doca_rdma_connection *>(id->context);
    if (c == nullptr) return; // the listener's own events
    switch (type) {
    case RDMA_CM_EVENT_ADDR_RESOLVED:
        if (rdma_resolve_route(id, 2000) != 0) fail_connection(c);
        break;
    case RDMA_CM_EVENT_ROUTE_RESOLVED: {
        if (create_qp(c) != DOCA_SUCCESS) {
            fail_connection(c);
            break;
        }
        rdma_conn_param p{};
        p.private_data = c->private_data_len ? c->private_data : nullptr;
        p.private_data_len = c->private_data_len;
        p.responder_resources = 1;
        p.initiator_depth = 1;
        p.retry_count = 7;
        p.rnr_retry_count = 7;
        if (rdma_connect(id, &p) != 0) {
            logger()->error("connection {}: rdma_connect: {}", c->id, err());
            fail_connection(c);
        }
        break;
    }
    case RDMA_CM_EVENT_ESTABLISHED:
        c->state = doca_rdma_connection::State::established;
        if (dpa_state_ != nullptr) dpa_state_->qp[c->id].store(c->qp, std::memory_order_release);
        if (established_cb != nullptr) established_cb(c, c->user_data, user_data());
        break;
    case RDMA_CM_EVENT_ADDR_ERROR:
    case RDMA_CM_EVENT_ROUTE_ERROR:
    case RDMA_CM_EVENT_CONNECT_ERROR:
    case RDMA_CM_EVENT_UNREACHABLE:
    case RDMA_CM_EVENT_REJECTED:
        logger()->warn("connection {}: {} (status {})", c->id, rdma_event_str(type), status);
        if (c->state != doca_rdma_connection::State::closing) fail_connection(c);
        break;
    case RDMA_CM_EVENT_DISCONNECTED:
        if (c->state == doca_rdma_connection::State::established && disconnect_cb != nullptr) {
            rdma_disconnect(id); // our side too: the QP goes to error and its work is flushed
            c->state = doca_rdma_connection::State::closing;
            disconnect_cb(c, c->user_data, user_data());
        }
        c->state = doca_rdma_connection::State::closing;
        break;
    case RDMA_CM_EVENT_DEVICE_REMOVAL:
        logger()->error("RDMA device {} was removed", skiff::core::dev::desc_of(dev_).ibdev_name);
        request_fatal_stop();
        break;
    default:
        break;
    }
}

// ---- completions

doca_task *doca_rdma::poll_cq() {
    if (cq_ == nullptr) return nullptr;
    ibv_wc wc{};
    if (ibv_poll_cq(cq_, 1, &wc) <= 0) return nullptr;
    auto *t = reinterpret_cast<doca_rdma_task_base *>(wc.wr_id);
    if (t->kind == &receive_kind) {
        unlink_posted(t);
        auto *r = static_cast<doca_rdma_task_receive *>(t);
        for (auto &c : conns_)
            if (c.state != doca_rdma_connection::State::free && c.qp_num == wc.qp_num) r->conn = &c;
        if (wc.status == IBV_WC_SUCCESS) {
            r->opcode = wc.opcode == IBV_WC_RECV_RDMA_WITH_IMM ? DOCA_RDMA_OPCODE_RECV_WRITE_WITH_IMM
                        : (wc.wc_flags & IBV_WC_WITH_IMM)      ? DOCA_RDMA_OPCODE_RECV_SEND_WITH_IMM
                                                               : DOCA_RDMA_OPCODE_RECV_SEND;
            r->imm = (wc.wc_flags & IBV_WC_WITH_IMM) ? wc.imm_data : 0;
            r->result_len = wc.byte_len;
            // A write-with-immediate placed its bytes in remote memory, not in this buffer.
            // Buffers of a destination list fill in order.
            if (wc.opcode != IBV_WC_RECV_RDMA_WITH_IMM) {
                size_t left = wc.byte_len;
                for (doca_buf *b = r->dst; b != nullptr && left > 0; b = b->next) {
                    size_t room = static_cast<size_t>(b->head + b->len - (b->data + b->data_len));
                    size_t n = std::min(room, left);
                    b->data_len += n;
                    left -= n;
                }
            }
        }
    } else if (t->conn != nullptr && t->conn->outstanding > 0) {
        --t->conn->outstanding;
    }
    if (wc.status == IBV_WC_SUCCESS) {
        t->status = DOCA_SUCCESS;
        if (t->kind == &read_kind) {
            auto *rd = static_cast<doca_rdma_task_read *>(t);
            rd->dst->data_len += rd->src->data_len;
            rd->result_len = static_cast<uint32_t>(rd->src->data_len);
        } else if (t->kind == &write_kind) {
            auto *w = static_cast<doca_rdma_task_write *>(t);
            w->dst->data_len += w->src->data_len;
        } else if (t->kind == &write_imm_kind) {
            auto *w = static_cast<doca_rdma_task_write_imm *>(t);
            w->dst->data_len += w->src->data_len;
        } else if (is_sync_event_task(t)) {
            sync_event_done(t);
        }
    } else if (wc.status == IBV_WC_WR_FLUSH_ERR) {
        t->status = state() == DOCA_CTX_STATE_STOPPING ? DOCA_ERROR_SHUTDOWN : DOCA_ERROR_CONNECTION_ABORTED;
    } else {
        logger()->error("{} task failed: {} (vendor error {:#x})", t->kind->name(),
                        ibv_wc_status_str(wc.status), wc.vendor_err);
        t->status = wc.status == IBV_WC_REM_ACCESS_ERR || wc.status == IBV_WC_LOC_PROT_ERR
                        ? DOCA_ERROR_NOT_PERMITTED
                        : DOCA_ERROR_IO_FAILED;
    }
    return t;
}

void doca_rdma::link_posted(doca_rdma_task_base *t) {
    t->prev_posted = nullptr;
    t->next_posted = posted_recvs_;
    if (posted_recvs_ != nullptr) posted_recvs_->prev_posted = t;
    posted_recvs_ = t;
}

void doca_rdma::unlink_posted(doca_rdma_task_base *t) {
    if (t->prev_posted != nullptr)
        t->prev_posted->next_posted = t->next_posted;
    else if (posted_recvs_ == t)
        posted_recvs_ = t->next_posted;
    if (t->next_posted != nullptr) t->next_posted->prev_posted = t->prev_posted;
    t->next_posted = t->prev_posted = nullptr;
}

#endif // SKIFF_HAVE_RDMA
