// Drives one tests/helpers/mem_exporter process (the host side of a PCI export) over its
// stdin/stdout: it prints "EXPORT <descriptor hex> <address hex> <length>" first, then answers one
// command line at a time. Shared by the export/import tests and the cross-process DMA tests.
#pragma once

#include "../support/build_paths.hpp"
#include "../helpers/child_program.hpp"

#include <gtest/gtest.h>

#include <csignal>
#include <cstdint>
#include <cstdio>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace skiff::test {

// Byte i of the exporter's region before anyone writes to it.
inline uint8_t exporter_pattern(size_t i) {
    return static_cast<uint8_t>(i * 7 + 3);
}

inline std::vector<uint8_t> from_hex(const std::string &s) {
    std::vector<uint8_t> out;
    for (size_t i = 0; i + 1 < s.size(); i += 2)
        out.push_back(static_cast<uint8_t>(std::stoi(s.substr(i, 2), nullptr, 16)));
    return out;
}

class ExporterProcess {
  public:
    // size: bytes to export; mode: the exporter's permission mode argument (e.g. "rw", "ro");
    // memory: how it allocates the region ("private", "memfd" or "file").
    ExporterProcess(size_t size, const char *mode, const char *memory = "private") {
        int to_child[2], from_child[2];
        EXPECT_EQ(pipe(to_child), 0);
        EXPECT_EQ(pipe(from_child), 0);
        pid_ = fork();
        if (pid_ == 0) {
            dup2(to_child[0], STDIN_FILENO);
            dup2(from_child[1], STDOUT_FILENO);
            close(to_child[1]);
            close(from_child[0]);
            std::string size_arg = std::to_string(size);
            exec_program({skiff::test::bin_dir() + "/mem_exporter", size_arg, mode, memory});
            _exit(127);
        }
        close(to_child[0]);
        close(from_child[1]);
        in_ = fdopen(to_child[1], "w");
        out_ = fdopen(from_child[0], "r");
        std::istringstream first(line());
        std::string tag, desc_hex, addr_text;
        first >> tag >> desc_hex >> addr_text >> len;
        EXPECT_EQ(tag, "EXPORT");
        if (tag != "EXPORT") return;
        desc = from_hex(desc_hex);
        addr = reinterpret_cast<uint8_t *>(std::stoull(addr_text, nullptr, 16));
    }
    ~ExporterProcess() {
        if (pid_ > 0) {
            if (in_) std::fclose(in_); // EOF ends the command loop
            waitpid(pid_, nullptr, 0);
        }
        if (out_) std::fclose(out_);
    }
    ExporterProcess(const ExporterProcess &) = delete;
    ExporterProcess &operator=(const ExporterProcess &) = delete;

    std::string command(const std::string &cmd) {
        std::fprintf(in_, "%s\n", cmd.c_str());
        std::fflush(in_);
        return line();
    }
    // The bytes [off, off + n) as the exporter sees them in its own memory.
    std::vector<uint8_t> bytes(size_t off, size_t n) {
        std::string reply = command("BYTES " + std::to_string(off) + " " + std::to_string(n));
        EXPECT_EQ(reply.rfind("BYTES ", 0), 0u) << reply;
        return reply.rfind("BYTES ", 0) == 0 ? from_hex(reply.substr(6)) : std::vector<uint8_t>{};
    }
    pid_t pid() const { return pid_; }
    // SIGKILL, then reap: its address space is gone when this returns.
    void kill_now() {
        ::kill(pid_, SIGKILL);
        waitpid(pid_, nullptr, 0);
        std::fclose(in_);
        in_ = nullptr;
        pid_ = -1;
    }
    // Asks the exporter to tear down and exit; returns its exit status (-1 if it did not exit).
    int exit_normally() {
        EXPECT_EQ(std::fprintf(in_, "EXIT\n") > 0, true);
        std::fclose(in_);
        in_ = nullptr;
        int status = 0;
        waitpid(pid_, &status, 0);
        pid_ = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }

    std::vector<uint8_t> desc;
    uint8_t *addr = nullptr;
    size_t len = 0;

  private:
    std::string line() {
        static char buf[1 << 20];
        if (!out_ || std::fgets(buf, sizeof(buf), out_) == nullptr) return "";
        std::string s(buf);
        if (!s.empty() && s.back() == '\n') s.pop_back();
        return s;
    }
    pid_t pid_ = -1;
    FILE *in_ = nullptr;
    FILE *out_ = nullptr;
};

} // namespace skiff::test
