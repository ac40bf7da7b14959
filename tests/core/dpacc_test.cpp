// core/tools/skiff-dpacc, the stand-in for NVIDIA's dpacc: it builds device sources into one object
// with the application's registration and the typed calls of every device function (structs by
// value too, as NVIDIA's dpa_ping_pong passes them; tests/dpacc/ runs such calls), and refuses
// what it cannot call, naming the function.
#include "../support/build_paths.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;

struct DpaccRun {
    int status = -1;
    std::string output; // stdout and stderr
};

DpaccRun dpacc(const fs::path &dir, const std::string &source) {
    fs::path src = dir / "dev.c";
    std::ofstream(src) << source;
    std::string cmd = skiff::test::source_dir() + "/core/tools/skiff-dpacc --app-name test_app -o " +
                      (dir / "dev.o").string() + " " + src.string() + " -- -I " + skiff::test::source_dir() +
                      "/core/include 2>&1";
    DpaccRun r;
    FILE *p = popen(cmd.c_str(), "r");
    if (!p) return r;
    std::array<char, 512> buf{};
    while (fgets(buf.data(), buf.size(), p)) r.output += buf.data();
    r.status = pclose(p);
    return r;
}

struct Dpacc : ::testing::Test {
    fs::path dir;
    void SetUp() override {
        dir = fs::temp_directory_path() / ("skiff-dpacc-test-" + std::to_string(::getpid()));
        fs::create_directories(dir);
    }
    void TearDown() override { fs::remove_all(dir); }
};

const char *kHeader = "#include <doca_dpa_dev.h>\n#include <stdint.h>\n"
                      "struct pair { uint64_t a, b, c; };\n";

} // namespace

TEST_F(Dpacc, ScalarArgumentsBuildWithoutAWarning) {
    DpaccRun r = dpacc(dir, std::string(kHeader) +
                                "__dpa_rpc__ uint64_t add(uint64_t a, struct pair *p) { return a + p->b; }\n"
                                "__dpa_global__ void k(uint64_t arg) { (void)arg; }\n");
    EXPECT_EQ(r.status, 0) << r.output;
    EXPECT_EQ(r.output.find("warning"), std::string::npos) << r.output;
    EXPECT_TRUE(fs::exists(dir / "dev.o"));
}

TEST_F(Dpacc, AStructPassedByValueBuildsWithoutAWarning) {
    DpaccRun r = dpacc(dir, std::string(kHeader) +
                                "__dpa_rpc__ uint64_t first(uint64_t h, struct pair p, const struct pair q,\n"
                                "                           unsigned char c, float f, uint64_t v[2])\n"
                                "{ return h + p.a + q.c + c + (uint64_t)f + v[1]; }\n");
    EXPECT_EQ(r.status, 0) << r.output;
    EXPECT_EQ(r.output.find("warning"), std::string::npos) << r.output;
    EXPECT_TRUE(fs::exists(dir / "dev.o"));
}

TEST_F(Dpacc, WhatCannotBeCalledIsRefusedByName) {
    DpaccRun variadic =
        dpacc(dir, std::string(kHeader) + "__dpa_rpc__ uint64_t sum(int n, ...) { return n; }\n");
    EXPECT_NE(variadic.status, 0);
    EXPECT_NE(variadic.output.find("sum is variadic"), std::string::npos) << variadic.output;
    DpaccRun unnamed = dpacc(dir, std::string(kHeader) + "__dpa_global__ void k(uint64_t) { }\n");
    EXPECT_NE(unnamed.status, 0);
    EXPECT_NE(unnamed.output.find("k: cannot read the parameter 'uint64_t'"), std::string::npos)
        << unnamed.output;
    DpaccRun hidden =
        dpacc(dir, std::string(kHeader) + "__dpa_global__ static void k(uint64_t a) { (void)a; }\n");
    EXPECT_NE(hidden.status, 0);
}
