#include "graph/graph.hpp"

#include "exec/context.hpp"
#include "exec/progress_engine.hpp"
#include "exec/task.hpp"

#include <skiff/core/log.hpp>

namespace {

spdlog::logger &logger() {
    static auto log = skiff::log::get("graph");
    return *log;
}

} // namespace

// True when `to` can be reached from `from` along dependencies (a new edge to -> from would
// close a cycle). Graphs are small and this runs only while building one.
bool doca_graph::reaches(uint32_t from, uint32_t to) const {
    std::vector<uint32_t> stack{from};
    std::vector<bool> seen(nodes.size(), false);
    while (!stack.empty()) {
        uint32_t at = stack.back();
        stack.pop_back();
        if (at == to) return true;
        if (seen[at]) continue;
        seen[at] = true;
        for (uint32_t child : nodes[at]->children) stack.push_back(child);
    }
    return false;
}

// Every node must be able to start before any does: a run that failed half way through its roots
// would leave tasks in flight that the application believes it still owns.
doca_error_t doca_graph_instance::check_can_start() const {
    for (const auto &node : graph->nodes) {
        const Run &run = runs[node->index];
        switch (node->kind) {
        case doca_graph_node::Kind::kCtx:
            if (!run.task || !run.task->allocated) {
                logger().error("graph instance submit: ctx node {} has no task (or it was freed)",
                               node->index);
                return DOCA_ERROR_INVALID_VALUE;
            }
            if (run.task->in_flight) {
                logger().error("graph instance submit: the task of ctx node {} is already in flight",
                               node->index);
                return DOCA_ERROR_BAD_STATE;
            }
            if (run.task->ctx->state() != DOCA_CTX_STATE_RUNNING) {
                logger().error("graph instance submit: the {} ctx of node {} is not RUNNING",
                               run.task->ctx->type_name(), node->index);
                return DOCA_ERROR_BAD_STATE;
            }
            break;
        case doca_graph_node::Kind::kSubGraph:
            if (!run.sub) {
                logger().error("graph instance submit: sub-graph node {} has no instance", node->index);
                return DOCA_ERROR_INVALID_VALUE;
            }
            if (run.sub->submitted) {
                logger().error(
                    "graph instance submit: the instance of sub-graph node {} is already submitted",
                    node->index);
                return DOCA_ERROR_IN_USE;
            }
            if (doca_error_t err = run.sub->check_can_start(); err != DOCA_SUCCESS) return err;
            break;
        case doca_graph_node::Kind::kUser:
            break;
        }
    }
    return DOCA_SUCCESS;
}

doca_error_t doca_graph_instance::submit() {
    if (submitted) {
        logger().error("graph instance submit: the instance is already submitted");
        return DOCA_ERROR_IN_USE;
    }
    if (doca_error_t err = check_can_start(); err != DOCA_SUCCESS) return err;
    start();
    return DOCA_SUCCESS;
}

void doca_graph_instance::start() {
    submitted = true;
    running_ = 1; // held while the roots start, so that no nested completion can end the run
    status_ = DOCA_SUCCESS;
    for (const auto &node : graph->nodes) runs[node->index].parents_left = node->num_parents;
    for (const auto &node : graph->nodes)
        if (node->num_parents == 0 && status_ == DOCA_SUCCESS) launch(node->index);
    if (--running_ == 0) finish();
}

void doca_graph_instance::launch(uint32_t index) {
    const doca_graph_node &node = *graph->nodes[index];
    Run &run = runs[index];
    ++running_;
    switch (node.kind) {
    case doca_graph_node::Kind::kCtx: {
        doca_task *task = run.task;
        task->graph_instance = this;
        task->graph_node = index;
        if (doca_error_t err = task->ctx->submit(task, false); err != DOCA_SUCCESS) {
            // Checked at submit for the roots; a later node's ctx may have stopped since.
            task->graph_instance = nullptr;
            node_done(index, err);
        }
        break;
    }
    case doca_graph_node::Kind::kUser:
        // Run by the next progress call: one callback per progress, never inside submit.
        graph->pe->post_graph_step({this, index});
        break;
    case doca_graph_node::Kind::kSubGraph:
        if (doca_error_t err = run.sub->check_can_start(); err != DOCA_SUCCESS) {
            node_done(index, err);
        } else {
            run.sub->as_node_ = true;
            run.sub->start();
        }
        break;
    }
}

void doca_graph_instance::run_user_node(uint32_t index) {
    // After a failure no new node runs; one already queued finishes without running.
    doca_error_t status = DOCA_ERROR_SHUTDOWN;
    if (status_ == DOCA_SUCCESS) status = graph->nodes[index]->cb(runs[index].cookie);
    node_done(index, status);
}

// The finished node stays counted in running_ until its children have started, so that a child
// failing at once cannot end the run (and run the callback) while this loop still walks it.
void doca_graph_instance::node_done(uint32_t index, doca_error_t status) {
    if (status != DOCA_SUCCESS && status_ == DOCA_SUCCESS) {
        logger().debug("graph instance: node {} failed ({}); no further node starts", index,
                       doca_error_get_name(status));
        status_ = status;
    }
    for (uint32_t child : graph->nodes[index]->children)
        if (--runs[child].parents_left == 0 && status_ == DOCA_SUCCESS) launch(child);
    if (--running_ == 0) finish();
}

// Every started node has finished: without a failure that is every node (each starts once its
// last parent finishes, and the graph has no cycle), otherwise a failure stopped the run. The
// callback may submit the instance again or destroy it: nothing touches it afterwards.
void doca_graph_instance::finish() {
    submitted = false;
    const doca_error_t status = status_;
    if (as_node_) { // a sub-graph node's run: its parent goes on, this graph's callbacks stay silent
        as_node_ = false;
        owner->node_done(owner_node, status);
        return;
    }
    doca_graph_completion_cb_t cb = status == DOCA_SUCCESS ? graph->on_done : graph->on_error;
    cb(this, user_data, graph->user_data);
}

namespace skiff::core {

void graph_task_done(doca_task *task) {
    doca_graph_instance *instance = task->graph_instance;
    task->graph_instance = nullptr; // the application may run the task on its own later
    instance->node_done(task->graph_node, task->status);
}

} // namespace skiff::core
