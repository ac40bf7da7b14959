// skiff-perf's command line: fio-style values, defaults, and a clear error for each bad input.
#include "options.hpp"

#include <gtest/gtest.h>

#include <initializer_list>
#include <vector>

using namespace skiff::perf;

namespace {

skiff::Result<PerfOptions> parse(std::initializer_list<const char *> args) {
    std::vector<const char *> argv{"skiff-perf"};
    argv.insert(argv.end(), args.begin(), args.end());
    return parse_options(static_cast<int>(argv.size()), argv.data());
}

// The parse fails and the message names the option and contains `expect`.
void expect_error(std::initializer_list<const char *> args, const std::string &expect) {
    auto r = parse(args);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find(expect), std::string::npos) << r.error().message;
}

} // namespace

TEST(perf_options, Defaults) {
    auto r = parse({});
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(r->rw, Pattern::kRandRead);
    EXPECT_EQ(r->bs, 4096u);
    EXPECT_EQ(r->qd, 32u);
    EXPECT_EQ(r->time.count(), 10000);
    EXPECT_EQ(r->ramp.count(), 2000);
    EXPECT_EQ(r->queues, 1u);
    EXPECT_TRUE(r->cores.empty());
    EXPECT_EQ(r->port, 4420);
    EXPECT_EQ(r->transport, "tcp");
    EXPECT_FALSE(r->verify);
    EXPECT_FALSE(r->json);
    EXPECT_FALSE(r->sq_flow_control); // Connect asks to disable it: reads may end with C2HData SUCCESS
}

TEST(perf_options, FullJob) {
    auto r = parse({"--rw",
                    "randrw",
                    "--rwmixread",
                    "70",
                    "--bs",
                    "128k",
                    "--qd",
                    "16",
                    "--time",
                    "500ms",
                    "--ramp",
                    "0",
                    "--queues",
                    "4",
                    "--cores",
                    "0-1,3",
                    "--verify",
                    "--addr",
                    "10.0.0.2",
                    "--port",
                    "4421",
                    "--nqn",
                    "nqn.2014-08.org.example:t",
                    "--hostnqn",
                    "nqn.2014-08.org.example:h",
                    "--hdgst",
                    "--ddgst",
                    "--sq-flow-control",
                    "--json",
                    "--no-progress"});
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(r->rw, Pattern::kRandRw);
    EXPECT_EQ(r->rwmixread, 70u);
    EXPECT_EQ(r->bs, 131072u);
    EXPECT_EQ(r->qd, 16u);
    EXPECT_EQ(r->time.count(), 500);
    EXPECT_EQ(r->ramp.count(), 0);
    EXPECT_EQ(r->queues, 4u);
    EXPECT_EQ(r->cores, (std::vector<int>{0, 1, 3}));
    EXPECT_TRUE(r->verify);
    EXPECT_EQ(r->addr, "10.0.0.2");
    EXPECT_EQ(r->port, 4421);
    EXPECT_EQ(r->nqn, "nqn.2014-08.org.example:t");
    EXPECT_EQ(r->hostnqn, "nqn.2014-08.org.example:h");
    EXPECT_TRUE(r->header_digest);
    EXPECT_TRUE(r->data_digest);
    EXPECT_TRUE(r->sq_flow_control);
    EXPECT_TRUE(r->json);
    EXPECT_FALSE(r->progress);
}

TEST(perf_options, Sizes) {
    EXPECT_EQ(*parse_size("512"), 512u);
    EXPECT_EQ(*parse_size("4k"), 4096u);
    EXPECT_EQ(*parse_size("4K"), 4096u);
    EXPECT_EQ(*parse_size("128KiB"), 131072u);
    EXPECT_EQ(*parse_size("1m"), 1048576u);
    EXPECT_EQ(*parse_size("1g"), 1073741824u);
    EXPECT_FALSE(parse_size("k4").ok());
    EXPECT_FALSE(parse_size("4x").ok());
    EXPECT_FALSE(parse_size("").ok());
}

TEST(perf_options, Durations) {
    EXPECT_EQ(parse_duration("10s")->count(), 10000);
    EXPECT_EQ(parse_duration("3")->count(), 3000);
    EXPECT_EQ(parse_duration("250ms")->count(), 250);
    EXPECT_EQ(parse_duration("2m")->count(), 120000);
    EXPECT_FALSE(parse_duration("fast").ok());
    EXPECT_FALSE(parse_duration("10h").ok());
}

TEST(perf_options, Cores) {
    EXPECT_EQ(*parse_cores("1"), (std::vector<int>{1}));
    EXPECT_EQ(*parse_cores("0,2"), (std::vector<int>{0, 2}));
    EXPECT_EQ(*parse_cores("2-4"), (std::vector<int>{2, 3, 4}));
    EXPECT_FALSE(parse_cores("3-1").ok());
    EXPECT_FALSE(parse_cores("1,1").ok());
    EXPECT_FALSE(parse_cores("a").ok());
    EXPECT_FALSE(parse_cores("1,").ok());
}

TEST(perf_options, EveryPatternName) {
    for (const char *name : {"read", "write", "randread", "randwrite", "randrw"}) {
        auto r = parse({"--rw", name});
        ASSERT_TRUE(r.ok()) << name;
        EXPECT_STREQ(pattern_name(r->rw), name);
    }
}

TEST(perf_options, BadInputNamesTheOption) {
    expect_error({"--rw", "randomread"}, "--rw \"randomread\"");
    expect_error({"--bs", "1000"}, "--bs \"1000\": expected a multiple of 512");
    expect_error({"--bs", "0"}, "--bs");
    expect_error({"--bs", "32m"}, "at most 16 MiB");
    expect_error({"--qd", "0"}, "--qd");
    expect_error({"--qd", "5000"}, "--qd");
    expect_error({"--rwmixread", "101"}, "--rwmixread");
    expect_error({"--time", "0s"}, "--time \"0s\"");
    expect_error({"--ramp", "soon"}, "--ramp \"soon\"");
    expect_error({"--cores", "1-0"}, "--cores \"1-0\"");
    expect_error({"--transport", "fc"}, "--transport");
    expect_error({"--queues", "0"}, "--queues");
    expect_error({"--bogus"}, "--bogus");
}

TEST(perf_options, HelpIsReturnedAsText) {
    auto r = parse({"--help"});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, DOCA_ERROR_AGAIN);
    EXPECT_NE(r.error().message.find("--rwmixread"), std::string::npos);
    EXPECT_NE(r.error().message.find("--verify"), std::string::npos);
}
