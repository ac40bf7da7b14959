// Internal: one NVMe/RDMA connection (queue pair). Raw verbs rather than doca_rdma: the data
// path needs SEND with invalidate (the host's keyed SGL 0x4F), RDMA READ/WRITE against the
// host's own keys chained with the response SEND in one post, and receive buffers reposted in
// place; none of these is modelled by the DOCA task API.
//
// Resources, all made once per connection: its own RDMA-CM event channel (the id is migrated
// off the listener's), one PD, one CQ with a completion channel, one RC QP, and ONE memory
// registration covering the receive capsules, the response capsules and the data buffers.
// With a shared receive queue (rdma_srq.hpp) the PD and the receive capsules are the SRQ's.
// The poll group watches an epoll fd holding the CM channel and the completion channel.
//
// In the dpa data path (an I/O queue, with a DpaRuntime) the completion channel is not in that
// epoll fd: the CQ is attached to a DPA completion context and a DPA thread runs the same
// completion handling (DpaQueue, rdma_dpa_queue.hpp, says which thread owns what).
#pragma once

#include "rdma_request.hpp"
#include "rdma_srq.hpp"
#include "skiff/core/log.hpp"
#include "skiff/core/status.hpp"
#include "skiff/nvmeof/rdma/capsule_backlog.hpp"
#include "skiff/nvmeof/rdma/cm_private_data.hpp"
#include "skiff/nvmeof/target/queue.hpp"
#include "skiff/nvmeof/target/target.hpp"
#include "skiff/nvmeof/transport/connection.hpp"

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include <memory>
#include <string>
#include <vector>

namespace skiff::nvmeof::rdma {

class DpaQueue;
class DpaRuntime;

class RdmaQueuePair final : public transport::Connection, public target::TransportOps {
  public:
    // With `dpa`, an I/O queue runs its data path on a DPA thread (the admin queue never does).
    RdmaQueuePair(rdma_cm_id *id, std::string peer, target::Target &target, target::Port port,
                  std::shared_ptr<DpaRuntime> dpa = nullptr);
    ~RdmaQueuePair() override;

    // Before start: take command capsules from `srq` instead of a receive ring of our own.
    void use_srq(std::shared_ptr<RdmaSrq> srq) { srq_ = std::move(srq); }
    // Creates every resource and accepts the connection with `depth` entries. On failure the
    // caller still owns the id (to reject it); the error says what failed.
    Status start(const CmDecision &decision, const rdma_conn_param &host_param);
    // What receive work request ids carry above the capsule index (for the SRQ's receives).
    static uint64_t recv_wr_tag() { return wr_id(kWrRecv, 0); }

    // transport::Connection
    void attach(target::PollContext &ctx) override;
    int fd() const override { return epoll_fd_; }
    const std::string &peer() const override { return peer_; }
    void on_readable() override;
    void on_writable() override {}
    bool wants_write() const override { return false; }
    bool progress() override;
    void poll(uint64_t now_ms) override;
    // Requests whose backend I/O is in flight keep the connection (and its registered buffers)
    // alive.
    bool finished() const override;
    void close(const char *why) override { end(why); }

    // target::TransportOps
    void queue_response(target::Request &req) override;
    const char *peer_name() const override { return peer_.c_str(); }
    std::optional<uint16_t> bound_qid() const override { return cm_qid_; }
    uint32_t max_transfer() const override { return max_transfer_; }

  private:
    friend class DpaQueue; // runs the data path below on its DPA thread

    // Work request ids: kind in the top byte, slot index below.
    enum WrKind : uint64_t { kWrRecv = 1, kWrRead = 2, kWrSend = 3 };
    static uint64_t wr_id(WrKind kind, uint32_t index) { return (uint64_t(kind) << 56) | index; }

    Status create_resources(uint32_t max_rd_atomic);
    void handle_cm_events();
    void poll_cq();
    void on_completion(const ibv_wc &wc);
    void on_recv(uint16_t recv, uint32_t byte_len);
    // A completion polled after finish(): with an SRQ, a receive's capsule goes back to it.
    void drop_completion(const ibv_wc &wc);
    void release_recv(uint16_t recv);
    void return_srq_capsules();

    // Request transitions.
    RdmaRequest *alloc_request();
    void start_request(RdmaRequest &req, uint16_t recv, uint32_t byte_len);
    void after_host_data(RdmaRequest &req);
    void post_read(RdmaRequest &req);
    void free_request(RdmaRequest &req);
    void set_state(RdmaRequest &req, RdmaRequestState state);
    bool post_recv(uint16_t recv);

    void finish(const char *why);
    // finish() on the thread that owns the data path (the DPA thread is asked to).
    void end(const char *why);
    void destroy();

    // The data path's parts the DPA thread calls (and the poll group, in poll mode).
    void tick(uint64_t now_ms);
    bool advance();
    bool wants_progress() const { return !finished_ && (queue_.has_deferred() || queue_.has_throttled()); }
    bool drained() const { return finished_ && queue_.io_in_flight() == 0; }
    void deliver(const ibv_wc &wc) {
        if (!finished_) on_completion(wc);
    }

    uint8_t *capsule(uint16_t recv) const {
        return srq_ ? srq_->capsule(recv) : region_ + size_t(recv) * capsule_len_;
    }

    std::shared_ptr<spdlog::logger> log_ = skiff::log::get("rdma");
    rdma_cm_id *id_;
    std::string peer_;
    target::Target &target_;
    target::Queue queue_;
    const target::Limits limits_;
    uint16_t depth_ = 0;
    uint16_t cm_qid_ = 0;          // the QID of the connect request's private data
    uint32_t max_transfer_ = 0;    // MDTS in bytes: the target's, lowered to what the device moves
    std::shared_ptr<RdmaSrq> srq_; // null: receives posted on this QP from our own region

    rdma_event_channel *channel_ = nullptr;
    ibv_pd *pd_ = nullptr;
    ibv_comp_channel *comp_channel_ = nullptr;
    ibv_cq *cq_ = nullptr;
    bool qp_created_ = false;
    ibv_mr *mr_ = nullptr;
    int epoll_fd_ = -1;
    unsigned cq_events_ = 0; // to acknowledge before the CQ is destroyed
    bool cq_more_ = false;   // the last poll stopped at its budget

    // One registered region: [capsules: depth x capsule_len][responses: depth x 16][data].
    uint8_t *region_ = nullptr;
    size_t region_len_ = 0;
    uint32_t capsule_len_ = 0; // 64-byte SQE + in-capsule data
    wire::Cqe *responses_ = nullptr;

    std::vector<RdmaRequest> reqs_;
    std::vector<uint16_t> free_;
    // Receives that arrived while every slot was still sending, with their byte counts.
    CapsuleBacklog backlog_;

    bool finished_ = false;

    std::shared_ptr<DpaRuntime> dpa_runtime_; // set: the dpa data path for an I/O queue
    std::unique_ptr<DpaQueue> dpa_;           // the I/O queue's DPA side, once created
};

} // namespace skiff::nvmeof::rdma
