// Runs one allocation probe (tests/helpers/*_alloc_probe, built on counting_allocator.hpp) and
// returns what it printed. A probe exits 0 when its data path allocated nothing, 1 otherwise.
#pragma once

#include "../helpers/child_program.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <string>
#include <sys/wait.h>

namespace skiff::test {

struct ProbeRun {
    std::string output;
    int exit_code = -1; // -1: did not exit normally
};

inline ProbeRun run_alloc_probe(const std::string &path) {
    ProbeRun run;
    FILE *p = popen(shell_command(path).c_str(), "r");
    EXPECT_NE(p, nullptr) << path;
    if (p == nullptr) return run;
    std::array<char, 256> buf{};
    while (std::fgets(buf.data(), buf.size(), p) != nullptr) run.output += buf.data();
    int status = pclose(p);
    if (WIFEXITED(status)) run.exit_code = WEXITSTATUS(status);
    return run;
}

} // namespace skiff::test
