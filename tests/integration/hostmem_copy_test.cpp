// No extra copy on the hostmem path over NVMe/TCP: a 4 KiB write's DMA goes from the transport's
// buffer straight to host memory and a 4 KiB read's DMA from host memory straight into the
// transport's buffer: the backend adds exactly one copy per I/O (the DMA) and no bounce buffer, in
// both DMA engines. Counted by tests/helpers/hostmem_copy_probe (it replaces memcpy/memmove, runs
// the target in its own process and sorts the copies by whether they leave or enter a transport
// buffer) against a real skiff-host exporting a memfd. On writes the TCP receive path may also
// move payload that arrived together with a header out of its staging buffer into the transport
// buffer: that is the transport's (the same for every backend), at most one copy of the payload.
#include "../support/build_paths.hpp"
#include "target_fixture.hpp"

#include "../helpers/child_program.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <sys/wait.h>
#include <unistd.h>

using namespace skiff;
using namespace skiff::itest;

namespace {

constexpr int kIos = 200;

// clang's AddressSanitizer compiles every memcpy and memmove of the instrumented libraries into a
// call of __asan_memcpy / __asan_memmove, which a program cannot replace: the probe's counting
// memcpy would see none of the target's copies. gcc's ASan keeps the calls to memcpy. The release
// (gcc) and arm64 stages run this test.
#if defined(__clang__) && defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SKIFF_COPIES_BYPASS_MEMCPY 1
#endif
#endif
#ifdef SKIFF_COPIES_BYPASS_MEMCPY
constexpr bool kCopiesCountable = false;
#else
constexpr bool kCopiesCountable = true;
#endif

class integration_hostmem_copies : public TargetTest, public ::testing::WithParamInterface<const char *> {
  protected:
    void SetUp() override {
        channel_ = "skiff-itest-copies-" + std::to_string(getpid());
        region_file_ = "/tmp/" + channel_ + ".region";
    }
    void TearDown() override {
        TargetTest::TearDown();
        if (host_) {
            if (HasFailure()) std::cerr << "---- skiff-host output\n" << host_->log() << "---- end\n";
            host_->stop();
        }
        ::unlink(region_file_.c_str());
    }
    // skiff-host is ready once it wrote its region file (its export is made); it joins the
    // probe's comch server on the channel name by itself, whichever starts first.
    void start_host() {
        ::unlink(region_file_.c_str());
        std::string file = region_file_;
        host_ = std::make_unique<TargetProcess>("skiff-host",
                                                std::vector<std::string>{"--channel", channel_, "--size",
                                                                         "8MiB", "--memory", "memfd",
                                                                         "--test-region-file", file},
                                                [file] { return ::access(file.c_str(), R_OK) == 0; });
        ASSERT_TRUE(host_->started()) << host_->log();
    }
    // Runs the probe with SKIFF_DMA_ENGINE=engine; its output, or "" when it failed.
    std::string probe(const std::string &engine) {
        std::string cmd = "SKIFF_DMA_ENGINE=" + engine + " " +
                          test::shell_command(skiff::test::bin_dir() + "/hostmem_copy_probe") + " " +
                          channel_ + " " + std::to_string(kIos) + " 2>&1";
        FILE *p = popen(cmd.c_str(), "r");
        if (!p) return "";
        std::string out;
        std::array<char, 512> buf{};
        while (std::fgets(buf.data(), buf.size(), p)) out += buf.data();
        int status = pclose(p);
        EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << out;
        return out;
    }

    std::string channel_, region_file_;
    std::unique_ptr<TargetProcess> host_;
};

} // namespace

// "writes N from-buffer A into-buffer B other C" -> {A, B, C}
std::array<uint64_t, 3> copies_of(const std::string &out, const std::string &phase) {
    std::array<uint64_t, 3> v{~0ull, ~0ull, ~0ull};
    size_t at = out.find(phase + " " + std::to_string(kIos) + " ");
    if (at == std::string::npos) return v;
    std::sscanf(out.c_str() + at, "%*s %*d from-buffer %llu into-buffer %llu other %llu",
                reinterpret_cast<unsigned long long *>(&v[0]), reinterpret_cast<unsigned long long *>(&v[1]),
                reinterpret_cast<unsigned long long *>(&v[2]));
    return v;
}

TEST_P(integration_hostmem_copies, EachIoIsOneDmaStraightBetweenHostMemoryAndTheTransportBuffer) {
    if (!kCopiesCountable) GTEST_SKIP() << "clang's ASan sends the target's copies to __asan_memcpy, past the probe";
    start_host();
    const std::string out = probe(GetParam());
    const uint64_t payload = uint64_t{kIos} * 4096;
    auto writes = copies_of(out, "writes"), reads = copies_of(out, "reads");
    EXPECT_EQ(writes[0], payload) << out; // each write: one DMA out of the transport buffer
    EXPECT_LE(writes[1], payload) << out; // the TCP receive path's staging, at most once
    EXPECT_EQ(writes[2], 0u) << out;      // no bounce buffer
    EXPECT_EQ(reads[0], 0u) << out;
    EXPECT_EQ(reads[1], payload) << out; // each read: one DMA into the transport buffer
    EXPECT_EQ(reads[2], 0u) << out;
}

INSTANTIATE_TEST_SUITE_P(Engines, integration_hostmem_copies, ::testing::Values("inline", "thread"));
