// A poll group: one thread that owns a set of connections and drives them. It busy-polls
// while there is work and sleeps in epoll once nothing happened for idle_poll_us (adaptive
// polling), so an idle target does not burn a core. While busy with a few connections that
// allow it (TCP) and no watched fds, it reads them directly (one recv per connection per pass)
// and asks epoll only every 16th pass. Each group owns a doca_pe progressed every
// iteration, its notification fd in the group's epoll set. Connections arrive by message (a lock-free queue
// plus an eventfd), never by sharing a lock with the acceptor or other groups. The group is its connections'
// PollContext: backends open their channels on it and watch their completion fds in its loop
// (aio's eventfd); on shutdown it waits for backend I/O in flight before closing channels.
#pragma once

#include "skiff/core/status.hpp"

#include <doca_pe.h>

#include "skiff/nvmeof/target/poll_context.hpp"
#include "skiff/nvmeof/transport/connection.hpp"

#include <boost/lockfree/queue.hpp>

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace skiff::dataplane {

struct PollGroupOptions {
    // Keep busy-polling this long after the last work before sleeping in epoll_wait. Longer
    // windows save the wake-up latency between bursts at the price of CPU; 0 sleeps at once.
    uint32_t idle_poll_us = 200;
};

class PollGroup final : public nvmeof::target::PollContext {
  public:
    explicit PollGroup(int index, PollGroupOptions options = {});
    ~PollGroup() override;
    PollGroup(const PollGroup &) = delete;
    PollGroup &operator=(const PollGroup &) = delete;

    Status start();
    // Closes every connection and joins the thread.
    void stop();

    // Hands a freshly accepted connection to this group (any thread).
    void add_connection(std::unique_ptr<nvmeof::transport::Connection> conn);
    size_t connection_count() const { return connection_count_.load(std::memory_order_relaxed); }
    // Loop passes so far: bumped at the top of every iteration, where the group holds no raw
    // pointer from the iteration before (the quiescent point namespace retirement waits for).
    uint64_t passes() const { return passes_.load(std::memory_order_acquire); }
    // Passes that found work (a connection, a completion, a progress step): busy / passes is how
    // loaded the group is (the metrics endpoint exports both). Written by the group only.
    uint64_t busy_passes() const { return busy_passes_.load(std::memory_order_relaxed); }
    bool running() const { return running_.load(std::memory_order_acquire); }
    int index() const override { return index_; }

    // The group's progress engine: DMA and other core contexts that serve this group's
    // connections (host-memory backends) connect to it; their completions then arrive on this
    // thread, inside the loop. Valid between start() and stop().
    doca_pe *progress_engine() const override { return pe_; }
    // Backend completion fds (group thread only).
    Status watch_fd(int fd, FdHandler handler, void *arg) override;
    void unwatch_fd(int fd) override;

  private:
    // What an epoll event points to: a connection or a watched fd.
    struct Source {
        bool is_connection;
    };
    struct Entry : Source {
        Entry() : Source{true} {}
        std::unique_ptr<nvmeof::transport::Connection> conn;
        bool watching_write = false;
    };
    struct FdWatch : Source {
        FdWatch(int f, FdHandler h, void *a) : Source{false}, fd(f), handler(h), arg(a) {}
        int fd;
        FdHandler handler;
        void *arg;
    };

    void run();
    bool poll_connections_directly(bool &finished_any);
    void update_direct_polling();
    bool take_new_connections();
    void service(Entry &e, uint32_t events);
    void update_interest(Entry &e);
    void reap();
    void close_all(const char *why);
    void drain_backend_io();

    int index_;
    PollGroupOptions options_;
    int epoll_fd_ = -1;
    int wake_fd_ = -1;
    std::thread thread_;
    std::atomic<bool> stop_{false};
    boost::lockfree::queue<nvmeof::transport::Connection *> inbox_{64}; // owned while queued
    std::vector<std::unique_ptr<Entry>> entries_;
    // Every connection polls without events, there are few and no watched fds: busy passes
    // read the connections directly and ask epoll only every few passes (new connections,
    // hang-ups, write space).
    bool direct_polling_ = false;
    int writers_waiting_ = 0; // connections watched for EPOLLOUT (their socket was full)
    std::vector<std::unique_ptr<FdWatch>> watches_;
    std::atomic<size_t> connection_count_{0};
    std::atomic<uint64_t> passes_{0};
    std::atomic<uint64_t> busy_passes_{0};
    std::atomic<bool> running_{false};
    doca_pe *pe_ = nullptr;
    doca_notification_handle_t pe_handle_ = -1;
};

} // namespace skiff::dataplane
