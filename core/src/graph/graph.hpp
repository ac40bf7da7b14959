// DOCA Graph: the graph (its nodes and dependencies, fixed once started) and its instances (the
// data of every node and the state of one run). Everything runs on the graph's PE thread: submit
// from the application, node completions and user nodes inside doca_pe_progress().
#pragma once

#include <doca_graph.h>

#include <cstdint>
#include <memory>
#include <vector>

struct doca_pe;

struct doca_graph_node {
    enum class Kind { kCtx, kUser, kSubGraph };

    doca_graph *graph = nullptr;
    uint32_t index = 0; // position in the graph's node list, and in each instance's runs
    Kind kind = Kind::kCtx;
    const doca_ctx *ctx = nullptr;          // kCtx
    doca_graph_user_node_cb_t cb = nullptr; // kUser
    doca_graph *sub_graph = nullptr;        // kSubGraph
    std::vector<uint32_t> children;
    uint32_t num_parents = 0;
};

struct doca_graph {
    explicit doca_graph(doca_pe *engine) : pe(engine) {}

    bool reaches(uint32_t from, uint32_t to) const;

    doca_pe *pe;
    bool started = false;
    doca_graph_completion_cb_t on_done = nullptr;
    doca_graph_completion_cb_t on_error = nullptr;
    uint32_t max_instances = 0;
    uint32_t instances = 0; // alive
    uint32_t used_by = 0;   // sub-graph nodes of other graphs that run this one
    doca_data user_data{};
    std::vector<std::unique_ptr<doca_graph_node>> nodes;
};

struct doca_graph_instance {
    // One node in this instance: its data, and how far the current run has got.
    struct Run {
        doca_task *task = nullptr;          // kCtx
        void *cookie = nullptr;             // kUser
        doca_graph_instance *sub = nullptr; // kSubGraph
        uint32_t parents_left = 0;
    };

    explicit doca_graph_instance(doca_graph *g) : graph(g), runs(g->nodes.size()) {}

    // Checks that every node can start, then starts the roots. Nothing starts when it fails.
    doca_error_t submit();
    // A node finished (task completion, user callback, sub-graph instance).
    void node_done(uint32_t node, doca_error_t status);
    // Runs a user node the PE queued (inside doca_pe_progress).
    void run_user_node(uint32_t node);

    doca_graph *graph;
    std::vector<Run> runs;
    doca_data user_data{};
    bool submitted = false;
    // Set as a sub-graph node's data: the instance whose node runs this one, and the node.
    doca_graph_instance *owner = nullptr;
    uint32_t owner_node = 0;

  private:
    doca_error_t check_can_start() const;
    void start();
    void launch(uint32_t node);
    void finish();

    bool as_node_ = false; // this run was started by owner's sub-graph node
    uint32_t running_ = 0; // nodes started and not finished
    doca_error_t status_ = DOCA_SUCCESS;
};

namespace skiff::core {

// A node of a submitted instance that the PE runs at its next progress (a user node).
struct GraphStep {
    doca_graph_instance *instance;
    uint32_t node;
};

// Called by the ctx when a task that a graph runs completes (instead of the task's callbacks).
void graph_task_done(doca_task *task);

} // namespace skiff::core
