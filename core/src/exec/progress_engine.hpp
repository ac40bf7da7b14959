// The progress engine: the one place where completions, events and ctx state changes reach the
// application, one unit of work per doca_pe_progress() call, on the caller's thread.
#pragma once

#include "exec/notifier.hpp"
#include "graph/graph.hpp"

#include <doca_pe.h>

#include <cstddef>
#include <vector>

struct doca_pe {
  public:
    doca_pe() = default;
    ~doca_pe();
    doca_pe(const doca_pe &) = delete;
    doca_pe &operator=(const doca_pe &) = delete;

    doca_error_t init();
    skiff::core::Notifier &notifier() { return notifier_; }
    // The notification handle: an epoll set holding the notifier's eventfd and the readiness fds
    // of the connected ctxs that have their own (comch sockets). It becomes readable when the
    // notifier is signalled or when such an fd is; that is how a message arriving from another
    // process wakes an application sleeping on the handle without any thread of ours.
    int handle() const { return wait_fd_; }
    // A ctx's readiness fd joins (leaves) the handle's set. Level-triggered: readable while the
    // fd is, so the application finds the work by progressing.
    doca_error_t watch(int fd);
    void unwatch(int fd);

    doca_error_t connect(doca_ctx *ctx);
    // Called when a connected ctx is destroyed.
    void disconnect(doca_ctx *ctx);
    size_t num_connected() const { return ctxs_.size(); }
    size_t num_graphs() const { return graphs_; }

    uint8_t progress();
    // True while this engine's doca_pe_progress() runs on the calling thread, i.e. the caller is
    // one of its callbacks (task, event or state change).
    bool running_callbacks_on_this_thread() const;
    // Arms the notifier; signals at once when some ctx already has work ready.
    void request_notification();
    size_t inflight() const;
    // Graphs bound to this engine (doca_graph_create): it cannot be destroyed under them.
    void add_graph() { ++graphs_; }
    void remove_graph() { --graphs_; }
    // A graph node (a user node) to run at a coming progress call, one per call like any callback.
    void post_graph_step(skiff::core::GraphStep step);

  private:
    bool run_graph_step();

    std::vector<doca_ctx *> ctxs_;
    size_t cursor_ = 0; // round-robin start, so that no ctx starves the others
    bool in_progress_ = false;
    size_t graphs_ = 0;
    // User nodes of graph instances waiting for a progress call, from graph_head_ on; cleared (its
    // capacity kept) whenever it runs empty, so that it stops allocating once it has grown.
    std::vector<skiff::core::GraphStep> graph_steps_;
    size_t graph_head_ = 0;
    skiff::core::Notifier notifier_;
    int wait_fd_ = -1;
};
