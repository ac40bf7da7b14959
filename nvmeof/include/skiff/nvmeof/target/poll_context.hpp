// What a poll group offers the queues and backends it runs (implemented by dataplane's
// PollGroup; defined here so nvmeof and backends need no dataplane header): its progress
// engine, a way to watch an fd in its loop, and its table of backend channels, one per
// (namespace, poll group). Everything here is used on the group's own thread only.
//
// How a queue finds its group: the group calls Connection::attach(ctx) on its thread when it
// takes a connection over from the acceptor; the transport passes it to Queue::attach.
#pragma once

#include "skiff/core/status.hpp"
#include "skiff/nvmeof/target/block_device.hpp"

#include <doca_pe.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <unordered_map>

namespace skiff::nvmeof::target {

class Namespace;

class PollContext {
  public:
    using FdHandler = void (*)(void *arg);

    PollContext();
    // Implementations call close_channels() before their own members go (channels call back
    // into unwatch_fd when they close).
    virtual ~PollContext();
    PollContext(const PollContext &) = delete;
    PollContext &operator=(const PollContext &) = delete;

    // The group's progress engine (DMA and other core contexts connect to it; their
    // completions arrive inside the group's loop). nullptr where there is no loop.
    virtual doca_pe *progress_engine() const = 0;
    // Calls handler(arg) on the group's thread whenever fd is readable (level-triggered),
    // until unwatch_fd(fd). The error says why (e.g. no loop to watch in).
    virtual Status watch_fd(int fd, FdHandler handler, void *arg) = 0;
    virtual void unwatch_fd(int fd) = 0;
    // The group's index (its lane in every namespace's IoGate).
    virtual int index() const = 0;

    // The channel of ns on this group, opened on first use with `params`; nullptr when it
    // cannot be opened (the reason is logged once). Per I/O: the last namespace's channel is
    // remembered, else one hash lookup by the namespace's id (a group may serve thousands of
    // namespaces); no allocation once open. The table keeps the namespace's device alive while
    // its channel exists.
    IoChannel *channel(Namespace &ns, const ChannelParams &params);
    // Backend I/O in flight on this group's channels.
    uint32_t io_in_flight() const;
    // Closes the idle channels of namespaces that no longer exist; call now and then.
    void sweep_channels();
    // Closes every channel (call once io_in_flight() == 0, before the group goes away).
    void close_channels();

    // Work that waits for a time (QoS throttled I/O, qos_throttle.hpp): the group's loop must run
    // its connections' progress() again by `ns` (monotonic) even with nothing else to do. Called
    // from progress() each pass while the wait lasts; the group takes the earliest after the pass
    // and may sleep until then instead of spinning.
    void wake_at(uint64_t ns) {
        if (ns < wake_ns_) wake_ns_ = ns;
    }
    uint64_t take_wake_ns() {
        uint64_t t = wake_ns_;
        wake_ns_ = UINT64_MAX;
        return t;
    }

    // DMA work the group's channels did (hostmem's copies between the host's memory and the
    // queues' buffers): one task per doca_dma_task_memcpy submitted, its bytes. Counted by the
    // group's thread (relaxed stores of its own counters: no lock, no shared cache line written
    // by another core), read by the metrics scrape from any thread.
    void count_dma_task(uint64_t bytes) {
        dma_tasks_.store(dma_tasks_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
        dma_bytes_.store(dma_bytes_.load(std::memory_order_relaxed) + bytes, std::memory_order_relaxed);
    }
    uint64_t dma_tasks() const { return dma_tasks_.load(std::memory_order_relaxed); }
    uint64_t dma_bytes() const { return dma_bytes_.load(std::memory_order_relaxed); }

    // A context for queues that no poll group drives (unit tests, tools): one per thread, no
    // loop and no progress engine, so only synchronous backends can open a channel on it.
    static PollContext &inline_context();

  private:
    struct Channel;
    std::unordered_map<uint64_t, Channel> channels_; // by Namespace::uid()
    // The channel the last call returned (a group mostly serves one namespace at a time).
    uint64_t last_uid_ = 0;
    IoChannel *last_ = nullptr;
    uint64_t wake_ns_ = UINT64_MAX;
    std::atomic<uint64_t> dma_tasks_{0};
    std::atomic<uint64_t> dma_bytes_{0};
};

} // namespace skiff::nvmeof::target
