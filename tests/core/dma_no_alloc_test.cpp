// Spec 5.1 rule 2 / 5.5: after start the execution data path (task alloc_init, submit, the DMA
// engine's worker, progress, callbacks, free, notification arm/clear) performs no heap allocation.
// Counted in a helper process (tests/helpers/dma_alloc_probe) that replaces malloc/operator new.
#include "../support/build_paths.hpp"
#include "alloc_probe_runner.hpp"

#include <gtest/gtest.h>

TEST(DmaNoAlloc, SubmitProgressCallbackFreeAllocateNothingAfterStart) {
    auto run = skiff::test::run_alloc_probe(skiff::test::bin_dir() + "/dma_alloc_probe");
    ASSERT_NE(run.exit_code, -1) << run.output;
    EXPECT_EQ(run.exit_code, 0) << run.output;
    EXPECT_EQ(run.output, "data_path 0 tasks 10000\n");
}
