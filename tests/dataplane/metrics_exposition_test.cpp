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
    sub.attach(a.get());
    sub.attach(b.get());
    a->ns(1).record(tgt::IoKind::kRead, 4096, 0, 2000);
    b->ns(1).record(tgt::IoKind::kWrite, 512, 0, 30'000);
    b->ns(1).record(tgt::IoKind::kRead, 0, tgt::error_key(NVME_SCT_MEDIA, NVME_SC_READ_ERROR), 40'000);
    b->ns(3).record(tgt::IoKind::kOther, 0, 0, 500);
    const auto before = sub.totals();
    sub.detach(b.get());
    b.reset(); // the queue is gone; its counts are not
    const auto after = sub.totals();
    for (const auto *t : {&before, &after}) {
        const tgt::NamespaceIoTotals &ns1 = (*t)[0];
        EXPECT_EQ(ns1.commands[size_t(tgt::IoKind::kRead)], 2u);
        EXPECT_EQ(ns1.commands[size_t(tgt::IoKind::kWrite)], 1u);
        EXPECT_EQ(ns1.read_bytes, 4096u);
        EXPECT_EQ(ns1.write_bytes, 512u);
        EXPECT_EQ(ns1.errors.at(tgt::error_key(NVME_SCT_MEDIA, NVME_SC_READ_ERROR)), 1u);
        EXPECT_EQ(ns1.latency[size_t(tgt::IoKind::kRead)].count(), 2u);
        EXPECT_EQ((*t)[2].commands[size_t(tgt::IoKind::kOther)], 1u);
    }
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
