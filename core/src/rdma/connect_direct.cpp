// Connections without RDMA-CM (doca_rdma_export / doca_rdma_connect): each side makes an RC QP and
// hands the peer a descriptor by any means it likes (a file, a socket); connect then moves the QP
// through INIT -> RTR -> RTS with the peer's QP number, PSN, LID and GID, as verbs programs do by
// hand. The descriptor is ours (magic "SKRQ"): only skiff peers read it.
#ifdef SKIFF_HAVE_RDMA
#include "rdma/rdma_context.hpp"

#include "rdma/rdma_dpa.hpp"
#include "rdma/verbs.hpp"

#include "dev/device.hpp"

#include <skiff/core/log.hpp>

#include <infiniband/verbs.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <random>

namespace {

auto logger() {
    return skiff::log::get("rdma");
}

constexpr uint32_t kBlobMagic = 0x534b5251; // "SKRQ"
constexpr uint8_t kPort = 1;                // skiff's RDMA devices are single-port (rxe, mlx5 PF)

struct Blob {
    uint32_t magic;
    uint32_t qp_num;
    uint32_t psn;
    uint16_t lid;
    uint8_t mtu; // enum ibv_mtu
    uint8_t link_layer;
    uint8_t gid[16];
};
static_assert(sizeof(Blob) == skiff::core::rdma::connection_blob_len);

uint32_t random_psn() {
    static thread_local std::mt19937 rng{std::random_device{}()};
    return rng() & 0xffffff;
}

const char *err() {
    return std::strerror(errno);
}

} // namespace

namespace skiff::core::rdma {

void move_qp_to_error(ibv_qp *qp) {
    ibv_qp_attr a{};
    a.qp_state = IBV_QPS_ERR;
    ibv_modify_qp(qp, &a, IBV_QP_STATE);
}

} // namespace skiff::core::rdma

doca_error_t doca_rdma::create_direct_qp(doca_rdma_connection *c) {
    ibv_qp_init_attr qa{};
    qa.send_cq = cq_;
    qa.recv_cq = cq_;
    qa.srq = srq_;
    qa.qp_type = IBV_QPT_RC;
    qa.cap.max_send_wr = std::bit_ceil(send_queue_size);
    qa.cap.max_send_sge = 1;
    c->qp = ibv_create_qp(vd_.pd, &qa);
    if (c->qp == nullptr) {
        logger()->error("doca_rdma_export: ibv_create_qp: {}", err());
        return DOCA_ERROR_DRIVER;
    }
    ibv_qp_attr a{};
    a.qp_state = IBV_QPS_INIT;
    a.pkey_index = 0;
    a.port_num = kPort;
    a.qp_access_flags = skiff::core::rdma::ibv_access_of(permissions);
    if (ibv_modify_qp(c->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS) != 0) {
        logger()->error("doca_rdma_export: QP to INIT: {}", err());
        return DOCA_ERROR_DRIVER;
    }
    c->qp_num = c->qp->qp_num;
    c->psn = random_psn();
    if (dpa_state_ != nullptr) dpa_state_->qp_num[c->id].store(c->qp_num, std::memory_order_release);
    return DOCA_SUCCESS;
}

doca_error_t doca_rdma::export_connection(const void **blob, size_t *len, doca_rdma_connection **conn) {
    ibv_port_attr port{};
    ibv_gid gid{};
    if (ibv_query_port(vd_.ctx, kPort, &port) != 0 ||
        ibv_query_gid(vd_.ctx, kPort, int(gid_index), &gid) != 0) {
        logger()->error("doca_rdma_export: port {} / GID index {} of {}: {}", kPort, gid_index,
                        skiff::core::dev::desc_of(dev_).ibdev_name, err());
        return DOCA_ERROR_DRIVER;
    }
    doca_rdma_connection *c = free_slot();
    if (c == nullptr) {
        logger()->error("doca_rdma_export: all {} connections are in use", max_connections);
        return DOCA_ERROR_FULL;
    }
    ++active_conns_;
    if (auto r = create_direct_qp(c); r != DOCA_SUCCESS) {
        release(c);
        return r;
    }
    Blob b{};
    b.magic = kBlobMagic;
    b.qp_num = c->qp_num;
    b.psn = c->psn;
    b.lid = port.lid;
    b.mtu = static_cast<uint8_t>(port.active_mtu);
    b.link_layer = port.link_layer;
    std::memcpy(b.gid, gid.raw, sizeof b.gid);
    std::memcpy(c->export_blob, &b, sizeof b);
    c->state = doca_rdma_connection::State::exported;
    *blob = c->export_blob;
    *len = sizeof b;
    *conn = c;
    return DOCA_SUCCESS;
}

doca_error_t doca_rdma::connect_direct(const void *blob, size_t len, doca_rdma_connection *c) {
    if (c->state != doca_rdma_connection::State::exported || c->cm_id != nullptr) {
        logger()->error(
            "doca_rdma_connect: connection {} was not made by doca_rdma_export or is connected already",
            c->id);
        return DOCA_ERROR_BAD_STATE;
    }
    Blob peer{};
    if (len != sizeof peer || (std::memcpy(&peer, blob, sizeof peer), peer.magic != kBlobMagic)) {
        logger()->error(
            "doca_rdma_connect: not a connection descriptor from doca_rdma_export ({} bytes, want {})", len,
            sizeof peer);
        return DOCA_ERROR_INVALID_VALUE;
    }
    Blob self{};
    std::memcpy(&self, c->export_blob, sizeof self);
    ibv_qp_attr a{};
    a.qp_state = IBV_QPS_RTR;
    a.path_mtu = static_cast<ibv_mtu>(std::min(self.mtu, peer.mtu));
    a.dest_qp_num = peer.qp_num;
    a.rq_psn = peer.psn;
    a.max_dest_rd_atomic = 16;
    a.min_rnr_timer = 12;
    a.ah_attr.port_num = kPort;
    a.ah_attr.dlid = peer.lid;
    // RoCE has no LIDs: the GRH (the peer's GID) is the address. On InfiniBand it is optional.
    if (grh_enabled || self.link_layer == IBV_LINK_LAYER_ETHERNET || peer.lid == 0) {
        a.ah_attr.is_global = 1;
        std::memcpy(a.ah_attr.grh.dgid.raw, peer.gid, sizeof peer.gid);
        a.ah_attr.grh.sgid_index = static_cast<uint8_t>(gid_index);
        a.ah_attr.grh.hop_limit = 64;
    }
    if (ibv_modify_qp(c->qp, &a,
                      IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                          IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER) != 0) {
        logger()->error("doca_rdma_connect: connection {}: QP to RTR (peer QP {}): {}", c->id, peer.qp_num,
                        err());
        return DOCA_ERROR_CONNECTION_ABORTED;
    }
    ibv_qp_attr s{};
    s.qp_state = IBV_QPS_RTS;
    s.timeout = 14;
    s.retry_cnt = 7;
    s.rnr_retry = 7;
    s.sq_psn = self.psn;
    s.max_rd_atomic = 16;
    if (ibv_modify_qp(c->qp, &s,
                      IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
                          IBV_QP_MAX_QP_RD_ATOMIC) != 0) {
        logger()->error("doca_rdma_connect: connection {}: QP to RTS: {}", c->id, err());
        return DOCA_ERROR_CONNECTION_ABORTED;
    }
    c->state = doca_rdma_connection::State::established;
    if (dpa_state_ != nullptr) dpa_state_->qp[c->id].store(c->qp, std::memory_order_release);
    logger()->debug("connection {}: QP {} connected to peer QP {} without RDMA-CM", c->id, c->qp_num,
                    peer.qp_num);
    return DOCA_SUCCESS;
}

#endif // SKIFF_HAVE_RDMA
