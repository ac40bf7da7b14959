// DOCA Graph (spec 1.14, checklist 5.5 item 41): dependencies decide the order, roots start together,
// an instance completes when every node has, cycles and graphs without a ctx node are refused, the
// ctx must run on the graph's PE, a failure stops new nodes but waits for running ones, a PE mixes
// graph instances and standalone tasks, and sub-graphs run as nodes. The ctx nodes run notify_add
// tasks of a sync event used as a ctx: each task fetches the counter before adding to it, so the
// fetched values give the order in which the tasks really ran.
#include "pe_support.hpp"

#include <doca_ctx.h>
#include <doca_graph.h>
#include <doca_pe.h>
#include <doca_sync_event.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

using skiff::test::progress_all;
using skiff::test::SyncCtxFixture;

namespace {

struct GraphTest : SyncCtxFixture {
    static inline GraphTest *self = nullptr;

    std::vector<std::string> events; // user nodes, standalone tasks and instance callbacks, in order
    int instances_done = 0;
    int instances_failed = 0;
    int standalone_done = 0;
    std::vector<doca_graph *> graphs;
    std::vector<doca_graph_instance *> instances;
    std::vector<doca_sync_event_task_notify_add *> tasks;
    uint64_t fetched[16] = {};

    // A task that a graph runs must not reach its own callbacks; a standalone one does.
    static void task_ok(doca_sync_event_task_notify_add *task, doca_data ud, doca_data) {
        if (ud.u64 != 0xABCD) ADD_FAILURE() << "a graph task reached its own completion callback";
        ++self->standalone_done;
        self->events.push_back("standalone");
        doca_task_free(doca_sync_event_task_notify_add_as_doca_task(task));
    }
    static void task_err(doca_sync_event_task_notify_add *, doca_data, doca_data) {
        ADD_FAILURE() << "a task reached its own error callback";
    }
    static void graph_ok(doca_graph_instance *, doca_data instance_ud, doca_data graph_ud) {
        ++self->instances_done;
        self->events.push_back("done:" + std::to_string(instance_ud.u64) + ":" +
                               std::to_string(graph_ud.u64));
    }
    static void graph_err(doca_graph_instance *, doca_data instance_ud, doca_data) {
        ++self->instances_failed;
        self->events.push_back("failed:" + std::to_string(instance_ud.u64));
    }
    // The cookie names the node; "fail" makes it fail.
    static doca_error_t user_node(void *cookie) {
        std::string name = static_cast<const char *>(cookie);
        self->events.push_back(name);
        return name.rfind("fail", 0) == 0 ? DOCA_ERROR_IO_FAILED : DOCA_SUCCESS;
    }

    void SetUp() override {
        SyncCtxFixture::SetUp();
        self = this;
        start_with_notify_add(task_ok, task_err);
    }

    void TearDown() override {
        for (auto *i : instances) EXPECT_EQ(doca_graph_instance_destroy(i), DOCA_SUCCESS);
        for (auto it = graphs.rbegin(); it != graphs.rend(); ++it) {
            EXPECT_EQ(doca_graph_stop(*it), DOCA_SUCCESS);
            EXPECT_EQ(doca_graph_destroy(*it), DOCA_SUCCESS);
        }
        for (auto *t : tasks) doca_task_free(doca_sync_event_task_notify_add_as_doca_task(t));
        SyncCtxFixture::TearDown();
    }

    doca_graph *new_graph(uint32_t num_instances = 4, uint64_t user_data = 7) {
        doca_graph *g = nullptr;
        EXPECT_EQ(doca_graph_create(pe, &g), DOCA_SUCCESS);
        EXPECT_EQ(doca_graph_set_conf(g, graph_ok, graph_err, num_instances), DOCA_SUCCESS);
        doca_data ud{};
        ud.u64 = user_data;
        EXPECT_EQ(doca_graph_set_user_data(g, ud), DOCA_SUCCESS);
        graphs.push_back(g);
        return g;
    }
    doca_graph_node *ctx_node(doca_graph *g) {
        doca_graph_node *n = nullptr;
        EXPECT_EQ(doca_graph_node_create_from_ctx(g, ctx, &n), DOCA_SUCCESS);
        return n;
    }
    doca_graph_node *user(doca_graph *g) {
        doca_graph_node *n = nullptr;
        EXPECT_EQ(doca_graph_node_create_from_user(g, user_node, &n), DOCA_SUCCESS);
        return n;
    }
    doca_graph_instance *new_instance(doca_graph *g, uint64_t user_data = 1) {
        doca_graph_instance *i = nullptr;
        EXPECT_EQ(doca_graph_instance_create(g, &i), DOCA_SUCCESS);
        doca_data ud{};
        ud.u64 = user_data;
        EXPECT_EQ(doca_graph_instance_set_user_data(i, ud), DOCA_SUCCESS);
        instances.push_back(i);
        return i;
    }
    // A notify_add(+1) task that stores the counter it found in fetched[slot].
    doca_task *add_task(size_t slot) {
        doca_sync_event_task_notify_add *t = nullptr;
        EXPECT_EQ(doca_sync_event_task_notify_add_alloc_init(event, 1, &fetched[slot], {}, &t), DOCA_SUCCESS);
        tasks.push_back(t);
        return doca_sync_event_task_notify_add_as_doca_task(t);
    }
    size_t index_of(const std::string &event_name) const {
        for (size_t i = 0; i < events.size(); ++i)
            if (events[i] == event_name) return i;
        return events.size();
    }
};

// Diamond: A -> (B, C) -> D. A and D are tasks, B and C user nodes. A runs first (it finds the
// counter at 0), D last (at 1: only A added before it), the user nodes in between; the instance
// completes once, with both user data, and no task callback runs.
TEST_F(GraphTest, DiamondRunsInDependencyOrderAndCompletesOnce) {
    doca_graph *g = new_graph(4, 7);
    doca_graph_node *a = ctx_node(g), *b = user(g), *c = user(g), *d = ctx_node(g);
    ASSERT_EQ(doca_graph_add_dependency(g, a, b), DOCA_SUCCESS);
    ASSERT_EQ(doca_graph_add_dependency(g, a, c), DOCA_SUCCESS);
    ASSERT_EQ(doca_graph_add_dependency(g, b, d), DOCA_SUCCESS);
    ASSERT_EQ(doca_graph_add_dependency(g, c, d), DOCA_SUCCESS);
    ASSERT_EQ(doca_graph_add_dependency(g, c, d), DOCA_SUCCESS); // twice: no second edge
    ASSERT_EQ(doca_graph_start(g), DOCA_SUCCESS);
    doca_graph_instance *inst = new_instance(g, 3);
    ASSERT_EQ(doca_graph_instance_set_ctx_node_data(inst, a, add_task(0)), DOCA_SUCCESS);
    ASSERT_EQ(doca_graph_instance_set_ctx_node_data(inst, d, add_task(1)), DOCA_SUCCESS);
    ASSERT_EQ(doca_graph_instance_set_user_node_data(inst, b, const_cast<char *>("B")), DOCA_SUCCESS);
    ASSERT_EQ(doca_graph_instance_set_user_node_data(inst, c, const_cast<char *>("C")), DOCA_SUCCESS);

    ASSERT_EQ(doca_graph_instance_submit(inst), DOCA_SUCCESS);
    EXPECT_TRUE(events.empty()) << "nothing runs inside submit";
    EXPECT_EQ(doca_graph_instance_submit(inst), DOCA_ERROR_IN_USE);
    EXPECT_EQ(doca_graph_instance_set_user_node_data(inst, b, nullptr), DOCA_ERROR_BAD_STATE);
    EXPECT_EQ(doca_graph_instance_destroy(inst), DOCA_ERROR_IN_USE);
    progress_all(pe);

    EXPECT_EQ(instances_done, 1);
    EXPECT_EQ(instances_failed, 0);
    EXPECT_EQ(standalone_done, 0);
    EXPECT_EQ(fetched[0], 0u); // A first
    EXPECT_EQ(fetched[1], 1u); // D after A, and only A
    ASSERT_EQ(events.size(), 3u);
    EXPECT_EQ(events[2], "done:3:7");
    EXPECT_NE(index_of("B"), events.size());
    EXPECT_NE(index_of("C"), events.size());
    uint64_t counter = 0;
    ASSERT_EQ(doca_sync_event_get(event, &counter), DOCA_SUCCESS);
    EXPECT_EQ(counter, 2u);
    for (auto *t : tasks)
        EXPECT_EQ(doca_task_get_status(doca_sync_event_task_notify_add_as_doca_task(t)), DOCA_SUCCESS);
}

// Every root starts at submit: three independent tasks are all in flight before any completes.
TEST_F(GraphTest, RootsStartTogether) {
    doca_graph *g = new_graph();
    doca_graph_node *n[3] = {ctx_node(g), ctx_node(g), ctx_node(g)};
    ASSERT_EQ(doca_graph_start(g), DOCA_SUCCESS);
    doca_graph_instance *inst = new_instance(g);
    for (size_t i = 0; i < 3; ++i)
        ASSERT_EQ(doca_graph_instance_set_ctx_node_data(inst, n[i], add_task(i)), DOCA_SUCCESS);
    ASSERT_EQ(doca_graph_instance_submit(inst), DOCA_SUCCESS);
    size_t inflight = 0;
    ASSERT_EQ(doca_ctx_get_num_inflight_tasks(ctx, &inflight), DOCA_SUCCESS);
    EXPECT_EQ(inflight, 3u);
    progress_all(pe);
    EXPECT_EQ(instances_done, 1);
}

// A completed instance may be submitted again: it runs twice, the tasks find the counter where
// the previous run left it. (tests/c/graph_sample.c resubmits from the completion callback.)
TEST_F(GraphTest, CompletedInstanceRunsAgain) {
    doca_graph *g = new_graph();
    doca_graph_node *a = ctx_node(g), *b = ctx_node(g);
    ASSERT_EQ(doca_graph_add_dependency(g, a, b), DOCA_SUCCESS);
    ASSERT_EQ(doca_graph_start(g), DOCA_SUCCESS);
    doca_graph_instance *inst = new_instance(g);
    ASSERT_EQ(doca_graph_instance_set_ctx_node_data(inst, a, add_task(0)), DOCA_SUCCESS);
    ASSERT_EQ(doca_graph_instance_set_ctx_node_data(inst, b, add_task(1)), DOCA_SUCCESS);
    for (int run = 0; run < 2; ++run) {
        ASSERT_EQ(doca_graph_instance_submit(inst), DOCA_SUCCESS);
        progress_all(pe);
        EXPECT_EQ(instances_done, run + 1);
        EXPECT_EQ(fetched[0], static_cast<uint64_t>(2 * run));
        EXPECT_EQ(fetched[1], static_cast<uint64_t>(2 * run + 1));
    }
}

// A node that fails starts nothing after it; the error callback comes once every node already
// running has finished (here a task started with it as a root), and never the completion one.
TEST_F(GraphTest, FailureStopsNewNodesAndWaitsForRunningOnes) {
    doca_graph *g = new_graph();
    doca_graph_node *failing = user(g), *after = ctx_node(g), *running = ctx_node(g);
    ASSERT_EQ(doca_graph_add_dependency(g, failing, after), DOCA_SUCCESS);
    ASSERT_EQ(doca_graph_start(g), DOCA_SUCCESS);
    doca_graph_instance *inst = new_instance(g, 9);
    ASSERT_EQ(doca_graph_instance_set_user_node_data(inst, failing, const_cast<char *>("fail")),
              DOCA_SUCCESS);
    doca_task *after_task = add_task(0);
    ASSERT_EQ(doca_graph_instance_set_ctx_node_data(inst, after, after_task), DOCA_SUCCESS);
    ASSERT_EQ(doca_graph_instance_set_ctx_node_data(inst, running, add_task(1)), DOCA_SUCCESS);
    ASSERT_EQ(doca_graph_instance_submit(inst), DOCA_SUCCESS);
    progress_all(pe);
    EXPECT_EQ(instances_done, 0);
    EXPECT_EQ(instances_failed, 1);
    EXPECT_EQ(events.back(), "failed:9");
    size_t inflight = 1;
    ASSERT_EQ(doca_ctx_get_num_inflight_tasks(ctx, &inflight), DOCA_SUCCESS);
    EXPECT_EQ(inflight, 0u);
    uint64_t counter = 0;
    ASSERT_EQ(doca_sync_event_get(event, &counter), DOCA_SUCCESS);
    EXPECT_EQ(counter, 1u) << "only the running root added; the node after the failure never ran";
    // The instance can run again once the cause is gone.
    ASSERT_EQ(doca_graph_instance_set_user_node_data(inst, failing, const_cast<char *>("ok")), DOCA_SUCCESS);
    ASSERT_EQ(doca_graph_instance_submit(inst), DOCA_SUCCESS);
    progress_all(pe);
    EXPECT_EQ(instances_done, 1);
}

// A ctx stopped under a running instance flushes its task: the instance fails.
TEST_F(GraphTest, StoppedCtxFailsTheInstance) {
    doca_graph *g = new_graph();
    doca_graph_node *a = ctx_node(g);
    ASSERT_EQ(doca_graph_start(g), DOCA_SUCCESS);
    doca_graph_instance *inst = new_instance(g);
    doca_task *task = add_task(0);
    ASSERT_EQ(doca_graph_instance_set_ctx_node_data(inst, a, task), DOCA_SUCCESS);
    ASSERT_EQ(doca_graph_instance_submit(inst), DOCA_SUCCESS);
    doca_ctx_stop(ctx);
    progress_all(pe);
    EXPECT_EQ(instances_failed, 1);
    EXPECT_EQ(doca_task_get_status(task), DOCA_ERROR_SHUTDOWN);
}

// Graph instances and standalone tasks share one PE; each reaches its own callbacks.
TEST_F(GraphTest, PeMixesGraphInstancesAndStandaloneTasks) {
    doca_graph *g = new_graph();
    doca_graph_node *a = ctx_node(g), *b = user(g);
    ASSERT_EQ(doca_graph_add_dependency(g, a, b), DOCA_SUCCESS);
    ASSERT_EQ(doca_graph_start(g), DOCA_SUCCESS);
    doca_graph_instance *inst = new_instance(g);
    ASSERT_EQ(doca_graph_instance_set_ctx_node_data(inst, a, add_task(0)), DOCA_SUCCESS);
    ASSERT_EQ(doca_graph_instance_set_user_node_data(inst, b, const_cast<char *>("B")), DOCA_SUCCESS);
    ASSERT_EQ(doca_graph_instance_submit(inst), DOCA_SUCCESS);
    doca_data marker{};
    marker.u64 = 0xABCD; // the standalone task's callback checks it
    doca_sync_event_task_notify_add *standalone = nullptr;
    ASSERT_EQ(doca_sync_event_task_notify_add_alloc_init(event, 1, &fetched[5], marker, &standalone),
              DOCA_SUCCESS);
    ASSERT_EQ(doca_task_submit(doca_sync_event_task_notify_add_as_doca_task(standalone)), DOCA_SUCCESS);
    progress_all(pe);
    EXPECT_EQ(instances_done, 1);
    EXPECT_EQ(standalone_done, 1);
}

// A sub-graph node runs an instance of another graph; the parent goes on when it completes, and
// the sub-graph's own callbacks stay silent.
TEST_F(GraphTest, SubGraphRunsAsANode) {
    doca_graph *sub = new_graph(2, 100);
    doca_graph_node *sub_task = ctx_node(sub), *sub_user = user(sub);
    ASSERT_EQ(doca_graph_add_dependency(sub, sub_task, sub_user), DOCA_SUCCESS);
    doca_graph *top = new_graph(2, 200);
    doca_graph_node *sub_node = nullptr;
    EXPECT_EQ(doca_graph_node_create_from_graph(top, sub, &sub_node), DOCA_ERROR_BAD_STATE)
        << "sub not started";
    ASSERT_EQ(doca_graph_start(sub), DOCA_SUCCESS);
    EXPECT_EQ(doca_graph_node_create_from_graph(top, top, &sub_node), DOCA_ERROR_NOT_PERMITTED);
    doca_graph_node *first = ctx_node(top), *last = user(top);
    ASSERT_EQ(doca_graph_node_create_from_graph(top, sub, &sub_node), DOCA_SUCCESS);
    ASSERT_EQ(doca_graph_add_dependency(top, first, sub_node), DOCA_SUCCESS);
    ASSERT_EQ(doca_graph_add_dependency(top, sub_node, last), DOCA_SUCCESS);
    ASSERT_EQ(doca_graph_start(top), DOCA_SUCCESS);

    doca_graph_instance *sub_inst = new_instance(sub, 11);
    ASSERT_EQ(doca_graph_instance_set_ctx_node_data(sub_inst, sub_task, add_task(1)), DOCA_SUCCESS);
    ASSERT_EQ(doca_graph_instance_set_user_node_data(sub_inst, sub_user, const_cast<char *>("sub")),
              DOCA_SUCCESS);
    doca_graph_instance *top_inst = new_instance(top, 22);
    ASSERT_EQ(doca_graph_instance_set_ctx_node_data(top_inst, first, add_task(0)), DOCA_SUCCESS);
    ASSERT_EQ(doca_graph_instance_set_user_node_data(top_inst, last, const_cast<char *>("last")),
              DOCA_SUCCESS);
    EXPECT_EQ(doca_graph_instance_submit(top_inst), DOCA_ERROR_INVALID_VALUE)
        << "sub-graph node without data";
    ASSERT_EQ(doca_graph_instance_set_sub_graph_node_data(top_inst, sub_node, sub_inst), DOCA_SUCCESS);
    EXPECT_EQ(doca_graph_instance_destroy(sub_inst), DOCA_ERROR_IN_USE) << "it is a node's data";
    EXPECT_EQ(doca_graph_stop(sub), DOCA_ERROR_IN_USE);
    EXPECT_EQ(doca_graph_destroy(sub), DOCA_ERROR_BAD_STATE);

    ASSERT_EQ(doca_graph_instance_submit(top_inst), DOCA_SUCCESS);
    progress_all(pe);
    EXPECT_EQ(instances_done, 1);
    EXPECT_EQ(fetched[0], 0u);
    EXPECT_EQ(fetched[1], 1u);
    EXPECT_EQ(events, (std::vector<std::string>{"sub", "last", "done:22:200"}));
    // Tear down in order: the top instance frees the sub instance.
    instances.clear();
    ASSERT_EQ(doca_graph_instance_destroy(top_inst), DOCA_SUCCESS);
    ASSERT_EQ(doca_graph_instance_destroy(sub_inst), DOCA_SUCCESS);
    ASSERT_EQ(doca_graph_stop(top), DOCA_SUCCESS);
    EXPECT_EQ(doca_graph_destroy(sub), DOCA_ERROR_BAD_STATE);
    ASSERT_EQ(doca_graph_stop(sub), DOCA_SUCCESS);
    EXPECT_EQ(doca_graph_destroy(sub), DOCA_ERROR_IN_USE) << "the top graph's node still runs it";
    ASSERT_EQ(doca_graph_destroy(top), DOCA_SUCCESS);
    ASSERT_EQ(doca_graph_destroy(sub), DOCA_SUCCESS);
    graphs.clear();
}

TEST_F(GraphTest, CyclesAreRefused) {
    doca_graph *g = new_graph();
    doca_graph_node *a = ctx_node(g), *b = user(g), *c = user(g);
    EXPECT_EQ(doca_graph_add_dependency(g, a, a), DOCA_ERROR_NOT_PERMITTED);
    ASSERT_EQ(doca_graph_add_dependency(g, a, b), DOCA_SUCCESS);
    ASSERT_EQ(doca_graph_add_dependency(g, b, c), DOCA_SUCCESS);
    EXPECT_EQ(doca_graph_add_dependency(g, c, a), DOCA_ERROR_NOT_PERMITTED);
    EXPECT_EQ(doca_graph_add_dependency(g, b, a), DOCA_ERROR_NOT_PERMITTED);
    ASSERT_EQ(doca_graph_add_dependency(g, a, c), DOCA_SUCCESS); // a shortcut is no cycle
}

// What start checks: a ctx node, the configuration, every ctx RUNNING on the graph's own PE.
TEST_F(GraphTest, StartNeedsARunningCtxNodeOnTheGraphsPe) {
    doca_graph *g = new_graph();
    user(g);
    EXPECT_EQ(doca_graph_start(g), DOCA_ERROR_BAD_STATE) << "no ctx node";
    ctx_node(g);
    doca_graph *unconfigured = nullptr;
    ASSERT_EQ(doca_graph_create(pe, &unconfigured), DOCA_SUCCESS);
    doca_graph_node *n = nullptr;
    ASSERT_EQ(doca_graph_node_create_from_ctx(unconfigured, ctx, &n), DOCA_SUCCESS);
    EXPECT_EQ(doca_graph_start(unconfigured), DOCA_ERROR_BAD_STATE) << "no set_conf";
    EXPECT_EQ(doca_graph_destroy(unconfigured), DOCA_SUCCESS);

    doca_pe *other_pe = nullptr;
    ASSERT_EQ(doca_pe_create(&other_pe), DOCA_SUCCESS);
    doca_graph *elsewhere = nullptr;
    ASSERT_EQ(doca_graph_create(other_pe, &elsewhere), DOCA_SUCCESS);
    ASSERT_EQ(doca_graph_set_conf(elsewhere, graph_ok, graph_err, 1), DOCA_SUCCESS);
    ASSERT_EQ(doca_graph_node_create_from_ctx(elsewhere, ctx, &n), DOCA_SUCCESS);
    EXPECT_EQ(doca_graph_start(elsewhere), DOCA_ERROR_NOT_PERMITTED) << "ctx on another PE";
    EXPECT_EQ(doca_pe_destroy(other_pe), DOCA_ERROR_IN_USE) << "a graph is bound to it";
    EXPECT_EQ(doca_graph_destroy(elsewhere), DOCA_SUCCESS);
    EXPECT_EQ(doca_pe_destroy(other_pe), DOCA_SUCCESS);

    ASSERT_EQ(doca_graph_start(g), DOCA_SUCCESS);
    EXPECT_EQ(doca_graph_start(g), DOCA_SUCCESS) << "already started";
    EXPECT_EQ(doca_graph_node_create_from_user(g, user_node, &n), DOCA_ERROR_BAD_STATE);
    EXPECT_EQ(doca_graph_set_conf(g, graph_ok, graph_err, 2), DOCA_ERROR_BAD_STATE);
    EXPECT_EQ(doca_graph_destroy(g), DOCA_ERROR_BAD_STATE) << "started";

    // A ctx that is not RUNNING.
    doca_graph *later = new_graph();
    ctx_node(later);
    doca_ctx_stop(ctx);
    progress_all(pe);
    EXPECT_EQ(doca_graph_start(later), DOCA_ERROR_BAD_STATE);
}

// Instances: at most num_instances; node data checked against the node and the task's ctx;
// submit refuses a node without data and a task already in flight, and starts nothing then.
TEST_F(GraphTest, InstanceLimitsAndNodeDataChecks) {
    doca_graph *g = new_graph(1);
    doca_graph_node *a = ctx_node(g), *u = user(g);
    ASSERT_EQ(doca_graph_start(g), DOCA_SUCCESS);
    doca_graph_instance *inst = new_instance(g);
    doca_graph_instance *extra = nullptr;
    EXPECT_EQ(doca_graph_instance_create(g, &extra), DOCA_ERROR_NO_MEMORY);
    EXPECT_EQ(doca_graph_stop(g), DOCA_ERROR_IN_USE);

    EXPECT_EQ(doca_graph_instance_set_user_node_data(inst, a, nullptr), DOCA_ERROR_NOT_PERMITTED)
        << "ctx node";
    EXPECT_EQ(doca_graph_instance_set_ctx_node_data(inst, u, add_task(0)), DOCA_ERROR_NOT_PERMITTED)
        << "user node";
    doca_graph *other = new_graph();
    doca_graph_node *foreign = ctx_node(other);
    EXPECT_EQ(doca_graph_instance_set_ctx_node_data(inst, foreign, add_task(1)), DOCA_ERROR_NOT_PERMITTED);

    EXPECT_EQ(doca_graph_instance_submit(inst), DOCA_ERROR_INVALID_VALUE) << "ctx node without a task";
    // A task the application also runs itself: in flight, the instance cannot start. (Its
    // callback frees it, so it is not among the fixture's tasks.)
    doca_data marker{};
    marker.u64 = 0xABCD;
    doca_sync_event_task_notify_add *own = nullptr;
    ASSERT_EQ(doca_sync_event_task_notify_add_alloc_init(event, 1, &fetched[3], marker, &own), DOCA_SUCCESS);
    doca_task *task = doca_sync_event_task_notify_add_as_doca_task(own);
    ASSERT_EQ(doca_graph_instance_set_ctx_node_data(inst, a, task), DOCA_SUCCESS);
    ASSERT_EQ(doca_task_submit(task), DOCA_SUCCESS);
    ASSERT_EQ(doca_graph_instance_set_user_node_data(inst, u, const_cast<char *>("U")), DOCA_SUCCESS);
    EXPECT_EQ(doca_graph_instance_submit(inst), DOCA_ERROR_BAD_STATE) << "its task is in flight";
    progress_all(pe);
    EXPECT_EQ(standalone_done, 1);
    EXPECT_TRUE(std::find(events.begin(), events.end(), "U") == events.end())
        << "the failed submit started nothing";
    EXPECT_EQ(instances_done + instances_failed, 0);
}

} // namespace
