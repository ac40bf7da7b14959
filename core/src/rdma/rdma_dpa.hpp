// doca_rdma on the DPA data path: the object a doca_dpa_dev_rdma_t points at. Device code posts
// work requests through it (rdma_dpa_dev.cpp); the context's CQ is attached to the DPA completion
// context (skiff/core/dpa_verbs_cq.hpp) and each work completion becomes a DPA completion whose
// user data is the connection id.
//
// Work request ids: bit 63 marks a receive; a send-side request carries its connection id in
// bits 32..47; bits 0..31 are the handle's running work-request index
// (doca_dpa_dev_rdma_completion_get_wr_index).
#pragma once
#ifdef SKIFF_HAVE_RDMA

#include "dpa/owner_check.hpp"

#include <doca_dpa.h>
#include <skiff/core/dpa_verbs_cq.hpp>

#include <infiniband/verbs.h>

#include <atomic>
#include <cstdint>
#include <memory>

struct doca_rdma;

namespace skiff::core::rdma {

constexpr uint64_t kDpaRecvBit = 1ull << 63;

inline uint64_t dpa_send_wr_id(uint32_t conn, uint32_t index) {
    return (static_cast<uint64_t>(conn & 0xffff) << 32) | index;
}
inline uint32_t dpa_wr_conn(uint64_t wr_id) {
    return static_cast<uint32_t>(wr_id >> 32) & 0xffff;
}

// A send-queue work request posted without FLUSH: kept until the next FLUSH posts it.
struct DpaPendingWr {
    ibv_send_wr wr;
    ibv_sge sge;
    ibv_qp *qp;
};

struct DpaRdma {
    static constexpr uint32_t kMagic = 0x44505244; // "DPRD"
    uint32_t magic = kMagic;
    doca_dpa *dpa = nullptr;
    doca_dpa_completion *comp = nullptr;
    doca_dev *dev = nullptr;
    ibv_srq *srq = nullptr;
    skiff::core::dpa::VerbsCqAttachment *attachment = nullptr;

    // Per connection id, written by the PE thread (connection events), read by device code and
    // the CQ poller: the QP once established, and its number from creation.
    uint32_t num_conns = 0;
    std::unique_ptr<std::atomic<ibv_qp *>[]> qp;
    std::unique_ptr<std::atomic<uint32_t>[]> qp_num;

    // ---- device side (one device function at a time: `owner` checks it in debug builds)
    skiff::core::dpa::OwnerCheck owner;
    std::unique_ptr<DpaPendingWr[]> pending; // capacity: the send queue size
    uint32_t pending_capacity = 0;
    uint32_t num_pending = 0;
    uint32_t next_wr_index = 0;
    uint64_t recv_posted = 0; // receive entries posted ...
    uint64_t recv_acked = 0;  // ... and released by doca_dpa_dev_rdma_receive_ack
    uint32_t recv_capacity = 0;
    // Receives the hardware completed, counted by the CQ poller under SKIFF_DPA_COMPLETIONS=hardware:
    // there a receive's completion frees its slot, as the hardware's does (NVIDIA's dpa_ping_pong
    // reposts with a receive queue of one and never calls receive_ack).
    std::atomic<uint64_t> recv_completed{0};
    // Registered at start: word 0 takes fetch-add results (the DOCA call returns none); words
    // 1..pending_capacity hold the values of signal_set writes in flight (by wr index).
    std::unique_ptr<uint64_t[]> scratch;
    ibv_mr *scratch_mr = nullptr;

    // The connection id of a QP number (the poller, for receives); num_conns when unknown.
    uint32_t conn_of_qp(uint32_t qpn) const {
        for (uint32_t i = 0; i < num_conns; ++i)
            if (qp_num[i].load(std::memory_order_acquire) == qpn) return i;
        return num_conns;
    }
};

// The CQ classifier of a DPA-mode doca_rdma (arg: the DpaRdma).
bool classify_dpa_rdma_wc(void *arg, const ibv_wc &wc, skiff::core::dpa::VerbsCompletionFields &out);

} // namespace skiff::core::rdma

#endif // SKIFF_HAVE_RDMA
