// doca_rdma on the DPA data path, host side: doca_ctx_set_datapath_on_dpa, attaching the DPA
// completion context, bringing the device-side state up at start and down at stop, and how a work
// completion of the context's CQ becomes a DPA completion.
#ifdef SKIFF_HAVE_RDMA
#include "rdma/rdma_dpa.hpp"

#include "dpa/completion.hpp"
#include "dpa/dpa_context.hpp"
#include "rdma/rdma_context.hpp"

#include <skiff/core/log.hpp>

#include <arpa/inet.h>

#include <bit>
#include <cerrno>
#include <cstring>
#include <new>

namespace {

auto logger() {
    return skiff::log::get("rdma");
}

} // namespace

namespace skiff::core::rdma {

bool classify_dpa_rdma_wc(void *arg, const ibv_wc &wc, skiff::core::dpa::VerbsCompletionFields &out) {
    auto *st = static_cast<DpaRdma *>(arg);
    bool ok = wc.status == IBV_WC_SUCCESS;
    bool imm = ok && (wc.wc_flags & IBV_WC_WITH_IMM) != 0;
    out.immediate = imm ? ntohl(wc.imm_data) : 0;
    if (wc.wr_id & kDpaRecvBit) {
        // Counted only under SKIFF_DPA_COMPLETIONS=hardware, where a receive's completion frees its
        // slot; before the completion is posted, so device code that reads it sees the count.
        if (doca_dpa_completion::hardware_semantics())
            st->recv_completed.fetch_add(1, std::memory_order_release);
        out.user_data = st->conn_of_qp(wc.qp_num);
        out.type = !ok                                      ? DOCA_DPA_DEV_COMP_RECV_ERR
                   : wc.opcode == IBV_WC_RECV_RDMA_WITH_IMM ? DOCA_DPA_DEV_COMP_RECV_RDMA_WRITE_IMM
                   : imm                                    ? DOCA_DPA_DEV_COMP_RECV_SEND_IMM
                                                            : DOCA_DPA_DEV_COMP_RECV_SEND;
    } else {
        out.user_data = dpa_wr_conn(wc.wr_id);
        out.type = ok ? DOCA_DPA_DEV_COMP_SEND : DOCA_DPA_DEV_COMP_SEND_ERR;
    }
    if (!ok && wc.status != IBV_WC_WR_FLUSH_ERR)
        logger()->warn("DPA RDMA work request on connection {} failed: {} (vendor error {:#x})",
                       out.user_data, ibv_wc_status_str(wc.status), wc.vendor_err);
    return true;
}

} // namespace skiff::core::rdma

using skiff::core::rdma::DpaRdma;

doca_error_t doca_rdma::set_datapath_on_dpa(doca_dpa *dpa) {
    if (state() != DOCA_CTX_STATE_IDLE) return DOCA_ERROR_BAD_STATE;
    if (auto r = skiff::core::dpa::check_usable(dpa); r != DOCA_SUCCESS) return r;
    if (dpa_comp_ != nullptr && dpa_comp_->dpa != dpa) {
        logger()->error("doca_ctx_set_datapath_on_dpa: the attached DPA completion context is on another DPA "
                        "context");
        return DOCA_ERROR_INVALID_VALUE;
    }
    dpa_ = dpa;
    return DOCA_SUCCESS;
}

doca_error_t doca_rdma::attach_dpa_completion(doca_dpa_completion *comp) {
    if (comp == nullptr) return DOCA_ERROR_INVALID_VALUE;
    if (state() != DOCA_CTX_STATE_IDLE) {
        logger()->error("doca_rdma_dpa_completion_attach: the ctx is not IDLE");
        return DOCA_ERROR_BAD_STATE;
    }
    if (dpa_ == nullptr) {
        logger()->error("doca_rdma_dpa_completion_attach: call doca_ctx_set_datapath_on_dpa first");
        return DOCA_ERROR_BAD_STATE;
    }
    if (comp->dpa != dpa_) {
        logger()->error("doca_rdma_dpa_completion_attach: the completion context is on another DPA context "
                        "than the RDMA data path (they must share one, extended contexts included)");
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (dpa_comp_ != nullptr) dpa_comp_->attached.fetch_sub(1);
    dpa_comp_ = comp;
    comp->attached.fetch_add(1);
    return DOCA_SUCCESS;
}

doca_error_t doca_rdma::start_dpa_datapath() {
    if (auto r = skiff::core::dpa::check_usable(dpa_); r != DOCA_SUCCESS) return r;
    auto *st = new (std::nothrow) DpaRdma();
    if (st == nullptr) return DOCA_ERROR_NO_MEMORY;
    st->dpa = dpa_;
    st->comp = dpa_comp_;
    st->dev = dev_;
    st->srq = srq_;
    st->num_conns = max_connections;
    st->qp.reset(new std::atomic<ibv_qp *>[max_connections]);
    st->qp_num.reset(new std::atomic<uint32_t>[max_connections]);
    for (uint32_t i = 0; i < max_connections; ++i) {
        st->qp[i].store(nullptr);
        st->qp_num[i].store(0);
    }
    st->pending_capacity = std::bit_ceil(send_queue_size);
    st->pending.reset(new skiff::core::rdma::DpaPendingWr[st->pending_capacity]);
    st->recv_capacity = std::bit_ceil(recv_queue_size);
    st->scratch.reset(new uint64_t[1 + st->pending_capacity]());
    st->scratch_mr = ibv_reg_mr(vd_.pd, st->scratch.get(), sizeof(uint64_t) * (1 + st->pending_capacity),
                                IBV_ACCESS_LOCAL_WRITE);
    if (st->scratch_mr == nullptr) {
        logger()->error("doca_rdma start on the DPA: registering the scratch words: {}",
                        std::strerror(errno));
        delete st;
        return DOCA_ERROR_DRIVER;
    }
    skiff::core::dpa::VerbsCqConfig cfg;
    cfg.cq = cq_;
    cfg.channel = comp_channel_;
    cfg.classify = skiff::core::rdma::classify_dpa_rdma_wc;
    cfg.classify_arg = st;
    if (auto r = skiff::core::dpa::attach_verbs_cq(dpa_comp_, cfg, &st->attachment); r != DOCA_SUCCESS) {
        ibv_dereg_mr(st->scratch_mr);
        delete st;
        return r;
    }
    dpa_state_ = st;
    return DOCA_SUCCESS;
}

// After the QPs are gone (no completion can arrive any more).
void doca_rdma::stop_dpa_datapath() {
    if (dpa_state_ == nullptr) return;
    skiff::core::dpa::detach_verbs_cq(dpa_state_->attachment);
    ibv_dereg_mr(dpa_state_->scratch_mr);
    dpa_state_->magic = 0;
    delete dpa_state_;
    dpa_state_ = nullptr;
}

extern "C" {

doca_error_t doca_rdma_dpa_completion_attach(doca_rdma *rdma, doca_dpa_completion *dpa_comp) {
    if (rdma == nullptr) return DOCA_ERROR_INVALID_VALUE;
    return rdma->attach_dpa_completion(dpa_comp);
}

doca_error_t doca_rdma_get_dpa_handle(doca_rdma *rdma, doca_dpa_dev_rdma_t *dpa_rdma) {
    if (rdma == nullptr || dpa_rdma == nullptr) return DOCA_ERROR_INVALID_VALUE;
    if (!rdma->on_dpa()) {
        logger()->error("doca_rdma_get_dpa_handle: the ctx is not on the DPA data path "
                        "(doca_ctx_set_datapath_on_dpa)");
        return DOCA_ERROR_BAD_STATE;
    }
    if (rdma->state() != DOCA_CTX_STATE_RUNNING || rdma->dpa_state() == nullptr) {
        logger()->error("doca_rdma_get_dpa_handle: start the ctx first");
        return DOCA_ERROR_BAD_STATE;
    }
    *dpa_rdma = static_cast<doca_dpa_dev_rdma_t>(reinterpret_cast<uintptr_t>(rdma->dpa_state()));
    return DOCA_SUCCESS;
}

} // extern "C"

#endif // SKIFF_HAVE_RDMA
