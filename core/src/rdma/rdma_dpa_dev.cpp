// DPA comms, device side (doca_dpa_dev_rdma.h): posts by device code through a doca_rdma on the
// DPA data path. Send-queue work is kept until a FLUSH (or until the send queue size is reached)
// and then posted to each connection's QP in order; OPTIMIZE_REPORTS makes a work request
// unsignaled, which is verbs' own "completion implies every earlier one on the QP is done".
// Receives go straight to the ctx's shared receive queue.
#ifdef SKIFF_HAVE_RDMA
#include "rdma/rdma_dpa.hpp"

#include "dpa/completion.hpp"
#include "dpa/device_call.hpp"
#include "mem/buf_array.hpp"
#include "mem/dpa_mmap_handles.hpp"
#include "mem/mmap.hpp"
#include "rdma/verbs.hpp"
#include "sync/remote_net.hpp"

#include <doca_dpa_dev_rdma.h>

#include <arpa/inet.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

using skiff::core::dpa::DeviceCall;
using skiff::core::rdma::DpaPendingWr;
using skiff::core::rdma::DpaRdma;

namespace {

DpaRdma *rdma_of(doca_dpa_dev_rdma_t handle, const char *api, DeviceCall *&call) {
    return skiff::core::dpa::decode_owned<DpaRdma>(handle, api, "a DPA RDMA handle", call);
}

// An operation that cannot reach the hardware (bad connection id or address, post failure): one
// error completion, like the hardware's.
void fail_now(DpaRdma &r, uint32_t type, uint32_t conn, const char *api, const char *why) {
    skiff::core::dpa::dpa_logger().warn("{}: {}; the operation fails", api, why);
    r.comp->post(type, conn, 0);
}

doca_mmap *mmap_of(doca_dpa_dev_mmap_t handle) {
    return skiff::core::mem::dpa_mmap_from_handle(handle);
}

// The SGE of [addr, addr + len) in a local mmap (registered on the ctx's device at first use).
bool local_sge(const DpaRdma &r, doca_dpa_dev_mmap_t handle, uint64_t addr, size_t len, ibv_sge &sge) {
    doca_mmap *m = mmap_of(handle);
    if (!m || !m->started || m->rdma_remote ||
        !skiff::core::mem::mmap_contains(m, reinterpret_cast<void *>(static_cast<uintptr_t>(addr)), len))
        return false;
    ibv_mr *mr = nullptr;
    if (skiff::core::rdma::mmap_mr(m, r.dev, &mr) != DOCA_SUCCESS) return false;
    sge.addr = addr;
    sge.length = static_cast<uint32_t>(len);
    sge.lkey = skiff::core::rdma::mr_lkey(mr);
    return true;
}

// The rkey of [addr, addr + len) in an mmap imported from the peer's RDMA export.
bool remote_key(doca_dpa_dev_mmap_t handle, uint64_t addr, size_t len, uint32_t *rkey) {
    doca_mmap *m = mmap_of(handle);
    if (!m || !m->started || !m->rdma_remote ||
        !skiff::core::mem::mmap_contains(m, reinterpret_cast<void *>(static_cast<uintptr_t>(addr)), len))
        return false;
    *rkey = m->rdma_rkey;
    return true;
}

// Posts every kept work request, one ibv_post_send per run of the same QP.
void flush(DpaRdma &r) {
    uint32_t i = 0;
    while (i < r.num_pending) {
        uint32_t j = i;
        while (j + 1 < r.num_pending && r.pending[j + 1].qp == r.pending[i].qp) {
            r.pending[j].wr.next = &r.pending[j + 1].wr;
            ++j;
        }
        r.pending[j].wr.next = nullptr;
        ibv_send_wr *bad = nullptr;
        if (ibv_post_send(r.pending[i].qp, &r.pending[i].wr, &bad) != 0) {
            int e = errno;
            for (ibv_send_wr *w = bad; w != nullptr; w = w->next) {
                skiff::core::dpa::dpa_logger().warn("DPA RDMA post on connection {}: ibv_post_send: {}",
                                                    skiff::core::rdma::dpa_wr_conn(w->wr_id),
                                                    std::strerror(e));
                r.comp->post(DOCA_DPA_DEV_COMP_SEND_ERR, skiff::core::rdma::dpa_wr_conn(w->wr_id), 0);
            }
        }
        i = j + 1;
    }
    r.num_pending = 0;
}

// Keeps one send-queue work request (wr: opcode, remote part, immediate; sge: local part).
void queue(DpaRdma &r, uint32_t conn, ibv_send_wr wr, const ibv_sge &sge, uint32_t flags, const char *api) {
    ibv_qp *qp = conn < r.num_conns ? r.qp[conn].load(std::memory_order_acquire) : nullptr;
    if (!qp) {
        fail_now(r, DOCA_DPA_DEV_COMP_SEND_ERR, conn, api,
                 "the connection id names no established connection");
        return;
    }
    if (r.num_pending == r.pending_capacity) flush(r); // the emulator may issue early, never late
    DpaPendingWr &p = r.pending[r.num_pending++];
    p.sge = sge;
    p.wr = wr;
    p.wr.wr_id = skiff::core::rdma::dpa_send_wr_id(conn, r.next_wr_index++);
    p.wr.sg_list = &p.sge;
    p.wr.num_sge = sge.length > 0 ? 1 : 0;
    p.wr.send_flags = (flags & DOCA_DPA_DEV_SUBMIT_FLAG_OPTIMIZE_REPORTS) ? 0 : IBV_SEND_SIGNALED;
    p.qp = qp;
    if (flags & DOCA_DPA_DEV_SUBMIT_FLAG_FLUSH) flush(r);
}

const skiff::core::mem::BufArrElement *element_of(doca_dpa_dev_buf_t buf) {
    return reinterpret_cast<const skiff::core::mem::BufArrElement *>(static_cast<uintptr_t>(buf));
}

doca_dpa_dev_mmap_t mmap_handle_of(const skiff::core::mem::BufArrElement *e) {
    return skiff::core::mem::dpa_mmap_handle(e->mmap); // given at doca_buf_arr_start
}

uint64_t addr_of(const skiff::core::mem::BufArrElement *e) {
    return reinterpret_cast<uintptr_t>(e->addr);
}

// Read / write (+imm) by mmap and address: the shared body.
void post_rdma(doca_dpa_dev_rdma_t handle, uint32_t conn, ibv_wr_opcode opcode,
               doca_dpa_dev_mmap_t local_mmap, uint64_t local_addr, doca_dpa_dev_mmap_t remote_mmap,
               uint64_t remote_addr, size_t len, uint32_t imm, uint32_t flags, const char *api) {
    DeviceCall *call = nullptr;
    DpaRdma *r = rdma_of(handle, api, call);
    if (!r) return;
    ibv_sge sge{};
    ibv_send_wr wr{};
    wr.opcode = opcode;
    wr.imm_data = htonl(imm);
    wr.wr.rdma.remote_addr = remote_addr;
    if (!local_sge(*r, local_mmap, local_addr, len, sge) ||
        !remote_key(remote_mmap, remote_addr, len, &wr.wr.rdma.rkey)) {
        fail_now(*r, DOCA_DPA_DEV_COMP_SEND_ERR, conn, api,
                 "an address is outside its mmap (or the remote side is not an RDMA-imported mmap)");
        return;
    }
    queue(*r, conn, wr, sge, flags, api);
}

void post_send(doca_dpa_dev_rdma_t handle, uint32_t conn, doca_dpa_dev_mmap_t mmap, uint64_t addr, size_t len,
               bool with_imm, uint32_t imm, uint32_t flags, const char *api) {
    DeviceCall *call = nullptr;
    DpaRdma *r = rdma_of(handle, api, call);
    if (!r) return;
    ibv_sge sge{};
    ibv_send_wr wr{};
    wr.opcode = with_imm ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND;
    wr.imm_data = htonl(imm);
    if (!local_sge(*r, mmap, addr, len, sge)) {
        fail_now(*r, DOCA_DPA_DEV_COMP_SEND_ERR, conn, api, "the address is outside its mmap");
        return;
    }
    queue(*r, conn, wr, sge, flags, api);
}

// fetch-add (remote word += value) or a set (remote word = value, an 8-byte RDMA write).
void post_word(DpaRdma &r, uint32_t conn, bool add, uint64_t raddr, uint32_t rkey, uint64_t value,
               uint32_t flags, const char *api) {
    ibv_sge sge{};
    ibv_send_wr wr{};
    if (add) {
        wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
        wr.wr.atomic.remote_addr = raddr;
        wr.wr.atomic.compare_add = value;
        wr.wr.atomic.rkey = rkey;
        sge.addr = reinterpret_cast<uintptr_t>(&r.scratch[0]);
    } else {
        // The value must stay put until the write is done: one word per send-queue slot.
        uint64_t &slot = r.scratch[1 + r.next_wr_index % r.pending_capacity];
        slot = value;
        wr.opcode = IBV_WR_RDMA_WRITE;
        wr.wr.rdma.remote_addr = raddr;
        wr.wr.rdma.rkey = rkey;
        sge.addr = reinterpret_cast<uintptr_t>(&slot);
    }
    sge.length = sizeof(uint64_t);
    sge.lkey = r.scratch_mr->lkey;
    if (raddr % alignof(uint64_t) != 0) {
        fail_now(r, DOCA_DPA_DEV_COMP_SEND_ERR, conn, api, "the remote word is not 8-byte aligned");
        return;
    }
    queue(r, conn, wr, sge, flags, api);
}

void signal(doca_dpa_dev_rdma_t handle, uint32_t conn, doca_dpa_dev_sync_event_remote_net_t event,
            uint64_t count, bool add, const char *api) {
    DeviceCall *call = nullptr;
    DpaRdma *r = rdma_of(handle, api, call);
    if (!r) return;
    auto *ev = reinterpret_cast<const doca_sync_event_remote_net *>(static_cast<uintptr_t>(event));
    if (!ev || ev->magic != doca_sync_event_remote_net::kMagic) {
        skiff::core::dpa::device_fault(*call, std::string(api) + ": invalid remote sync event handle");
        return;
    }
    post_word(*r, conn, add, ev->addr, ev->rkey, count, DOCA_DPA_DEV_SUBMIT_FLAG_FLUSH, api);
}

// The _buf_ forms: each buffer names its mmap, address and length; the shorter length moves. A bad
// buffer handle goes through the mmap form with null handles, which reports it the same way.
using MmapPost = void (*)(doca_dpa_dev_rdma_t, uint32_t, doca_dpa_dev_mmap_t, uint64_t, doca_dpa_dev_mmap_t,
                          uint64_t, size_t, uint32_t);
void post_by_buffers(MmapPost post, doca_dpa_dev_rdma_t rdma, uint32_t connection_id, doca_dpa_dev_buf_t dst,
                     doca_dpa_dev_buf_t src, uint32_t flags) {
    const auto *d = element_of(dst);
    const auto *s = element_of(src);
    if (!d || !s) return post(rdma, connection_id, 0, 0, 0, 0, 0, flags);
    post(rdma, connection_id, mmap_handle_of(d), addr_of(d), mmap_handle_of(s), addr_of(s),
         d->len < s->len ? d->len : s->len, flags);
}

} // namespace

extern "C" {

void doca_dpa_dev_rdma_post_read(doca_dpa_dev_rdma_t rdma, uint32_t connection_id,
                                 doca_dpa_dev_mmap_t dst_mmap_handle, uint64_t dst_addr,
                                 doca_dpa_dev_mmap_t src_mmap_handle, uint64_t src_addr, size_t length,
                                 uint32_t flags) {
    post_rdma(rdma, connection_id, IBV_WR_RDMA_READ, dst_mmap_handle, dst_addr, src_mmap_handle, src_addr,
              length, 0, flags, "doca_dpa_dev_rdma_post_read");
}

void doca_dpa_dev_rdma_post_buf_read(doca_dpa_dev_rdma_t rdma, uint32_t connection_id,
                                     doca_dpa_dev_buf_t dst_buf_handle, doca_dpa_dev_buf_t src_buf_handle,
                                     uint32_t flags) {
    post_by_buffers(&doca_dpa_dev_rdma_post_read, rdma, connection_id, dst_buf_handle, src_buf_handle, flags);
}

void doca_dpa_dev_rdma_post_write(doca_dpa_dev_rdma_t rdma, uint32_t connection_id,
                                  doca_dpa_dev_mmap_t dst_mmap_handle, uint64_t dst_addr,
                                  doca_dpa_dev_mmap_t src_mmap_handle, uint64_t src_addr, size_t length,
                                  uint32_t flags) {
    post_rdma(rdma, connection_id, IBV_WR_RDMA_WRITE, src_mmap_handle, src_addr, dst_mmap_handle, dst_addr,
              length, 0, flags, "doca_dpa_dev_rdma_post_write");
}

void doca_dpa_dev_rdma_post_buf_write(doca_dpa_dev_rdma_t rdma, uint32_t connection_id,
                                      doca_dpa_dev_buf_t dst_buf_handle, doca_dpa_dev_buf_t src_buf_handle,
                                      uint32_t flags) {
    post_by_buffers(&doca_dpa_dev_rdma_post_write, rdma, connection_id, dst_buf_handle, src_buf_handle,
                    flags);
}

void doca_dpa_dev_rdma_post_write_imm(doca_dpa_dev_rdma_t rdma, uint32_t connection_id,
                                      doca_dpa_dev_mmap_t dst_mmap_handle, uint64_t dst_addr,
                                      doca_dpa_dev_mmap_t src_mmap_handle, uint64_t src_addr, size_t length,
                                      uint32_t immediate, uint32_t flags) {
    post_rdma(rdma, connection_id, IBV_WR_RDMA_WRITE_WITH_IMM, src_mmap_handle, src_addr, dst_mmap_handle,
              dst_addr, length, immediate, flags, "doca_dpa_dev_rdma_post_write_imm");
}

void doca_dpa_dev_rdma_post_buf_write_imm(doca_dpa_dev_rdma_t rdma, uint32_t connection_id,
                                          doca_dpa_dev_buf_t dst_buf_handle,
                                          doca_dpa_dev_buf_t src_buf_handle, uint32_t immediate,
                                          uint32_t flags) {
    const auto *d = element_of(dst_buf_handle);
    const auto *s = element_of(src_buf_handle);
    if (!d || !s)
        return doca_dpa_dev_rdma_post_write_imm(rdma, connection_id, 0, 0, 0, 0, 0, immediate, flags);
    doca_dpa_dev_rdma_post_write_imm(rdma, connection_id, mmap_handle_of(d), addr_of(d), mmap_handle_of(s),
                                     addr_of(s), d->len < s->len ? d->len : s->len, immediate, flags);
}

void doca_dpa_dev_rdma_post_send(doca_dpa_dev_rdma_t rdma, uint32_t connection_id,
                                 doca_dpa_dev_mmap_t mmap_handle, uint64_t addr, size_t length,
                                 uint32_t flags) {
    post_send(rdma, connection_id, mmap_handle, addr, length, false, 0, flags, "doca_dpa_dev_rdma_post_send");
}

void doca_dpa_dev_rdma_post_buf_send(doca_dpa_dev_rdma_t rdma, uint32_t connection_id,
                                     doca_dpa_dev_buf_t send_buf_handle, uint32_t flags) {
    const auto *b = element_of(send_buf_handle);
    post_send(rdma, connection_id, b ? mmap_handle_of(b) : 0, b ? addr_of(b) : 0, b ? b->len : 0, false, 0,
              flags, "doca_dpa_dev_rdma_post_buf_send");
}

void doca_dpa_dev_rdma_post_send_imm(doca_dpa_dev_rdma_t rdma, uint32_t connection_id,
                                     doca_dpa_dev_mmap_t mmap_handle, uint64_t addr, size_t length,
                                     uint32_t immediate, uint32_t flags) {
    post_send(rdma, connection_id, mmap_handle, addr, length, true, immediate, flags,
              "doca_dpa_dev_rdma_post_send_imm");
}

void doca_dpa_dev_rdma_post_buf_send_imm(doca_dpa_dev_rdma_t rdma, uint32_t connection_id,
                                         doca_dpa_dev_buf_t send_buf_handle, uint32_t immediate,
                                         uint32_t flags) {
    const auto *b = element_of(send_buf_handle);
    post_send(rdma, connection_id, b ? mmap_handle_of(b) : 0, b ? addr_of(b) : 0, b ? b->len : 0, true,
              immediate, flags, "doca_dpa_dev_rdma_post_buf_send_imm");
}

void doca_dpa_dev_rdma_post_receive(doca_dpa_dev_rdma_t rdma, doca_dpa_dev_mmap_t mmap_handle, uint64_t addr,
                                    size_t length) {
    const char *api = "doca_dpa_dev_rdma_post_receive";
    DeviceCall *call = nullptr;
    DpaRdma *r = rdma_of(rdma, api, call);
    if (!r) return;
    uint64_t released = r->recv_acked;
    if (doca_dpa_completion::hardware_semantics())
        released = std::max(released, r->recv_completed.load(std::memory_order_acquire));
    if (r->recv_posted - released >= r->recv_capacity) {
        skiff::core::dpa::device_fault(*call, std::string(api) + ": more than the receive queue size (" +
                                                  std::to_string(r->recv_capacity) +
                                                  ") receives are posted and not acknowledged");
        return;
    }
    ibv_sge sge{};
    if (!local_sge(*r, mmap_handle, addr, length, sge)) {
        fail_now(*r, DOCA_DPA_DEV_COMP_RECV_ERR, r->num_conns, api, "the address is outside its mmap");
        return;
    }
    ibv_recv_wr wr{}, *bad = nullptr;
    wr.wr_id = skiff::core::rdma::kDpaRecvBit | r->next_wr_index++;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    if (ibv_post_srq_recv(r->srq, &wr, &bad) != 0) {
        fail_now(*r, DOCA_DPA_DEV_COMP_RECV_ERR, r->num_conns, api, "ibv_post_srq_recv failed");
        return;
    }
    ++r->recv_posted;
}

void doca_dpa_dev_rdma_post_buf_receive(doca_dpa_dev_rdma_t rdma, doca_dpa_dev_buf_t receive_buf_handle) {
    const auto *b = element_of(receive_buf_handle);
    doca_dpa_dev_rdma_post_receive(rdma, b ? mmap_handle_of(b) : 0, b ? addr_of(b) : 0, b ? b->len : 0);
}

void doca_dpa_dev_rdma_receive_ack(doca_dpa_dev_rdma_t rdma, uint32_t num_acked) {
    const char *api = "doca_dpa_dev_rdma_receive_ack";
    DeviceCall *call = nullptr;
    DpaRdma *r = rdma_of(rdma, api, call);
    if (!r) return;
    if (r->recv_acked + num_acked > r->recv_posted) {
        skiff::core::dpa::device_fault(
            *call, std::string(api) + ": acknowledging " + std::to_string(num_acked) + " receives, only " +
                       std::to_string(r->recv_posted - r->recv_acked) + " are posted");
        return;
    }
    r->recv_acked += num_acked;
}

uint32_t doca_dpa_dev_rdma_completion_get_wr_index(doca_dpa_dev_completion_element_t comp_element) {
    const ibv_wc *wc = skiff::core::dpa::dev_completion_verbs_wc(comp_element);
    return wc ? static_cast<uint32_t>(wc->wr_id) : 0;
}

void doca_dpa_dev_rdma_post_atomic_fetch_add(doca_dpa_dev_rdma_t rdma, uint32_t connection_id,
                                             doca_dpa_dev_mmap_t dst_mmap_handle, uint64_t dst_addr,
                                             uint64_t value, uint32_t flags) {
    const char *api = "doca_dpa_dev_rdma_post_atomic_fetch_add";
    DeviceCall *call = nullptr;
    DpaRdma *r = rdma_of(rdma, api, call);
    if (!r) return;
    uint32_t rkey = 0;
    if (!remote_key(dst_mmap_handle, dst_addr, sizeof(uint64_t), &rkey)) {
        fail_now(*r, DOCA_DPA_DEV_COMP_SEND_ERR, connection_id, api,
                 "the remote word is outside its mmap (or not an RDMA-imported mmap)");
        return;
    }
    post_word(*r, connection_id, true, dst_addr, rkey, value, flags, api);
}

void doca_dpa_dev_rdma_post_buf_atomic_fetch_add(doca_dpa_dev_rdma_t rdma, uint32_t connection_id,
                                                 doca_dpa_dev_buf_t dst_buf_handle, uint64_t value,
                                                 uint32_t flags) {
    const auto *b = element_of(dst_buf_handle);
    doca_dpa_dev_rdma_post_atomic_fetch_add(rdma, connection_id, b ? mmap_handle_of(b) : 0,
                                            b ? addr_of(b) : 0, value, flags);
}

void doca_dpa_dev_rdma_signal_set(doca_dpa_dev_rdma_t rdma, uint32_t connection_id,
                                  doca_dpa_dev_sync_event_remote_net_t remote_sync_event, uint64_t count) {
    signal(rdma, connection_id, remote_sync_event, count, false, "doca_dpa_dev_rdma_signal_set");
}

void doca_dpa_dev_rdma_signal_add(doca_dpa_dev_rdma_t rdma, uint32_t connection_id,
                                  doca_dpa_dev_sync_event_remote_net_t remote_sync_event, uint64_t count) {
    signal(rdma, connection_id, remote_sync_event, count, true, "doca_dpa_dev_rdma_signal_add");
}

} // extern "C"

#endif // SKIFF_HAVE_RDMA
