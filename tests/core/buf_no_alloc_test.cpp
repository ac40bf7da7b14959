// Spec 5.1 rule 2: after start the memory data path performs no heap allocation. The counting runs
// in a helper process (tests/helpers/mem_alloc_probe) that replaces malloc/operator new.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <string>
#include <sys/wait.h>

TEST(BufNoAlloc, Rule2_DataPathAllocatesNothingAfterStart) {
    FILE *p = popen(SKIFF_BIN_DIR "/mem_alloc_probe", "r");
    ASSERT_NE(p, nullptr);
    std::string out;
    std::array<char, 256> buf{};
    while (std::fgets(buf.data(), buf.size(), p) != nullptr) out += buf.data();
    int status = pclose(p);
    ASSERT_TRUE(WIFEXITED(status));
    if (WEXITSTATUS(status) == 77) GTEST_SKIP() << "allocation counting is impossible under AddressSanitizer";
    EXPECT_EQ(WEXITSTATUS(status), 0) << out;
    EXPECT_EQ(out, "data_path 0\n");
}
