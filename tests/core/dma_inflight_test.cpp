// Spec 5.6 item 45, the in-flight rule: the engine reads a task's source when it runs the task, not
// when it was submitted; applications must not touch a submitted task's buffers, and a debug mode
// (skiff_dma_set_inflight_check / SKIFF_DMA_CHECK_INFLIGHT) catches those that do. The engine is
// held (skiff_dma_hold_engine) so that "modified while in flight" is deterministic.
#include "dma_support.hpp"

#include <doca_dma.h>

#include <gtest/gtest.h>

using skiff::test::DmaFixture;

namespace {

class DmaInflight : public DmaFixture {};

class DmaInflightChecked : public DmaFixture {
  protected:
    void before_start() override { ASSERT_EQ(skiff_dma_set_inflight_check(dma, 1), DOCA_SUCCESS); }
};

} // namespace

TEST_F(DmaInflight, TheSourceIsReadWhenTheEngineRunsTheTask) {
    ASSERT_EQ(skiff_dma_hold_engine(dma, 1), DOCA_SUCCESS);
    doca_buf *src = buf(0, 64, 64);
    doca_buf *dst = buf(4096, 64, 0);
    submit(src, dst);
    memory[10] = 0xAB; // in flight: the engine has not run it yet
    for (int i = 0; i < 1000; ++i) EXPECT_EQ(doca_pe_progress(pe), 0) << "nothing runs while held";
    ASSERT_EQ(skiff_dma_hold_engine(dma, 0), DOCA_SUCCESS);
    wait_for(1);
    EXPECT_EQ(done[0].status, DOCA_SUCCESS);
    EXPECT_EQ(memory[4096 + 10], 0xAB);
}

TEST_F(DmaInflight, StopWhileHeldFlushesEveryQueuedTask) {
    ASSERT_EQ(skiff_dma_hold_engine(dma, 1), DOCA_SUCCESS);
    std::vector<doca_buf *> dsts;
    for (uint32_t i = 0; i < 20; ++i) {
        doca_buf *src = buf(i * 64, 64, 64);
        dsts.push_back(buf(100000 + i * 64, 64, 0));
        submit(src, dsts.back(), i);
    }
    EXPECT_EQ(doca_ctx_stop(ctx), DOCA_ERROR_IN_PROGRESS);
    ASSERT_TRUE(skiff::test::progress_until_state(pe, ctx, DOCA_CTX_STATE_IDLE));
    ASSERT_EQ(done.size(), 20u);
    for (const auto &d : done) EXPECT_EQ(d.status, DOCA_ERROR_SHUTDOWN) << d.user_data;
    for (doca_buf *dst : dsts) EXPECT_EQ(data_len(dst), 0u) << "nothing was copied";
    ASSERT_EQ(skiff_dma_hold_engine(dma, 0), DOCA_SUCCESS);
}

TEST_F(DmaInflightChecked, ASourceModifiedInFlightFailsTheTask) {
    EXPECT_EQ(skiff_dma_set_inflight_check(dma, 0), DOCA_ERROR_BAD_STATE) << "IDLE only";
    ASSERT_EQ(skiff_dma_hold_engine(dma, 1), DOCA_SUCCESS);
    doca_buf *dst = buf(4096, 64, 0);
    submit(buf(0, 64, 64), dst);
    memory[3] ^= 0xFF;
    ASSERT_EQ(skiff_dma_hold_engine(dma, 0), DOCA_SUCCESS);
    wait_for(1);
    EXPECT_EQ(done[0].status, DOCA_ERROR_UNEXPECTED);
    EXPECT_EQ(data_len(dst), 0u);
    expect_stopped_by_failure_then_restart();

    // Untouched sources pass the check.
    submit(buf(8192, 64, 64), buf(12288, 64, 0));
    wait_for(2);
    EXPECT_EQ(done[1].status, DOCA_SUCCESS);
}
