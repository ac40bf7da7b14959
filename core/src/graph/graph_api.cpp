// The doca_graph_* C API: argument and state checks, each refusal logged with its reason. The
// run itself is in graph.cpp.
#include "exec/context.hpp"
#include "exec/live_objects.hpp"
#include "exec/progress_engine.hpp"
#include "exec/task.hpp"
#include "graph/graph.hpp"

#include <skiff/core/log.hpp>

#include <new>

namespace {

spdlog::logger &logger() {
    static auto log = skiff::log::get("graph");
    return *log;
}

// Adds a node of `kind` to the graph, which owns it from then on; the caller sets what it runs.
// Nodes are added only while the graph is being built.
doca_error_t add_node(doca_graph *graph, doca_graph_node::Kind kind, doca_graph_node **out) {
    if (graph->started) {
        logger().error("graph: nodes can be added only before doca_graph_start");
        return DOCA_ERROR_BAD_STATE;
    }
    auto made = std::unique_ptr<doca_graph_node>(new (std::nothrow) doca_graph_node());
    if (!made) return DOCA_ERROR_NO_MEMORY;
    made->graph = graph;
    made->kind = kind;
    made->index = static_cast<uint32_t>(graph->nodes.size());
    *out = made.get();
    graph->nodes.push_back(std::move(made));
    return DOCA_SUCCESS;
}

// The node of `instance`'s graph, of the wanted kind, and an instance that is not running.
doca_error_t check_node_data(const doca_graph_instance *instance, const doca_graph_node *node,
                             doca_graph_node::Kind kind, const char *what) {
    if (instance->submitted) {
        logger().error("graph instance: {} data cannot change while the instance is submitted", what);
        return DOCA_ERROR_BAD_STATE;
    }
    if (node->graph != instance->graph) {
        logger().error("graph instance: the node belongs to another graph");
        return DOCA_ERROR_NOT_PERMITTED;
    }
    if (node->kind != kind) {
        logger().error("graph instance: node {} is not a {} node", node->index, what);
        return DOCA_ERROR_NOT_PERMITTED;
    }
    return DOCA_SUCCESS;
}

} // namespace

extern "C" {

doca_error_t doca_graph_create(doca_pe *pe, doca_graph **graph) {
    if (!pe || !graph) return DOCA_ERROR_INVALID_VALUE;
    auto *made = new (std::nothrow) doca_graph(pe);
    if (!made) return DOCA_ERROR_NO_MEMORY;
    pe->add_graph();
    skiff::core::live_exec_objects().add(made);
    *graph = made;
    return DOCA_SUCCESS;
}

doca_error_t doca_graph_destroy(doca_graph *graph) {
    if (!graph) return DOCA_ERROR_INVALID_VALUE;
    if (graph->started) {
        logger().error("graph destroy: stop the graph first");
        return DOCA_ERROR_BAD_STATE;
    }
    if (graph->used_by != 0) {
        logger().error("graph destroy: {} sub-graph nodes of other graphs still run this graph",
                       graph->used_by);
        return DOCA_ERROR_IN_USE;
    }
    if (!skiff::core::live_exec_objects().remove(graph)) {
        logger().error("graph destroy: {} is not a live graph (destroyed twice?)",
                       static_cast<void *>(graph));
        return DOCA_ERROR_INVALID_VALUE;
    }
    for (const auto &node : graph->nodes)
        if (node->kind == doca_graph_node::Kind::kSubGraph) --node->sub_graph->used_by;
    graph->pe->remove_graph();
    delete graph;
    return DOCA_SUCCESS;
}

doca_error_t doca_graph_set_conf(doca_graph *graph, doca_graph_completion_cb_t graph_completion_cb,
                                 doca_graph_completion_cb_t graph_error_cb, uint32_t num_instances) {
    if (!graph || !graph_completion_cb || !graph_error_cb || num_instances == 0) {
        logger().error(
            "graph set_conf: the graph, both callbacks and a number of instances above 0 are required");
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (graph->started) {
        logger().error("graph set_conf: the graph is started; stop it first");
        return DOCA_ERROR_BAD_STATE;
    }
    graph->on_done = graph_completion_cb;
    graph->on_error = graph_error_cb;
    graph->max_instances = num_instances;
    return DOCA_SUCCESS;
}

doca_error_t doca_graph_set_user_data(doca_graph *graph, doca_data user_data) {
    if (!graph) return DOCA_ERROR_INVALID_VALUE;
    if (graph->started) return DOCA_ERROR_BAD_STATE;
    graph->user_data = user_data;
    return DOCA_SUCCESS;
}

doca_error_t doca_graph_get_user_data(const doca_graph *graph, doca_data *user_data) {
    if (!graph || !user_data) return DOCA_ERROR_INVALID_VALUE;
    *user_data = graph->user_data;
    return DOCA_SUCCESS;
}

doca_error_t doca_graph_node_create_from_ctx(doca_graph *graph, const doca_ctx *ctx, doca_graph_node **node) {
    if (!graph || !ctx || !node) return DOCA_ERROR_INVALID_VALUE;
    if (doca_error_t err = add_node(graph, doca_graph_node::Kind::kCtx, node); err != DOCA_SUCCESS)
        return err;
    (*node)->ctx = ctx;
    return DOCA_SUCCESS;
}

doca_error_t doca_graph_node_create_from_user(doca_graph *graph, doca_graph_user_node_cb_t cb,
                                              doca_graph_node **node) {
    if (!graph || !cb || !node) return DOCA_ERROR_INVALID_VALUE;
    if (doca_error_t err = add_node(graph, doca_graph_node::Kind::kUser, node); err != DOCA_SUCCESS)
        return err;
    (*node)->cb = cb;
    return DOCA_SUCCESS;
}

doca_error_t doca_graph_node_create_from_graph(doca_graph *graph, doca_graph *sub_graph,
                                               doca_graph_node **node) {
    if (!graph || !sub_graph || !node) return DOCA_ERROR_INVALID_VALUE;
    // A started sub-graph cannot contain a graph that is still being built, so the only cycle
    // possible is the graph itself.
    if (sub_graph == graph) {
        logger().error("graph: a graph cannot run itself as a sub-graph");
        return DOCA_ERROR_NOT_PERMITTED;
    }
    if (!sub_graph->started) {
        logger().error("graph: a sub-graph must be started before a node runs it");
        return DOCA_ERROR_BAD_STATE;
    }
    if (sub_graph->pe != graph->pe) {
        logger().error("graph: a sub-graph must be bound to the same progress engine");
        return DOCA_ERROR_NOT_PERMITTED;
    }
    if (doca_error_t err = add_node(graph, doca_graph_node::Kind::kSubGraph, node); err != DOCA_SUCCESS)
        return err;
    (*node)->sub_graph = sub_graph;
    ++sub_graph->used_by;
    return DOCA_SUCCESS;
}

doca_error_t doca_graph_add_dependency(doca_graph *graph, doca_graph_node *from, doca_graph_node *to) {
    if (!graph || !from || !to) return DOCA_ERROR_INVALID_VALUE;
    if (from->graph != graph || to->graph != graph) {
        logger().error("graph add_dependency: both nodes must belong to the graph");
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (graph->started) {
        logger().error("graph add_dependency: dependencies can be added only before doca_graph_start");
        return DOCA_ERROR_BAD_STATE;
    }
    for (uint32_t child : from->children)
        if (child == to->index) return DOCA_SUCCESS; // already there
    if (graph->reaches(to->index, from->index)) {
        logger().error("graph add_dependency: node {} -> node {} would close a cycle", from->index,
                       to->index);
        return DOCA_ERROR_NOT_PERMITTED;
    }
    from->children.push_back(to->index);
    ++to->num_parents;
    return DOCA_SUCCESS;
}

doca_error_t doca_graph_start(doca_graph *graph) {
    if (!graph) return DOCA_ERROR_INVALID_VALUE;
    if (graph->started) return DOCA_SUCCESS;
    if (!graph->on_done) {
        logger().error("graph start: call doca_graph_set_conf first");
        return DOCA_ERROR_BAD_STATE;
    }
    bool has_ctx_node = false;
    for (const auto &node : graph->nodes) {
        if (node->kind != doca_graph_node::Kind::kCtx) continue;
        has_ctx_node = true;
        if (node->ctx->state() != DOCA_CTX_STATE_RUNNING) {
            logger().error("graph start: the {} ctx of node {} is not RUNNING", node->ctx->type_name(),
                           node->index);
            return DOCA_ERROR_BAD_STATE;
        }
        if (node->ctx->pe() != graph->pe) {
            logger().error("graph start: the {} ctx of node {} is connected to another progress engine",
                           node->ctx->type_name(), node->index);
            return DOCA_ERROR_NOT_PERMITTED;
        }
    }
    if (!has_ctx_node) {
        logger().error("graph start: a graph needs at least one ctx node");
        return DOCA_ERROR_BAD_STATE;
    }
    graph->started = true;
    return DOCA_SUCCESS;
}

doca_error_t doca_graph_stop(doca_graph *graph) {
    if (!graph) return DOCA_ERROR_INVALID_VALUE;
    if (graph->instances != 0) {
        logger().error("graph stop: {} instances still exist; destroy them first", graph->instances);
        return DOCA_ERROR_IN_USE;
    }
    graph->started = false;
    return DOCA_SUCCESS;
}

doca_error_t doca_graph_instance_create(const doca_graph *graph, doca_graph_instance **graph_instance) {
    if (!graph || !graph_instance) return DOCA_ERROR_INVALID_VALUE;
    if (!graph->started) {
        logger().error("graph instance create: start the graph first");
        return DOCA_ERROR_BAD_STATE;
    }
    auto *g = const_cast<doca_graph *>(graph); // the graph counts its instances
    if (g->instances >= g->max_instances) {
        logger().error("graph instance create: the graph already has its {} instances (doca_graph_set_conf)",
                       g->max_instances);
        return DOCA_ERROR_NO_MEMORY;
    }
    auto *made = new (std::nothrow) doca_graph_instance(g);
    if (!made) return DOCA_ERROR_NO_MEMORY;
    ++g->instances;
    skiff::core::live_exec_objects().add(made);
    *graph_instance = made;
    return DOCA_SUCCESS;
}

doca_error_t doca_graph_instance_destroy(doca_graph_instance *graph_instance) {
    if (!graph_instance) return DOCA_ERROR_INVALID_VALUE;
    if (graph_instance->submitted) {
        logger().error("graph instance destroy: the instance is submitted; wait for its callback");
        return DOCA_ERROR_IN_USE;
    }
    if (graph_instance->owner) {
        logger().error("graph instance destroy: the instance is another instance's sub-graph node data");
        return DOCA_ERROR_IN_USE;
    }
    if (!skiff::core::live_exec_objects().remove(graph_instance)) {
        logger().error("graph instance destroy: {} is not a live instance (destroyed twice?)",
                       static_cast<void *>(graph_instance));
        return DOCA_ERROR_INVALID_VALUE;
    }
    // Sub-graph instances it ran may be destroyed from now on.
    for (auto &run : graph_instance->runs)
        if (run.sub) run.sub->owner = nullptr;
    --graph_instance->graph->instances;
    delete graph_instance;
    return DOCA_SUCCESS;
}

doca_error_t doca_graph_instance_set_user_data(doca_graph_instance *graph_instance, doca_data user_data) {
    if (!graph_instance) return DOCA_ERROR_INVALID_VALUE;
    if (graph_instance->submitted) return DOCA_ERROR_IN_USE;
    graph_instance->user_data = user_data;
    return DOCA_SUCCESS;
}

doca_error_t doca_graph_instance_get_user_data(const doca_graph_instance *graph_instance,
                                               doca_data *user_data) {
    if (!graph_instance || !user_data) return DOCA_ERROR_INVALID_VALUE;
    *user_data = graph_instance->user_data;
    return DOCA_SUCCESS;
}

doca_error_t doca_graph_instance_set_ctx_node_data(doca_graph_instance *graph_instance, doca_graph_node *node,
                                                   doca_task *task) {
    if (!graph_instance || !node || !task) return DOCA_ERROR_INVALID_VALUE;
    if (doca_error_t err = check_node_data(graph_instance, node, doca_graph_node::Kind::kCtx, "ctx");
        err != DOCA_SUCCESS)
        return err;
    if (task->ctx != node->ctx) {
        logger().error("graph instance: the task of ctx node {} belongs to another ctx", node->index);
        return DOCA_ERROR_NOT_PERMITTED;
    }
    graph_instance->runs[node->index].task = task;
    return DOCA_SUCCESS;
}

doca_error_t doca_graph_instance_set_user_node_data(doca_graph_instance *graph_instance,
                                                    doca_graph_node *node, void *cookie) {
    if (!graph_instance || !node) return DOCA_ERROR_INVALID_VALUE;
    if (doca_error_t err = check_node_data(graph_instance, node, doca_graph_node::Kind::kUser, "user");
        err != DOCA_SUCCESS)
        return err;
    graph_instance->runs[node->index].cookie = cookie;
    return DOCA_SUCCESS;
}

doca_error_t doca_graph_instance_set_sub_graph_node_data(doca_graph_instance *graph_instance,
                                                         doca_graph_node *node,
                                                         doca_graph_instance *sub_graph_instance) {
    if (!graph_instance || !node || !sub_graph_instance) return DOCA_ERROR_INVALID_VALUE;
    if (doca_error_t err =
            check_node_data(graph_instance, node, doca_graph_node::Kind::kSubGraph, "sub-graph");
        err != DOCA_SUCCESS)
        return err;
    if (sub_graph_instance->graph != node->sub_graph) {
        logger().error("graph instance: sub-graph node {} runs instances of its own sub-graph only",
                       node->index);
        return DOCA_ERROR_NOT_PERMITTED;
    }
    if (sub_graph_instance->submitted) {
        logger().error("graph instance: the sub-graph instance is submitted");
        return DOCA_ERROR_NOT_PERMITTED;
    }
    if (sub_graph_instance->owner &&
        (sub_graph_instance->owner != graph_instance || sub_graph_instance->owner_node != node->index)) {
        logger().error("graph instance: the sub-graph instance is already another node's data");
        return DOCA_ERROR_NOT_PERMITTED;
    }
    auto &run = graph_instance->runs[node->index];
    if (run.sub) run.sub->owner = nullptr; // replaced: the old one is free again
    run.sub = sub_graph_instance;
    sub_graph_instance->owner = graph_instance;
    sub_graph_instance->owner_node = node->index;
    return DOCA_SUCCESS;
}

doca_error_t doca_graph_instance_submit(doca_graph_instance *graph_instance) {
    if (!graph_instance) return DOCA_ERROR_INVALID_VALUE;
    return graph_instance->submit();
}

} // extern "C"
