// The NVMe/RDMA transport: RDMA-CM listeners and the queue pairs of accepted connections
// (RdmaQueuePair inside). A listener's fd is its RDMA-CM event channel.
#pragma once

#include "skiff/nvmeof/transport/transport.hpp"

#include <atomic>
#include <map>
#include <memory>

struct rdma_cm_id;
struct rdma_event_channel;

namespace skiff::nvmeof::rdma {

class DpaRuntime;
class SrqPool;

class RdmaTransport final : public transport::Transport {
  public:
    // With datapath.mode dpa, I/O queues run their completions on DPA threads (the DPA starts
    // with the first listener; a DPA that cannot start fails that listen with the reason).
    explicit RdmaTransport(transport::DataPathOptions datapath = {});
    ~RdmaTransport() override;
    const char *name() const override { return "rdma"; }
    // Binds an RDMA-CM listener to addr. Fails with a message naming the address when no RDMA
    // device is present or none has that address.
    Result<int> listen(const transport::ListenAddress &addr) override;
    uint16_t bound_port(int listen_fd) const override;
    // Takes pending connect requests: rejects bad ones (with the NVMe/RDMA reject status) and
    // returns the first one accepted, or nullptr when none is pending.
    // With a shared receive queue depth in the target's limits, connections use the SRQ of
    // (group, their device).
    std::unique_ptr<transport::Connection> accept(int listen_fd, target::Target &target,
                                                  const target::Port &port, int group) override;
    // The DPA's execution units, in dpa mode once the DPA started.
    void append_run_sequences(std::vector<uint64_t> &out) const override;

  private:
    struct Listener {
        rdma_event_channel *channel = nullptr;
        rdma_cm_id *id = nullptr;
    };
    std::map<int, Listener> listeners_; // by channel fd
    std::unique_ptr<SrqPool> srqs_;     // shared receive queues, per (poll group, device)
    transport::DataPathOptions datapath_;
    std::shared_ptr<DpaRuntime> dpa_; // dpa mode, from the first listen; queues share it
    // dpa_'s DPA, for append_run_sequences from other threads (set once, lives with dpa_).
    std::atomic<doca_dpa *> published_dpa_{nullptr};
};

} // namespace skiff::nvmeof::rdma
