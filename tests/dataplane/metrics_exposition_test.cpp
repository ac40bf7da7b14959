// The metrics endpoint's pieces on their own: the exposition format (escaping, cumulative
// histogram buckets ending in +Inf == count), the request-head parser a scraper's bytes go
// through, the latency buckets, and the per-queue namespace counters summed with retired ones.
#include "skiff/dataplane/metrics/exposition.hpp"
#include "skiff/dataplane/metrics/http_request.hpp"
#include "skiff/dataplane/metrics/target_metrics.hpp"
#include "skiff/nvmeof/target/latency_histogram.hpp"
#include "skiff/nvmeof/target/subsystem_io_metrics.hpp"

#include <gtest/gtest.h>

#include <array>
#include <memory>
#include <nvme/types.h>

namespace skiff::dataplane::metrics {
namespace {

namespace tgt = nvmeof::target;

TEST(MetricsExposition, LabelValuesAreEscaped) {
    EXPECT_EQ(escape_label_value(R"(a\b"c)"
                                 "\nd"),
              R"(a\\b\"c\nd)");
    EXPECT_EQ(escape_label_value("nqn.2026-11.io.skiff:default"), "nqn.2026-11.io.skiff:default");
    EXPECT_EQ(escape_help("one\\two\nthree \"q\""), "one\\\\two\\nthree \"q\"");
}

TEST(MetricsExposition, FamilyAndSamples) {
    Exposition e;
    e.family("skiff_x_total", "counter", "Things.\nCounted.");
    e.sample("skiff_x_total", {{"subsystem", "nqn\"a"}, {"nsid", "1"}}, uint64_t(18446744073709551615u));
    e.sample("skiff_x_total", {}, 0.5);
    EXPECT_EQ(e.text(), "# HELP skiff_x_total Things.\\nCounted.\n"
                        "# TYPE skiff_x_total counter\n"
                        "skiff_x_total{subsystem=\"nqn\\\"a\",nsid=\"1\"} 18446744073709551615\n"
                        "skiff_x_total 0.5\n");
}

TEST(MetricsExposition, Values) {
    EXPECT_EQ(format_value(1e-06), "1e-06");
    EXPECT_EQ(format_value(0.5), "0.5");
    EXPECT_EQ(format_value(1), "1");
    EXPECT_EQ(format_value(1.0 / 0.0), "+Inf");
    EXPECT_EQ(format_value(-1.0 / 0.0), "-Inf");
    EXPECT_EQ(format_value(0.0 / 0.0), "NaN");
}

TEST(MetricsExposition, HistogramBucketsAreCumulativeAndInfIsTheCount) {
    Exposition e;
    const std::array<double, 3> bounds = {0.001, 0.01, 0.1};
    const std::array<uint64_t, 4> counts = {2, 0, 5, 3}; // 3 above every bound
    e.histogram("lat_seconds", {{"op", "read"}}, bounds, counts, 1.25);
    EXPECT_EQ(e.text(), "lat_seconds_bucket{op=\"read\",le=\"0.001\"} 2\n"
                        "lat_seconds_bucket{op=\"read\",le=\"0.01\"} 2\n"
                        "lat_seconds_bucket{op=\"read\",le=\"0.1\"} 7\n"
                        "lat_seconds_bucket{op=\"read\",le=\"+Inf\"} 10\n"
                        "lat_seconds_sum{op=\"read\"} 1.25\n"
                        "lat_seconds_count{op=\"read\"} 10\n");
}

TEST(MetricsExposition, StatusLabels) {
    EXPECT_EQ(status_label(tgt::error_key(NVME_SCT_GENERIC, NVME_SC_LBA_RANGE)), "lba_out_of_range");
    EXPECT_EQ(status_label(tgt::error_key(NVME_SCT_GENERIC, NVME_SC_INVALID_FIELD)),
              "invalid_field_in_command");
    EXPECT_EQ(status_label(tgt::kOtherErrors), "other");
    const std::string unknown = status_label(tgt::error_key(NVME_SCT_VS, 0x42));
    EXPECT_FALSE(unknown.empty());
    EXPECT_EQ(unknown.find(' '), std::string::npos) << unknown;
}

TEST(MetricsRequestHead, FindsTheEndOfTheHead) {
    EXPECT_EQ(request_head_length("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"), 34u);
    EXPECT_EQ(request_head_length("GET /metrics HTTP/1.0\n\nbody"), 23u);
    EXPECT_FALSE(request_head_length("GET /metrics HTTP/1.1\r\nHost: x\r\n"));
    EXPECT_FALSE(request_head_length(""));
}

TEST(MetricsRequestHead, ParsesWellFormedRequests) {
    auto r = parse_request_head("GET /metrics?x=1 HTTP/1.1\r\nHost: 127.0.0.1:9860\r\nAccept: */*\r\n\r\n");
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->method, "GET");
    EXPECT_EQ(r->path, "/metrics");
    auto post = parse_request_head("POST /metrics HTTP/1.0\r\n\r\n");
    ASSERT_TRUE(post);
    EXPECT_EQ(post->method, "POST");
}

TEST(MetricsRequestHead, RefusesMalformedRequests) {
    const char *bad[] = {
        "\r\n\r\n",
        "GET\r\n\r\n",
        "GET /metrics\r\n\r\n",
        "GET /metrics HTTP/2.0\r\n\r\n",
        "GET metrics HTTP/1.1\r\n\r\n",
        "GET  /metrics HTTP/1.1\r\n\r\n",
        "G(T /metrics HTTP/1.1\r\n\r\n",
        "GET /metrics HTTP/1.1\r\nno colon here\r\n\r\n",
        "GET /metrics HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n",
        "GET /met\x01rics HTTP/1.1\r\n\r\n",
        "GET /metrics HTTP/1.1\r\nX: \xff\r\n\r\n",
        "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n", // a TLS ClientHello, more or less
    };
    for (const char *h : bad) EXPECT_FALSE(parse_request_head(h)) << h;
}

TEST(MetricsLatencyHistogram, BucketsHaveInclusiveUpperBounds) {
    EXPECT_EQ(tgt::LatencyHistogram::bucket_of(0), 0u);
    EXPECT_EQ(tgt::LatencyHistogram::bucket_of(1000), 0u);
    EXPECT_EQ(tgt::LatencyHistogram::bucket_of(1001), 1u);
    EXPECT_EQ(tgt::LatencyHistogram::bucket_of(1'000'000'000), tgt::kLatencyBoundsNs.size() - 1);
    EXPECT_EQ(tgt::LatencyHistogram::bucket_of(1'000'000'001), tgt::kLatencyBoundsNs.size());
    tgt::LatencyHistogram h;
    h.record(1500);
    h.record(1500);
    h.record(3'000'000'000);
    const tgt::LatencyTotals t = h.totals();
    EXPECT_EQ(t.count(), 3u);
    EXPECT_EQ(t.buckets[1], 2u);
    EXPECT_EQ(t.buckets.back(), 1u);
    EXPECT_EQ(t.sum_ns, 3'000'003'000u);
}

TEST(MetricsNamespaceCounters, RetiredQueuesKeepCounting) {
    tgt::SubsystemIoMetrics sub;
    auto a = std::make_unique<tgt::QueueIoMetrics>();
    auto b = std::make_unique<tgt::QueueIoMetrics>();
    sub.attach(a.get(), "nqn.host-a");
    sub.attach(b.get(), "nqn.host-b");
    a->ns(1).record(tgt::IoKind::kRead, 4096, 0, 2000);
    b->ns(1).record(tgt::IoKind::kWrite, 512, 0, 30'000);
    b->ns(1).record(tgt::IoKind::kRead, 0, tgt::error_key(NVME_SCT_MEDIA, NVME_SC_READ_ERROR), 40'000);
    b->ns(3).record(tgt::IoKind::kOther, 0, 0, 500);
    const auto before = sub.totals();
    sub.detach(b.get());
    b.reset(); // the queue is gone; its counts are not
    const auto after = sub.totals();
    for (const auto *t : {&before, &after}) {
        const tgt::NamespaceIoTotals &ns1 = t->at(1);
        EXPECT_EQ(ns1.commands[size_t(tgt::IoKind::kRead)], 2u);
        EXPECT_EQ(ns1.commands[size_t(tgt::IoKind::kWrite)], 1u);
        EXPECT_EQ(ns1.read_bytes, 4096u);
        EXPECT_EQ(ns1.write_bytes, 512u);
        EXPECT_EQ(ns1.errors.at(tgt::error_key(NVME_SCT_MEDIA, NVME_SC_READ_ERROR)), 1u);
        EXPECT_EQ(ns1.latency[size_t(tgt::IoKind::kRead)].count(), 2u);
        EXPECT_EQ(t->at(3).commands[size_t(tgt::IoKind::kOther)], 1u);
    }
}

TEST(MetricsNamespaceCounters, HostsGetTheirQueuesCountsLiveAndRetired) {
    tgt::SubsystemIoMetrics sub;
    auto a1 = std::make_unique<tgt::QueueIoMetrics>();
    auto a2 = std::make_unique<tgt::QueueIoMetrics>();
    auto b = std::make_unique<tgt::QueueIoMetrics>();
    auto idle = std::make_unique<tgt::QueueIoMetrics>();
    sub.attach(a1.get(), "nqn.host-a");
    sub.attach(a2.get(), "nqn.host-a");
    sub.attach(b.get(), "nqn.host-b");
    sub.attach(idle.get(), "nqn.host-idle");
    a1->ns(1).record(tgt::IoKind::kRead, 4096, 0, 2000);
    a2->ns(2).record(tgt::IoKind::kWrite, 512, 0, 3000);
    b->ns(1).record(tgt::IoKind::kRead, 8192, 0, 4000);
    for (int pass = 0; pass < 2; ++pass) {
        const tgt::SubsystemIoMetrics::Snapshot s = sub.snapshot();
        EXPECT_EQ(s.namespaces.at(1).read_bytes, 4096u + 8192u) << "pass " << pass;
        EXPECT_EQ(s.namespaces.at(2).write_bytes, 512u) << "pass " << pass;
        ASSERT_EQ(s.hosts.size(), 2u) << "pass " << pass; // a host without I/O has no row
        const auto &a = s.hosts.at("nqn.host-a");
        EXPECT_EQ(a.at(1).read_bytes, 4096u);
        EXPECT_EQ(a.at(2).write_bytes, 512u);
        EXPECT_EQ(s.hosts.at("nqn.host-b").at(1).commands[size_t(tgt::IoKind::kRead)], 1u);
        EXPECT_EQ(s.hosts.at("nqn.host-b").count(2), 0u);
        // The second pass: every queue is gone, the counts per namespace and per host are not.
        for (auto *q : {&a1, &a2, &b, &idle}) {
            sub.detach(q->get());
            q->reset();
        }
    }
}

TEST(MetricsNamespaceCounters, RetiredHostsBeyondTheLimitCountTogether) {
    tgt::SubsystemIoMetrics sub;
    for (size_t i = 0; i < tgt::SubsystemIoMetrics::kMaxHosts + 3; ++i) {
        tgt::QueueIoMetrics q;
        sub.attach(&q, "nqn.host-" + std::to_string(i));
        q.ns(1).record(tgt::IoKind::kRead, 512, 0, 1000);
        sub.detach(&q);
    }
    const tgt::SubsystemIoMetrics::Snapshot s = sub.snapshot();
    EXPECT_EQ(s.hosts.size(), tgt::SubsystemIoMetrics::kMaxHosts + 1);
    EXPECT_EQ(s.hosts.at(tgt::SubsystemIoMetrics::kOtherHosts).at(1).commands[0], 3u);
    EXPECT_EQ(s.namespaces.at(1).commands[0], tgt::SubsystemIoMetrics::kMaxHosts + 3);
}

// A queue takes memory for the namespaces it serves only, in blocks of 32 nsids: nsid 1024's
// block comes with its first command and is summed like the others.
TEST(MetricsNamespaceCounters, AQueueHoldsBlocksOnlyForTheNamespacesItServed) {
    tgt::SubsystemIoMetrics sub;
    auto q = std::make_unique<tgt::QueueIoMetrics>();
    sub.attach(q.get(), "nqn.host-a");
    EXPECT_EQ(q->find(1024), nullptr);
    EXPECT_EQ(q->find(1), nullptr);
    q->ns(1024).record(tgt::IoKind::kWrite, 4096, 0, 1000);
    ASSERT_NE(q->find(1024), nullptr);
    EXPECT_NE(q->find(993), nullptr) << "the same block of 32 (993..1024)";
    EXPECT_EQ(q->find(992), nullptr);
    EXPECT_EQ(&q->ns(1024), q->find(1024)) << "made once";
    tgt::SubsystemIoMetrics::Totals t = sub.totals();
    ASSERT_EQ(t.size(), 1u) << "only namespaces that saw commands";
    EXPECT_EQ(t.at(1024).write_bytes, 4096u);
    sub.detach(q.get());
    q.reset();
    EXPECT_EQ(sub.totals().at(1024).commands[size_t(tgt::IoKind::kWrite)], 1u);
}

TEST(MetricsNamespaceCounters, StatusesBeyondTheSlotsCountAsOther) {
    tgt::QueueIoMetrics q;
    for (uint8_t sc = 1; sc <= 10; ++sc) q.ns(2).record(tgt::IoKind::kRead, 0, tgt::error_key(0, sc), 1);
    q.ns(2).record(tgt::IoKind::kRead, 0, tgt::error_key(0, 1), 1);
    const tgt::NamespaceIoTotals t = q.ns(2).totals();
    EXPECT_EQ(t.errors.at(tgt::error_key(0, 1)), 2u);
    EXPECT_EQ(t.errors.at(tgt::kOtherErrors), 2u); // sc 9 and 10
    uint64_t all = 0;
    for (auto &[k, n] : t.errors) all += n;
    EXPECT_EQ(all, 11u);
}

} // namespace
} // namespace skiff::dataplane::metrics
