// Spec 5.1 rule 2: after start the memory data path performs no heap allocation. The counting runs
// in a helper process (tests/helpers/mem_alloc_probe) that replaces malloc/operator new.
#include "../support/build_paths.hpp"
#include "alloc_probe_runner.hpp"

#include <gtest/gtest.h>

TEST(BufNoAlloc, Rule2_DataPathAllocatesNothingAfterStart) {
    auto run = skiff::test::run_alloc_probe(skiff::test::bin_dir() + "/mem_alloc_probe");
    ASSERT_NE(run.exit_code, -1) << run.output;
    EXPECT_EQ(run.exit_code, 0) << run.output;
    EXPECT_EQ(run.output, "data_path 0\n");
}
