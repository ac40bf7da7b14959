// RDMA tasks: set_conf, allocate_init, getters, and how a submitted task becomes a work request.
// Local buffers use the lkey of their mmap's registration on the context's device (registered
// at the first use, then looked up); remote buffers come from an imported RDMA export (rkey).
#ifdef SKIFF_HAVE_RDMA
#include "rdma/rdma_context.hpp"

#include "mem/buf.hpp"
#include "mem/mmap.hpp"
#include "sync/remote_net.hpp"

#include <skiff/core/log.hpp>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include <cerrno>
#include <cstring>

namespace {

auto logger() {
    return skiff::log::get("rdma");
}

template <typename T, typename Cb>
doca_error_t set_conf(doca_rdma *rdma, skiff::core::TypedTaskKind<T> &kind, Cb ok, Cb bad, uint32_t num,
                      const char *what) {
    if (rdma == nullptr || ok == nullptr || bad == nullptr || num == 0) return DOCA_ERROR_INVALID_VALUE;
    if (rdma->state() != DOCA_CTX_STATE_IDLE) {
        logger()->error("{}: the ctx is not IDLE", what);
        return DOCA_ERROR_BAD_STATE;
    }
    kind.configure(ok, bad, num);
    return DOCA_SUCCESS;
}

template <typename T>
doca_error_t allocate(doca_rdma *rdma, skiff::core::TypedTaskKind<T> &kind, doca_data user_data, T **out) {
    if (rdma->on_dpa()) {
        logger()->error(
            "{}: the ctx is on the DPA data path; device code posts its work (doca_dpa_dev_rdma_*)",
            kind.name());
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    doca_task *t = nullptr;
    if (auto r = rdma->allocate(kind, &t, user_data); r != DOCA_SUCCESS) return r;
    *out = static_cast<T *>(t);
    return DOCA_SUCCESS;
}

bool remote(const doca_buf *b) {
    return b->mmap->rdma_remote;
}

} // namespace

// The SGE of a local buffer: its data (source) or the free space after its data (destination).
doca_error_t doca_rdma::local_sge(const doca_buf *b, bool tail, uint64_t *addr, uint32_t *len,
                                  uint32_t *lkey) {
    if (b == nullptr || b->mmap == nullptr || remote(b)) return DOCA_ERROR_INVALID_VALUE;
    ibv_mr *mr = nullptr;
    if (auto r = skiff::core::rdma::mmap_mr(b->mmap, dev_, &mr); r != DOCA_SUCCESS) return r;
    uint8_t *p = tail ? b->data + b->data_len : b->data;
    size_t n = tail ? static_cast<size_t>(b->head + b->len - p) : b->data_len;
    *addr = reinterpret_cast<uintptr_t>(p);
    *len = static_cast<uint32_t>(n);
    *lkey = mr->lkey;
    return DOCA_SUCCESS;
}

doca_error_t doca_rdma::validate(const doca_task *task) const {
    auto *t = static_cast<const doca_rdma_task_base *>(task);
    if (t->kind != &receive_kind &&
        (t->conn == nullptr || t->conn->state != doca_rdma_connection::State::established))
        return DOCA_ERROR_NOT_CONNECTED;
    const doca_buf *rem = nullptr;
    if (t->kind == &read_kind) rem = static_cast<const doca_rdma_task_read *>(t)->src;
    if (t->kind == &write_kind) rem = static_cast<const doca_rdma_task_write *>(t)->dst;
    if (t->kind == &write_imm_kind) rem = static_cast<const doca_rdma_task_write_imm *>(t)->dst;
    if (rem != nullptr && !remote(rem)) return DOCA_ERROR_INVALID_VALUE;
    return DOCA_SUCCESS;
}

void doca_rdma::execute(doca_task *task) {
    auto *t = static_cast<doca_rdma_task_base *>(task);
    doca_error_t v = validate(task);
    if (v == DOCA_SUCCESS) v = post(t);
    if (v != DOCA_SUCCESS) complete_now(task, v);
}

doca_error_t doca_rdma::post(doca_rdma_task_base *t) {
    ibv_sge sge{};
    if (t->kind == &receive_kind) {
        auto *r = static_cast<doca_rdma_task_receive *>(t);
        // One SGE per buffer of the destination list (at most recv_buf_list_len).
        ibv_sge sges[skiff::core::rdma::max_recv_buf_list_len];
        int n = 0;
        const doca_buf *b = r->dst;
        for (; b != nullptr && n < static_cast<int>(recv_buf_list_len); b = b->next, ++n)
            if (auto e = local_sge(b, true, &sges[n].addr, &sges[n].length, &sges[n].lkey); e != DOCA_SUCCESS)
                return e;
        if (b != nullptr) {
            logger()->error("rdma receive: the destination list is longer than {} buffers "
                            "(doca_rdma_task_receive_set_dst_buf_list_len)",
                            recv_buf_list_len);
            return DOCA_ERROR_INVALID_VALUE;
        }
        ibv_recv_wr wr{}, *bad = nullptr;
        wr.wr_id = reinterpret_cast<uintptr_t>(t);
        wr.sg_list = sges;
        wr.num_sge = n;
        r->conn = nullptr;
        if (ibv_post_srq_recv(srq_, &wr, &bad) != 0) {
            logger()->error("rdma receive: ibv_post_srq_recv: {}", std::strerror(errno));
            return DOCA_ERROR_FULL;
        }
        link_posted(t);
        return DOCA_SUCCESS;
    }
    if (is_sync_event_task(t)) return post_sync_event(t);
    ibv_send_wr wr{}, *bad = nullptr;
    wr.wr_id = reinterpret_cast<uintptr_t>(t);
    wr.send_flags = IBV_SEND_SIGNALED;
    const doca_buf *src = nullptr;
    const doca_buf *rem = nullptr;
    bool local_is_dst = false;
    if (t->kind == &send_kind) {
        wr.opcode = IBV_WR_SEND;
        src = static_cast<doca_rdma_task_send *>(t)->src;
    } else if (t->kind == &send_imm_kind) {
        auto *s = static_cast<doca_rdma_task_send_imm *>(t);
        wr.opcode = IBV_WR_SEND_WITH_IMM;
        wr.imm_data = s->imm;
        src = s->src;
    } else if (t->kind == &read_kind) {
        auto *r = static_cast<doca_rdma_task_read *>(t);
        wr.opcode = IBV_WR_RDMA_READ;
        src = r->dst;
        rem = r->src;
        local_is_dst = true;
    } else if (t->kind == &write_kind) {
        auto *w = static_cast<doca_rdma_task_write *>(t);
        wr.opcode = IBV_WR_RDMA_WRITE;
        src = w->src;
        rem = w->dst;
    } else {
        auto *w = static_cast<doca_rdma_task_write_imm *>(t);
        wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
        wr.imm_data = w->imm;
        src = w->src;
        rem = w->dst;
    }
    if (auto e = local_sge(src, local_is_dst, &sge.addr, &sge.length, &sge.lkey); e != DOCA_SUCCESS) return e;
    if (rem != nullptr) {
        // Read: the remote source's data, clipped to the local room. Write: to the remote tail.
        uint8_t *raddr = local_is_dst ? rem->data : rem->data + rem->data_len;
        size_t room = local_is_dst ? rem->data_len : static_cast<size_t>(rem->head + rem->len - raddr);
        if (local_is_dst) {
            if (sge.length < room) return DOCA_ERROR_INVALID_VALUE; // the destination is too small
            sge.length = static_cast<uint32_t>(room);
        } else if (sge.length > room) {
            return DOCA_ERROR_INVALID_VALUE;
        }
        wr.wr.rdma.remote_addr = reinterpret_cast<uintptr_t>(raddr);
        wr.wr.rdma.rkey = rem->mmap->rdma_rkey;
    }
    wr.sg_list = &sge;
    wr.num_sge = sge.length > 0 ? 1 : 0;
    if (ibv_post_send(t->conn->qp, &wr, &bad) != 0) {
        logger()->error("{}: ibv_post_send: {}", t->kind->name(), std::strerror(errno));
        return DOCA_ERROR_FULL;
    }
    ++t->conn->outstanding;
    return DOCA_SUCCESS;
}

extern "C" {

doca_error_t doca_rdma_task_receive_set_conf(doca_rdma *rdma, doca_rdma_task_receive_completion_cb_t ok,
                                             doca_rdma_task_receive_completion_cb_t bad, uint32_t num) {
    return set_conf(rdma, rdma->receive_kind, ok, bad, num, "doca_rdma_task_receive_set_conf");
}
doca_error_t doca_rdma_task_send_set_conf(doca_rdma *rdma, doca_rdma_task_send_completion_cb_t ok,
                                          doca_rdma_task_send_completion_cb_t bad, uint32_t num) {
    return set_conf(rdma, rdma->send_kind, ok, bad, num, "doca_rdma_task_send_set_conf");
}
doca_error_t doca_rdma_task_send_imm_set_conf(doca_rdma *rdma, doca_rdma_task_send_imm_completion_cb_t ok,
                                              doca_rdma_task_send_imm_completion_cb_t bad, uint32_t num) {
    return set_conf(rdma, rdma->send_imm_kind, ok, bad, num, "doca_rdma_task_send_imm_set_conf");
}
doca_error_t doca_rdma_task_read_set_conf(doca_rdma *rdma, doca_rdma_task_read_completion_cb_t ok,
                                          doca_rdma_task_read_completion_cb_t bad, uint32_t num) {
    return set_conf(rdma, rdma->read_kind, ok, bad, num, "doca_rdma_task_read_set_conf");
}
doca_error_t doca_rdma_task_write_set_conf(doca_rdma *rdma, doca_rdma_task_write_completion_cb_t ok,
                                           doca_rdma_task_write_completion_cb_t bad, uint32_t num) {
    return set_conf(rdma, rdma->write_kind, ok, bad, num, "doca_rdma_task_write_set_conf");
}
doca_error_t doca_rdma_task_write_imm_set_conf(doca_rdma *rdma, doca_rdma_task_write_imm_completion_cb_t ok,
                                               doca_rdma_task_write_imm_completion_cb_t bad, uint32_t num) {
    return set_conf(rdma, rdma->write_imm_kind, ok, bad, num, "doca_rdma_task_write_imm_set_conf");
}

doca_error_t doca_rdma_task_receive_allocate_init(doca_rdma *rdma, doca_buf *dst, doca_data user_data,
                                                  doca_rdma_task_receive **task) {
    // dst may be NULL: a receive that only takes an immediate (RDMA write with immediate, or a
    // send with no data), as NVIDIA's rdma_write_immediate_responder posts it. No SGE is posted.
    if (rdma == nullptr || task == nullptr) return DOCA_ERROR_INVALID_VALUE;
    if (auto r = allocate(rdma, rdma->receive_kind, user_data, task); r != DOCA_SUCCESS) return r;
    (*task)->dst = dst;
    (*task)->conn = nullptr;
    return DOCA_SUCCESS;
}
doca_task *doca_rdma_task_receive_as_task(doca_rdma_task_receive *task) {
    return task;
}
doca_buf *doca_rdma_task_receive_get_dst_buf(const doca_rdma_task_receive *task) {
    return task->dst;
}
doca_rdma_opcode doca_rdma_task_receive_get_result_opcode(const doca_rdma_task_receive *task) {
    return task->opcode;
}
doca_be32_t doca_rdma_task_receive_get_result_immediate_data(const doca_rdma_task_receive *task) {
    return task->imm;
}
const doca_rdma_connection *
doca_rdma_task_receive_get_result_rdma_connection(const doca_rdma_task_receive *task) {
    return task->conn;
}
void doca_rdma_task_receive_set_dst_buf(doca_rdma_task_receive *task, doca_buf *dst_buf) {
    task->dst = dst_buf;
}
uint32_t doca_rdma_task_receive_get_result_len(const doca_rdma_task_receive *task) {
    return task->result_len;
}

doca_error_t doca_rdma_task_send_allocate_init(doca_rdma *rdma, doca_rdma_connection *conn,
                                               const doca_buf *src, doca_data user_data,
                                               doca_rdma_task_send **task) {
    if (rdma == nullptr || conn == nullptr || src == nullptr || task == nullptr)
        return DOCA_ERROR_INVALID_VALUE;
    if (auto r = allocate(rdma, rdma->send_kind, user_data, task); r != DOCA_SUCCESS) return r;
    (*task)->conn = conn;
    (*task)->src = src;
    return DOCA_SUCCESS;
}
doca_task *doca_rdma_task_send_as_task(doca_rdma_task_send *task) {
    return task;
}
const doca_buf *doca_rdma_task_send_get_src_buf(const doca_rdma_task_send *task) {
    return task->src;
}
void doca_rdma_task_send_set_src_buf(doca_rdma_task_send *task, const doca_buf *src_buf) {
    task->src = src_buf;
}
void doca_rdma_task_send_set_rdma_connection(doca_rdma_task_send *task, doca_rdma_connection *conn) {
    task->conn = conn;
}
const doca_rdma_connection *doca_rdma_task_send_get_rdma_connection(const doca_rdma_task_send *task) {
    return task->conn;
}

doca_error_t doca_rdma_task_send_imm_allocate_init(doca_rdma *rdma, doca_rdma_connection *conn,
                                                   const doca_buf *src, doca_be32_t imm, doca_data user_data,
                                                   doca_rdma_task_send_imm **task) {
    if (rdma == nullptr || conn == nullptr || src == nullptr || task == nullptr)
        return DOCA_ERROR_INVALID_VALUE;
    if (auto r = allocate(rdma, rdma->send_imm_kind, user_data, task); r != DOCA_SUCCESS) return r;
    (*task)->conn = conn;
    (*task)->src = src;
    (*task)->imm = imm;
    return DOCA_SUCCESS;
}
doca_task *doca_rdma_task_send_imm_as_task(doca_rdma_task_send_imm *task) {
    return task;
}
void doca_rdma_task_send_imm_set_src_buf(doca_rdma_task_send_imm *task, const doca_buf *src_buf) {
    task->src = src_buf;
}
const doca_buf *doca_rdma_task_send_imm_get_src_buf(const doca_rdma_task_send_imm *task) {
    return task->src;
}
void doca_rdma_task_send_imm_set_immediate_data(doca_rdma_task_send_imm *task, doca_be32_t imm) {
    task->imm = imm;
}
doca_be32_t doca_rdma_task_send_imm_get_immediate_data(const doca_rdma_task_send_imm *task) {
    return task->imm;
}
void doca_rdma_task_send_imm_set_rdma_connection(doca_rdma_task_send_imm *task, doca_rdma_connection *conn) {
    task->conn = conn;
}
const doca_rdma_connection *doca_rdma_task_send_imm_get_rdma_connection(const doca_rdma_task_send_imm *task) {
    return task->conn;
}

doca_error_t doca_rdma_task_read_allocate_init(doca_rdma *rdma, doca_rdma_connection *conn,
                                               const doca_buf *src, doca_buf *dst, doca_data user_data,
                                               doca_rdma_task_read **task) {
    if (rdma == nullptr || conn == nullptr || src == nullptr || dst == nullptr || task == nullptr)
        return DOCA_ERROR_INVALID_VALUE;
    if (auto r = allocate(rdma, rdma->read_kind, user_data, task); r != DOCA_SUCCESS) return r;
    (*task)->conn = conn;
    (*task)->src = src;
    (*task)->dst = dst;
    return DOCA_SUCCESS;
}
doca_task *doca_rdma_task_read_as_task(doca_rdma_task_read *task) {
    return task;
}
doca_buf *doca_rdma_task_read_get_dst_buf(const doca_rdma_task_read *task) {
    return task->dst;
}
void doca_rdma_task_read_set_src_buf(doca_rdma_task_read *task, const doca_buf *src_buf) {
    task->src = src_buf;
}
const doca_buf *doca_rdma_task_read_get_src_buf(const doca_rdma_task_read *task) {
    return task->src;
}
void doca_rdma_task_read_set_dst_buf(doca_rdma_task_read *task, doca_buf *dst_buf) {
    task->dst = dst_buf;
}
uint32_t doca_rdma_task_read_get_result_len(const doca_rdma_task_read *task) {
    return task->result_len;
}
void doca_rdma_task_read_set_rdma_connection(doca_rdma_task_read *task, doca_rdma_connection *conn) {
    task->conn = conn;
}
const doca_rdma_connection *doca_rdma_task_read_get_rdma_connection(const doca_rdma_task_read *task) {
    return task->conn;
}

doca_error_t doca_rdma_task_write_allocate_init(doca_rdma *rdma, doca_rdma_connection *conn,
                                                const doca_buf *src, doca_buf *dst, doca_data user_data,
                                                doca_rdma_task_write **task) {
    if (rdma == nullptr || conn == nullptr || src == nullptr || dst == nullptr || task == nullptr)
        return DOCA_ERROR_INVALID_VALUE;
    if (auto r = allocate(rdma, rdma->write_kind, user_data, task); r != DOCA_SUCCESS) return r;
    (*task)->conn = conn;
    (*task)->src = src;
    (*task)->dst = dst;
    return DOCA_SUCCESS;
}
doca_task *doca_rdma_task_write_as_task(doca_rdma_task_write *task) {
    return task;
}
void doca_rdma_task_write_set_src_buf(doca_rdma_task_write *task, const doca_buf *src_buf) {
    task->src = src_buf;
}
const doca_buf *doca_rdma_task_write_get_src_buf(const doca_rdma_task_write *task) {
    return task->src;
}
void doca_rdma_task_write_set_dst_buf(doca_rdma_task_write *task, doca_buf *dst_buf) {
    task->dst = dst_buf;
}
doca_buf *doca_rdma_task_write_get_dst_buf(const doca_rdma_task_write *task) {
    return task->dst;
}
void doca_rdma_task_write_set_rdma_connection(doca_rdma_task_write *task, doca_rdma_connection *conn) {
    task->conn = conn;
}
const doca_rdma_connection *doca_rdma_task_write_get_rdma_connection(const doca_rdma_task_write *task) {
    return task->conn;
}

doca_error_t doca_rdma_task_write_imm_allocate_init(doca_rdma *rdma, doca_rdma_connection *conn,
                                                    const doca_buf *src, doca_buf *dst, doca_be32_t imm,
                                                    doca_data user_data, doca_rdma_task_write_imm **task) {
    if (rdma == nullptr || conn == nullptr || src == nullptr || dst == nullptr || task == nullptr)
        return DOCA_ERROR_INVALID_VALUE;
    if (auto r = allocate(rdma, rdma->write_imm_kind, user_data, task); r != DOCA_SUCCESS) return r;
    (*task)->conn = conn;
    (*task)->src = src;
    (*task)->dst = dst;
    (*task)->imm = imm;
    return DOCA_SUCCESS;
}
doca_task *doca_rdma_task_write_imm_as_task(doca_rdma_task_write_imm *task) {
    return task;
}
void doca_rdma_task_write_imm_set_src_buf(doca_rdma_task_write_imm *task, const doca_buf *src_buf) {
    task->src = src_buf;
}
const doca_buf *doca_rdma_task_write_imm_get_src_buf(const doca_rdma_task_write_imm *task) {
    return task->src;
}
void doca_rdma_task_write_imm_set_dst_buf(doca_rdma_task_write_imm *task, doca_buf *dst_buf) {
    task->dst = dst_buf;
}
doca_buf *doca_rdma_task_write_imm_get_dst_buf(const doca_rdma_task_write_imm *task) {
    return task->dst;
}
void doca_rdma_task_write_imm_set_immediate_data(doca_rdma_task_write_imm *task, doca_be32_t imm) {
    task->imm = imm;
}
doca_be32_t doca_rdma_task_write_imm_get_immediate_data(const doca_rdma_task_write_imm *task) {
    return task->imm;
}
void doca_rdma_task_write_imm_set_rdma_connection(doca_rdma_task_write_imm *task,
                                                  doca_rdma_connection *conn) {
    task->conn = conn;
}
const doca_rdma_connection *
doca_rdma_task_write_imm_get_rdma_connection(const doca_rdma_task_write_imm *task) {
    return task->conn;
}

// ---- remote-net sync event tasks: one 8-byte RDMA operation on the peer's counter

namespace {

bool valid_remote_event(const doca_sync_event_remote_net *e) {
    return e != nullptr && e->magic == doca_sync_event_remote_net::kMagic;
}

} // namespace

doca_error_t doca_rdma::post_sync_event(doca_rdma_task_base *t) {
    ibv_sge sge{};
    ibv_send_wr wr{}, *bad = nullptr;
    wr.wr_id = reinterpret_cast<uintptr_t>(t);
    wr.send_flags = IBV_SEND_SIGNALED;
    const doca_sync_event_remote_net *event = nullptr;
    if (t->kind == &se_get_kind) {
        auto *g = static_cast<doca_rdma_task_remote_net_sync_event_get *>(t);
        wr.opcode = IBV_WR_RDMA_READ;
        event = g->event;
        if (auto e = local_sge(g->dst, true, &sge.addr, &sge.length, &sge.lkey); e != DOCA_SUCCESS) return e;
    } else if (t->kind == &se_set_kind) {
        auto *n = static_cast<doca_rdma_task_remote_net_sync_event_notify_set *>(t);
        wr.opcode = IBV_WR_RDMA_WRITE;
        event = n->event;
        if (auto e = local_sge(n->src, false, &sge.addr, &sge.length, &sge.lkey); e != DOCA_SUCCESS) return e;
    } else {
        auto *a = static_cast<doca_rdma_task_remote_net_sync_event_notify_add *>(t);
        wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
        event = a->event;
        wr.wr.atomic.compare_add = a->add;
        if (auto e = local_sge(a->result, true, &sge.addr, &sge.length, &sge.lkey); e != DOCA_SUCCESS)
            return e;
    }
    if (!valid_remote_event(event)) return DOCA_ERROR_INVALID_VALUE;
    // The counter is one 64-bit word: the local buffer must hold (or, for set, carry) 8 bytes.
    if (sge.length < sizeof(uint64_t)) {
        logger()->error("{}: the buffer has {} bytes, the counter needs 8", t->kind->name(), sge.length);
        return DOCA_ERROR_INVALID_VALUE;
    }
    sge.length = sizeof(uint64_t);
    if (wr.opcode == IBV_WR_ATOMIC_FETCH_AND_ADD) {
        wr.wr.atomic.remote_addr = event->addr;
        wr.wr.atomic.rkey = event->rkey;
    } else {
        wr.wr.rdma.remote_addr = event->addr;
        wr.wr.rdma.rkey = event->rkey;
    }
    wr.sg_list = &sge;
    wr.num_sge = 1;
    if (ibv_post_send(t->conn->qp, &wr, &bad) != 0) {
        logger()->error("{}: ibv_post_send: {}", t->kind->name(), std::strerror(errno));
        return DOCA_ERROR_FULL;
    }
    ++t->conn->outstanding;
    return DOCA_SUCCESS;
}

void doca_rdma::sync_event_done(doca_rdma_task_base *t) {
    if (t->kind == &se_get_kind)
        static_cast<doca_rdma_task_remote_net_sync_event_get *>(t)->dst->data_len += sizeof(uint64_t);
    else if (t->kind == &se_add_kind)
        static_cast<doca_rdma_task_remote_net_sync_event_notify_add *>(t)->result->data_len +=
            sizeof(uint64_t);
}

doca_error_t doca_rdma_task_remote_net_sync_event_get_set_conf(
    doca_rdma *rdma, doca_rdma_task_remote_net_sync_event_get_completion_cb_t ok,
    doca_rdma_task_remote_net_sync_event_get_completion_cb_t bad, uint32_t num) {
    return set_conf(rdma, rdma->se_get_kind, ok, bad, num,
                    "doca_rdma_task_remote_net_sync_event_get_set_conf");
}
doca_error_t doca_rdma_task_remote_net_sync_event_notify_set_set_conf(
    doca_rdma *rdma, doca_rdma_task_remote_net_sync_event_notify_set_completion_cb_t ok,
    doca_rdma_task_remote_net_sync_event_notify_set_completion_cb_t bad, uint32_t num) {
    return set_conf(rdma, rdma->se_set_kind, ok, bad, num,
                    "doca_rdma_task_remote_net_sync_event_notify_set_set_conf");
}
doca_error_t doca_rdma_task_remote_net_sync_event_notify_add_set_conf(
    doca_rdma *rdma, doca_rdma_task_remote_net_sync_event_notify_add_completion_cb_t ok,
    doca_rdma_task_remote_net_sync_event_notify_add_completion_cb_t bad, uint32_t num) {
    return set_conf(rdma, rdma->se_add_kind, ok, bad, num,
                    "doca_rdma_task_remote_net_sync_event_notify_add_set_conf");
}

doca_error_t doca_rdma_task_remote_net_sync_event_get_allocate_init(
    doca_rdma *rdma, doca_rdma_connection *conn, const doca_sync_event_remote_net *event, doca_buf *dst,
    doca_data user_data, doca_rdma_task_remote_net_sync_event_get **task) {
    if (rdma == nullptr || conn == nullptr || !valid_remote_event(event) || dst == nullptr || task == nullptr)
        return DOCA_ERROR_INVALID_VALUE;
    if (auto r = allocate(rdma, rdma->se_get_kind, user_data, task); r != DOCA_SUCCESS) return r;
    (*task)->conn = conn;
    (*task)->event = event;
    (*task)->dst = dst;
    return DOCA_SUCCESS;
}
doca_task *doca_rdma_task_remote_net_sync_event_get_as_task(doca_rdma_task_remote_net_sync_event_get *task) {
    return task;
}
doca_buf *
doca_rdma_task_remote_net_sync_event_get_get_dst_buf(const doca_rdma_task_remote_net_sync_event_get *task) {
    return task->dst;
}

doca_error_t doca_rdma_task_remote_net_sync_event_notify_set_allocate_init(
    doca_rdma *rdma, doca_rdma_connection *conn, doca_sync_event_remote_net *event, const doca_buf *src,
    doca_data user_data, doca_rdma_task_remote_net_sync_event_notify_set **task) {
    if (rdma == nullptr || conn == nullptr || !valid_remote_event(event) || src == nullptr || task == nullptr)
        return DOCA_ERROR_INVALID_VALUE;
    if (auto r = allocate(rdma, rdma->se_set_kind, user_data, task); r != DOCA_SUCCESS) return r;
    (*task)->conn = conn;
    (*task)->event = event;
    (*task)->src = src;
    return DOCA_SUCCESS;
}
doca_task *doca_rdma_task_remote_net_sync_event_notify_set_as_task(
    doca_rdma_task_remote_net_sync_event_notify_set *task) {
    return task;
}

doca_error_t doca_rdma_task_remote_net_sync_event_notify_add_allocate_init(
    doca_rdma *rdma, doca_rdma_connection *conn, doca_sync_event_remote_net *event, doca_buf *result,
    uint64_t add_data, doca_data user_data, doca_rdma_task_remote_net_sync_event_notify_add **task) {
    if (rdma == nullptr || conn == nullptr || !valid_remote_event(event) || result == nullptr ||
        task == nullptr)
        return DOCA_ERROR_INVALID_VALUE;
    if (auto r = allocate(rdma, rdma->se_add_kind, user_data, task); r != DOCA_SUCCESS) return r;
    (*task)->conn = conn;
    (*task)->event = event;
    (*task)->result = result;
    (*task)->add = add_data;
    return DOCA_SUCCESS;
}
doca_task *doca_rdma_task_remote_net_sync_event_notify_add_as_task(
    doca_rdma_task_remote_net_sync_event_notify_add *task) {
    return task;
}

// Buffer lists in receive tasks: the SRQ takes that many SGEs per receive.
doca_error_t doca_rdma_task_receive_set_dst_buf_list_len(doca_rdma *rdma, uint32_t buf_list_len) {
    if (rdma == nullptr) return DOCA_ERROR_INVALID_VALUE;
    if (rdma->state() != DOCA_CTX_STATE_IDLE) {
        logger()->error("doca_rdma_task_receive_set_dst_buf_list_len: the ctx is not IDLE");
        return DOCA_ERROR_BAD_STATE;
    }
    if (buf_list_len == 0 || buf_list_len > skiff::core::rdma::max_recv_buf_list_len) {
        logger()->error("doca_rdma_task_receive_set_dst_buf_list_len: {} is outside [1, {}]", buf_list_len,
                        skiff::core::rdma::max_recv_buf_list_len);
        return DOCA_ERROR_INVALID_VALUE;
    }
    rdma->recv_buf_list_len = buf_list_len;
    return DOCA_SUCCESS;
}
doca_error_t doca_rdma_task_receive_get_dst_buf_list_len(const doca_rdma *rdma, uint32_t *buf_list_len) {
    if (rdma == nullptr || buf_list_len == nullptr) return DOCA_ERROR_INVALID_VALUE;
    *buf_list_len = rdma->recv_buf_list_len;
    return DOCA_SUCCESS;
}

} // extern "C"

#endif // SKIFF_HAVE_RDMA
