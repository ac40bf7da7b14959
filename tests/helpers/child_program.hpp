// How tests start the build's own programs (skiff-target, skiff-ctl, helpers) as child processes.
// A cross build's tests run under an emulator (qemu-user; there is no binfmt_misc to run foreign
// executables directly), and so must their children: SKIFF_TEST_EMULATOR names it (ctest sets it
// from CMAKE_CROSSCOMPILING_EMULATOR). Unset or empty, programs run directly.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace skiff::test {

inline std::string test_emulator() {
    const char *e = std::getenv("SKIFF_TEST_EMULATOR");
    return e ? e : "";
}

// The start of a shell command (popen, system) that runs `program`.
inline std::string shell_command(const std::string &program) {
    const std::string emu = test_emulator();
    return emu.empty() ? program : emu + " " + program;
}

// execv(argv[0], argv) through the emulator when there is one; returns only on failure, like
// execv. For the child side of fork().
inline int exec_program(std::vector<std::string> argv) {
    const std::string emu = test_emulator();
    if (!emu.empty()) argv.insert(argv.begin(), emu);
    std::vector<char *> raw;
    for (auto &a : argv) raw.push_back(a.data());
    raw.push_back(nullptr);
    return emu.empty() ? ::execv(raw[0], raw.data()) : ::execvp(raw[0], raw.data());
}

} // namespace skiff::test
