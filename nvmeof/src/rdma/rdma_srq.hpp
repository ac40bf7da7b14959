// Internal: the shared receive queue option of the NVMe/RDMA transport. One SRQ per (poll
// group, RDMA device), made when the first connection of that pair is accepted and destroyed
// with the last one: it owns a PD (the queue pairs of that group and device are created in it),
// the SRQ itself and ONE registered region of receive capsules. Every connection's QP takes its
// command capsules from it; the receive completion still arrives on the connection's own CQ (a
// QP's receive CQ stays its own with an SRQ), so it reaches its connection without a lookup.
//
// Threads: the pool (acceptor thread) creates an SRQ and posts every capsule before anyone
// else sees it; after that only the group's thread posts (reposts) into it, because only the
// connections of that group use it. Creating QPs on it from the acceptor is a verbs call,
// which is thread-safe.
#pragma once

#include "skiff/core/status.hpp"

#include <infiniband/verbs.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <utility>

namespace skiff::nvmeof::rdma {

class RdmaSrq {
  public:
    // Use SrqPool::get. `wr_tag` | index is a receive's work request id (the queue pairs'
    // encoding: their receive kind in the top byte).
    RdmaSrq(ibv_context *verbs, uint32_t depth, uint32_t capsule_len, uint64_t wr_tag);
    ~RdmaSrq();
    RdmaSrq(const RdmaSrq &) = delete;
    RdmaSrq &operator=(const RdmaSrq &) = delete;

    // Allocates the PD, the region and its registration, the SRQ, and posts every capsule.
    Status create();

    ibv_pd *pd() const { return pd_; }
    ibv_srq *srq() const { return srq_; }
    uint32_t depth() const { return depth_; }
    uint32_t capsule_len() const { return capsule_len_; }
    uint8_t *capsule(uint32_t index) const { return region_ + size_t(index) * capsule_len_; }
    // Gives capsule `index` back to the SRQ (group thread).
    bool post(uint32_t index);
    // Capsules currently posted (group thread; for the tests and the logs).
    uint32_t posted() const { return posted_; }

  private:
    ibv_context *verbs_;
    uint32_t depth_;
    uint32_t capsule_len_;
    uint64_t wr_tag_;
    ibv_pd *pd_ = nullptr;
    ibv_srq *srq_ = nullptr;
    ibv_mr *mr_ = nullptr;
    uint8_t *region_ = nullptr;
    size_t region_len_ = 0;
    uint32_t posted_ = 0;
};

// The SRQs of one transport, keyed by (poll group index, device). Holds them weakly: the
// connections own them, so the last connection of a group on a device frees its SRQ and `rdma
// res` counts return to where they were.
class SrqPool {
  public:
    // The SRQ of (group, verbs), made now with `depth` capsules of `capsule_len` bytes if none
    // is alive. `depth` is clipped to what the device allows (max_srq_wr).
    Result<std::shared_ptr<RdmaSrq>> get(int group, ibv_context *verbs, uint32_t depth, uint32_t capsule_len,
                                         uint64_t wr_tag);

  private:
    std::mutex mu_; // acceptor thread only in practice; connections drop their reference anywhere
    std::map<std::pair<int, ibv_context *>, std::weak_ptr<RdmaSrq>> srqs_;
};

} // namespace skiff::nvmeof::rdma
