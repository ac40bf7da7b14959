/*
 * skiff core: DOCA Graph, a set of tasks, user callbacks and sub-graphs with explicit dependencies,
 * run as one unit on a progress engine.
 *
 * Build a graph once: create it on a PE, set its callbacks and how many instances it may have,
 * add nodes (a ctx node runs one task of a ctx, a user node runs a callback, a sub-graph node runs
 * an instance of another started graph), add dependencies (no cycles), start it. Every ctx of a
 * ctx node must be RUNNING on the graph's PE when the graph starts, and a graph needs at least one
 * ctx node. Then create instances, give every node of an instance its data (the task, the cookie,
 * the sub-graph instance) and submit the instance: its roots (nodes without parents) start at
 * once, a node starts when all its parents have completed, and the instance completes when every
 * node has. The graph's completion callback, or its error callback when a node failed, runs
 * inside doca_pe_progress(); after a failure no further node starts, and the callback comes once
 * the nodes already running have finished. The callbacks of a task run by a graph are not called
 * (the graph's are), nor are a sub-graph's own callbacks when it runs as a node. A completed
 * instance may be submitted again.
 */
#ifndef DOCA_GRAPH_H_
#define DOCA_GRAPH_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_ctx;
struct doca_pe;
struct doca_task;

struct doca_graph;
struct doca_graph_node;
struct doca_graph_instance;

/** Instance completion (or error) callback, run inside doca_pe_progress(). */
typedef void (*doca_graph_completion_cb_t)(struct doca_graph_instance *instance,
                                           union doca_data instance_user_data,
                                           union doca_data graph_user_data);

/**
 * User node callback, run inside doca_pe_progress() when the node's parents have completed.
 * Anything but DOCA_SUCCESS fails the node, and the instance.
 */
typedef doca_error_t (*doca_graph_user_node_cb_t)(void *cookie);

/** Creates an empty graph bound to a PE. DOCA_ERROR_INVALID_VALUE, DOCA_ERROR_NO_MEMORY. */
DOCA_EXPERIMENTAL
doca_error_t doca_graph_create(struct doca_pe *pe, struct doca_graph **graph);

/**
 * Destroys a stopped graph (its nodes with it). DOCA_ERROR_BAD_STATE while started,
 * DOCA_ERROR_IN_USE while a node of another graph runs it as a sub-graph.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_graph_destroy(struct doca_graph *graph);

/**
 * The completion and error callbacks and the number of instances the graph may have at once.
 * Before start (DOCA_ERROR_BAD_STATE after); both callbacks and num_instances > 0 are required.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_graph_set_conf(struct doca_graph *graph, doca_graph_completion_cb_t graph_completion_cb,
                                 doca_graph_completion_cb_t graph_error_cb, uint32_t num_instances);

/** Before start (DOCA_ERROR_BAD_STATE after). */
DOCA_EXPERIMENTAL
doca_error_t doca_graph_set_user_data(struct doca_graph *graph, union doca_data user_data);

DOCA_EXPERIMENTAL
doca_error_t doca_graph_get_user_data(const struct doca_graph *graph, union doca_data *user_data);

/**
 * Adds a ctx node (a root until a dependency says otherwise). The node belongs to the graph and
 * goes with it. Before start: DOCA_ERROR_BAD_STATE after.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_graph_node_create_from_ctx(struct doca_graph *graph, const struct doca_ctx *ctx,
                                             struct doca_graph_node **node);

/** Adds a user node. Before start: DOCA_ERROR_BAD_STATE after. */
DOCA_EXPERIMENTAL
doca_error_t doca_graph_node_create_from_user(struct doca_graph *graph, doca_graph_user_node_cb_t cb,
                                              struct doca_graph_node **node);

/**
 * Adds a node that runs an instance of sub_graph. sub_graph must be started, on the same PE
 * (DOCA_ERROR_NOT_PERMITTED otherwise, and for a graph that would contain itself); graph must
 * not be (DOCA_ERROR_BAD_STATE).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_graph_node_create_from_graph(struct doca_graph *graph, struct doca_graph *sub_graph,
                                               struct doca_graph_node **node);

/**
 * `to` starts only after `from` has completed. Before start (DOCA_ERROR_BAD_STATE after);
 * DOCA_ERROR_NOT_PERMITTED when the dependency would close a cycle; adding the same dependency
 * twice changes nothing.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_graph_add_dependency(struct doca_graph *graph, struct doca_graph_node *from,
                                       struct doca_graph_node *to);

/**
 * Starts the graph (SUCCESS if already started). DOCA_ERROR_BAD_STATE without a ctx node, without
 * set_conf, or when a ctx node's ctx is not RUNNING; DOCA_ERROR_NOT_PERMITTED when that ctx is
 * connected to another PE.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_graph_start(struct doca_graph *graph);

/** Stops the graph (SUCCESS if stopped). DOCA_ERROR_IN_USE while any of its instances exists. */
DOCA_EXPERIMENTAL
doca_error_t doca_graph_stop(struct doca_graph *graph);

/**
 * Creates an instance of a started graph (DOCA_ERROR_BAD_STATE if not started); DOCA_ERROR_NO_MEMORY
 * when the graph already has the num_instances given to set_conf.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_graph_instance_create(const struct doca_graph *graph,
                                        struct doca_graph_instance **graph_instance);

/**
 * DOCA_ERROR_IN_USE while submitted or while set as another instance's sub-graph node data.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_graph_instance_destroy(struct doca_graph_instance *graph_instance);

/** DOCA_ERROR_IN_USE while submitted. */
DOCA_EXPERIMENTAL
doca_error_t doca_graph_instance_set_user_data(struct doca_graph_instance *graph_instance,
                                               union doca_data user_data);

DOCA_EXPERIMENTAL
doca_error_t doca_graph_instance_get_user_data(const struct doca_graph_instance *graph_instance,
                                               union doca_data *user_data);

/**
 * The task a ctx node runs in this instance: allocated from the node's ctx, and alive as long as
 * the instance. Its own callbacks are not called when the graph runs it. DOCA_ERROR_BAD_STATE
 * while submitted; DOCA_ERROR_NOT_PERMITTED for a node of another graph, a node that is not a ctx
 * node, or a task of another ctx.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_graph_instance_set_ctx_node_data(struct doca_graph_instance *graph_instance,
                                                   struct doca_graph_node *node, struct doca_task *task);

/** The cookie a user node's callback receives in this instance. Errors as set_ctx_node_data. */
DOCA_EXPERIMENTAL
doca_error_t doca_graph_instance_set_user_node_data(struct doca_graph_instance *graph_instance,
                                                    struct doca_graph_node *node, void *cookie);

/**
 * The instance a sub-graph node runs: created by the node's sub-graph and not submitted
 * (DOCA_ERROR_NOT_PERMITTED otherwise). Errors as set_ctx_node_data.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_graph_instance_set_sub_graph_node_data(struct doca_graph_instance *graph_instance,
                                                         struct doca_graph_node *node,
                                                         struct doca_graph_instance *sub_graph_instance);

/**
 * Starts the instance's roots. DOCA_ERROR_IN_USE when already submitted; DOCA_ERROR_INVALID_VALUE
 * when a node has no data (a ctx node without a task, a sub-graph node without an instance) or a
 * task is not allocated; DOCA_ERROR_BAD_STATE when a task is already in flight or its ctx is not
 * RUNNING. Nothing has started when it fails.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_graph_instance_submit(struct doca_graph_instance *graph_instance);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_GRAPH_H_ */
