// The lab's initiator checker (build/bin/host_check, run against Linux nvmet in the VM) must
// also pass against skiff-target, so a change that breaks it shows here and not only in the lab.
#include "../support/build_paths.hpp"
#include "target_fixture.hpp"

#include "../helpers/child_program.hpp"

#include <cstdio>
#include <sys/wait.h>

using namespace skiff;
using namespace skiff::itest;

using integration_host_check = TargetTest;

TEST_F(integration_host_check, PassesAgainstSkiffTarget) {
    start_target();
    const std::string cmd = skiff::test::shell_command(skiff::test::bin_dir() + "/host_check") + " --port " +
                            std::to_string(io_port_) + " --discovery-port " + std::to_string(disc_port_) +
                            " --nqn " + kNqn + " --expect-serial " + kSerial + " --expect-model " + kModel +
                            " 2>&1";
    FILE *p = ::popen(cmd.c_str(), "r");
    ASSERT_NE(p, nullptr);
    std::string out;
    char buf[4096];
    while (size_t n = std::fread(buf, 1, sizeof(buf), p)) out.append(buf, n);
    const int status = ::pclose(p);
    ASSERT_TRUE(WIFEXITED(status)) << out;
    EXPECT_EQ(WEXITSTATUS(status), 0) << out;
    EXPECT_NE(out.find(" 0 failed: PASS"), std::string::npos) << out;
    EXPECT_NE(out.find("ok   read past the end is refused: sct 0h (generic) sc 80h (LBA Out of Range)"),
              std::string::npos)
        << out;
    EXPECT_NE(out.find("ok   serial is " + std::string(kSerial)), std::string::npos) << out;
    EXPECT_NE(out.find("ok   copy\n"), std::string::npos) << out;
    EXPECT_NE(out.find("ok   verify\n"), std::string::npos) << out;
}
