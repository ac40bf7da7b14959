// The Prometheus endpoint of the real skiff-target (--metrics on a free loopback port), scraped
// over a real TCP socket while skiff-perf drives I/O: the namespace counters equal what
// skiff-perf completed, across connections that are gone; the latency histogram counts every
// command and its median fits skiff-perf's own latencies; hostile requests get their error and
// the target keeps serving; promtool finds nothing to say about a scrape.
#include "../support/build_paths.hpp"
#include "metrics_scrape.hpp"
#include "target_fixture.hpp"

#include <nlohmann/json.hpp>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

namespace skiff::itest {
namespace {

using namespace std::chrono_literals;

struct PerfResult {
    int exit_code;
    std::string out;
    nlohmann::json j;
};

class MetricsTest : public TargetTest {
  protected:
    void start_with_metrics() {
        metrics_port_ = free_port();
        start_target({"--metrics", "127.0.0.1:" + std::to_string(metrics_port_)});
    }

    // GET /metrics; fails the test unless the answer is 200 with the exposition content type.
    std::string scrape() {
        std::string r = http_exchange(metrics_port_, "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
        EXPECT_EQ(status_line(r), "HTTP/1.1 200 OK") << r.substr(0, 400);
        EXPECT_NE(r.find("Content-Type: text/plain; version=0.0.4"), std::string::npos) << r.substr(0, 400);
        const size_t body = r.find("\r\n\r\n");
        return body == std::string::npos ? "" : r.substr(body + 4);
    }

    PerfResult perf(const std::string &args) {
        CommandOutput r =
            run_command(skiff::test::bin_dir() + "/skiff-perf --port " + std::to_string(io_port_) +
                        " --nqn " + kNqn + " --no-progress --ramp 0 --json " + args);
        const size_t at = r.output.rfind("\n{");
        const std::string line = r.output.substr(at == std::string::npos ? 0 : at + 1);
        return {r.exit_code, r.output, nlohmann::json::parse(line, nullptr, false)};
    }

    std::vector<std::pair<std::string, std::string>> ns1() const {
        return {{"subsystem", kNqn}, {"nsid", "1"}};
    }

    uint64_t counter(const Samples &s, const std::string &name) {
        auto v = sample_value(s, name, ns1());
        EXPECT_TRUE(v.has_value()) << name << " not in the scrape";
        return v ? uint64_t(*v) : 0;
    }

    uint16_t metrics_port_ = 0;
};

// The latency histogram of one op, cumulative per le, from a scrape.
std::map<double, double> buckets(const Samples &s, const std::string &op) {
    std::map<double, double> out;
    const std::string prefix = "skiff_namespace_latency_seconds_bucket{";
    for (auto &[key, v] : s) {
        if (key.rfind(prefix, 0) != 0 || key.find("op=\"" + op + "\"") == std::string::npos) continue;
        if (key.find(std::string("subsystem=\"") + kNqn + "\"") == std::string::npos) continue;
        const size_t le = key.find("le=\"") + 4;
        const std::string bound = key.substr(le, key.find('"', le) - le);
        out[bound == "+Inf" ? 1e300 : std::stod(bound)] = v;
    }
    return out;
}

TEST_F(MetricsTest, CountsMatchSkiffPerfAcrossConnectionsAndLatencyFitsItsRange) {
    start_with_metrics();
    const Samples idle = parse_samples(scrape());
    EXPECT_EQ(counter(idle, "skiff_namespace_read_commands_total"), 0u);

    uint64_t reads = 0, writes = 0;
    double client_p99_us = 0, client_max_us = 0;
    for (int run = 0; run < 2; ++run) { // the second run's connections are new: totals carry over
        PerfResult p = perf("--rw randrw --rwmixread 50 --bs 4k --qd 4 --queues 2 --time 500ms");
        ASSERT_EQ(p.exit_code, 0) << p.out;
        ASSERT_TRUE(p.j.is_object()) << p.out;
        reads += p.j["all_reads"].get<uint64_t>();
        writes += p.j["all_writes"].get<uint64_t>();
        client_p99_us = std::max(client_p99_us, p.j["latency_us"]["p99"].get<double>());
        client_max_us = std::max(client_max_us, p.j["latency_us"]["max"].get<double>());
        ASSERT_GT(reads, 0u) << p.out;
        ASSERT_GT(writes, 0u) << p.out;
        // skiff-perf has disconnected; its queues are gone, its counts are not.
        const Samples s = parse_samples(scrape());
        EXPECT_EQ(counter(s, "skiff_namespace_read_commands_total"), reads) << "run " << run;
        EXPECT_EQ(counter(s, "skiff_namespace_write_commands_total"), writes) << "run " << run;
        EXPECT_EQ(counter(s, "skiff_namespace_read_bytes_total"), reads * 4096) << "run " << run;
        EXPECT_EQ(counter(s, "skiff_namespace_write_bytes_total"), writes * 4096) << "run " << run;
        EXPECT_EQ(counter(s, "skiff_namespace_other_commands_total"), 0u);
    }

    const Samples s = parse_samples(scrape());
    std::map<double, double> all;
    for (const char *op : {"read", "write"}) {
        const auto b = buckets(s, op);
        ASSERT_FALSE(b.empty()) << op;
        const double count = b.rbegin()->second; // le="+Inf"
        EXPECT_EQ(count,
                  sample_value(s, "skiff_namespace_latency_seconds_count", {{"subsystem", kNqn}, {"op", op}})
                      .value_or(-1));
        EXPECT_EQ(uint64_t(count), std::string(op) == "read" ? reads : writes) << op;
        double previous = 0;
        for (auto &[le, c] : b) {
            EXPECT_GE(c, previous) << op << " buckets must be cumulative, at le=" << le;
            previous = c;
            all[le] += c;
        }
    }
    // The median of every command from the buckets: it lies in (lower, upper]. The target's time
    // is part of skiff-perf's, so the lower edge cannot be above skiff-perf's slow end.
    const double half = all.rbegin()->second / 2;
    double lower = 0, upper = 0;
    for (auto &[le, c] : all) {
        if (c >= half) {
            upper = le;
            break;
        }
        lower = le;
    }
    EXPECT_GT(upper, 0.0);
    EXPECT_LT(upper, 1e300) << "the median is above 1 s";
    EXPECT_LE(lower * 1e6, client_p99_us) << "median in (" << lower << ", " << upper << "] s";
    EXPECT_LE(lower * 1e6, client_max_us);
    const double sum =
        *sample_value(s, "skiff_namespace_latency_seconds_sum", {{"subsystem", kNqn}, {"op", "read"}});
    EXPECT_GT(sum, 0.0);
}

TEST_F(MetricsTest, ErrorsAreCountedByStatus) {
    start_with_metrics();
    auto ctrl = connect(options());
    ASSERT_NE(ctrl, nullptr);
    std::vector<uint8_t> buf(kBlock);
    const uint64_t past_end = kSizeBytes / kBlock;
    EXPECT_FALSE(ctrl->read(0, 1, past_end, 1, buf.data(), kBlock).ok());
    ASSERT_OK(ctrl->read(0, 1, 0, 1, buf.data(), kBlock));
    const Samples s = parse_samples(scrape());
    auto errors = sample_value(
        s, "skiff_namespace_errors_total",
        {{"subsystem", kNqn}, {"nsid", "1"}, {"status", "lba_out_of_range"}, {"sct", "0x0"}, {"sc", "0x80"}});
    ASSERT_TRUE(errors.has_value()) << "no lba_out_of_range series";
    EXPECT_EQ(*errors, 1.0);
    EXPECT_EQ(counter(s, "skiff_namespace_read_commands_total"), 2u); // the failed one too
    EXPECT_EQ(counter(s, "skiff_namespace_read_bytes_total"), uint64_t(kBlock));
    // The connected controller: its admin and I/O queue.
    auto queues = sample_value(s, "skiff_controller_queues", {{"subsystem", kNqn}});
    ASSERT_TRUE(queues.has_value());
    EXPECT_GE(*queues, 2.0);
    auto accepted =
        sample_value(s, "skiff_listener_connections_accepted_total",
                     {{"listener", "127.0.0.1:" + std::to_string(io_port_)}, {"transport", "tcp"}});
    ASSERT_TRUE(accepted.has_value());
    EXPECT_GE(*accepted, 2.0);
}

TEST_F(MetricsTest, HostileRequestsGetTheirErrorAndTheTargetKeepsServing) {
    start_with_metrics();
    EXPECT_EQ(status_line(http_exchange(metrics_port_, "GARBAGE\r\n\r\n")), "HTTP/1.1 400 Bad Request");
    EXPECT_EQ(
        status_line(http_exchange(metrics_port_, std::string("GET /metrics HTTP/1.1\r\nX: \x01\r\n\r\n"))),
        "HTTP/1.1 400 Bad Request");
    EXPECT_EQ(
        status_line(http_exchange(metrics_port_, "POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n")),
        "HTTP/1.1 405 Method Not Allowed");
    EXPECT_EQ(status_line(http_exchange(metrics_port_, "GET /debug HTTP/1.1\r\n\r\n")),
              "HTTP/1.1 404 Not Found");
    EXPECT_EQ(
        status_line(http_exchange(metrics_port_, "GET /metrics HTTP/1.1\r\nX: " + std::string(20000, 'a'))),
        "HTTP/1.1 431 Request Header Fields Too Large");

    // Connections that never send a head hold the endpoint's few slots; one more is turned away.
    std::vector<int> idle;
    for (int i = 0; i < 4; ++i) idle.push_back(connect_loopback(metrics_port_));
    std::this_thread::sleep_for(200ms); // accepted by the server thread
    EXPECT_EQ(status_line(http_exchange(metrics_port_, "")), "HTTP/1.1 503 Service Unavailable");
    for (int fd : idle) ::close(fd);

    // Still serving: scrapes (once the server has seen the idle ones go) and NVMe I/O.
    std::string r;
    for (int i = 0; i < 50; ++i) {
        r = http_exchange(metrics_port_, "GET /metrics HTTP/1.0\r\n\r\n");
        if (status_line(r) != "HTTP/1.1 503 Service Unavailable") break;
        std::this_thread::sleep_for(50ms);
    }
    EXPECT_EQ(status_line(r), "HTTP/1.1 200 OK");
    expect_io_through(io_port_);
    EXPECT_TRUE(target_->running());
}

TEST_F(MetricsTest, SlowHeadTimesOut) {
    start_with_metrics();
    int fd = connect_loopback(metrics_port_);
    ASSERT_GE(fd, 0);
    (void)::send(fd, "GET /metr", 9, MSG_NOSIGNAL);
    const auto start = std::chrono::steady_clock::now();
    std::string out;
    char buf[1024];
    for (ssize_t n; (n = ::recv(fd, buf, sizeof(buf), 0)) > 0;) out.append(buf, size_t(n));
    ::close(fd);
    EXPECT_EQ(status_line(out), "HTTP/1.1 408 Request Timeout");
    EXPECT_LT(std::chrono::steady_clock::now() - start, 9s);
}

TEST_F(MetricsTest, PromtoolFindsNothingToSayAboutAScrape) {
    if (run_host_tool("command -v promtool").exit_code != 0)
        GTEST_SKIP() << "promtool is not installed (Debian package prometheus, in scripts/install-deps.sh)";
    start_with_metrics();
    auto ctrl = connect(options()); // a controller and an error, so every family has samples
    ASSERT_NE(ctrl, nullptr);
    std::vector<uint8_t> buf(kBlock);
    (void)ctrl->read(0, 1, kSizeBytes / kBlock, 1, buf.data(), kBlock);
    ASSERT_OK(ctrl->read(0, 1, 0, 1, buf.data(), kBlock));
    const std::string body = scrape();
    const std::string file = ::testing::TempDir() + "skiff-metrics-" + std::to_string(::getpid()) + ".txt";
    std::ofstream(file) << body;
    CommandOutput r = run_host_tool("promtool check metrics < " + file);
    std::filesystem::remove(file);
    EXPECT_EQ(r.exit_code, 0) << r.output << "\n---- scrape:\n" << body;
    EXPECT_EQ(r.output, "") << "---- scrape:\n" << body;
}

// The families a scrape declares (its TYPE lines), with a histogram's _bucket, _sum and _count.
std::set<std::string> exported_names(const std::string &body) {
    std::set<std::string> out;
    std::istringstream in(body);
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("# TYPE ", 0) != 0) continue;
        std::istringstream words(line.substr(7));
        std::string name, type;
        words >> name >> type;
        out.insert(name);
        if (type == "histogram")
            for (const char *suffix : {"_bucket", "_sum", "_count"}) out.insert(name + suffix);
    }
    return out;
}

// Every PromQL expression of a Grafana dashboard: the panels' targets and the variables' queries.
void collect_expressions(const nlohmann::json &j, std::vector<std::string> &out) {
    if (j.is_object()) {
        for (auto &[key, v] : j.items()) {
            if ((key == "expr" || key == "definition") && v.is_string()) out.push_back(v.get<std::string>());
            collect_expressions(v, out);
        }
    } else if (j.is_array()) {
        for (auto &v : j) collect_expressions(v, out);
    }
}

TEST_F(MetricsTest, GrafanaDashboardNamesOnlyExportedMetrics) {
    start_with_metrics();
    const std::set<std::string> exported = exported_names(scrape());
    ASSERT_TRUE(exported.count("skiff_namespace_read_commands_total"));
    std::ifstream in(skiff::test::source_dir() + "/packaging/grafana/skiff-dashboard.json");
    ASSERT_TRUE(in) << "packaging/grafana/skiff-dashboard.json";
    const nlohmann::json dashboard = nlohmann::json::parse(in, nullptr, false);
    ASSERT_FALSE(dashboard.is_discarded()) << "the dashboard is not JSON";
    std::vector<std::string> exprs;
    collect_expressions(dashboard, exprs);
    ASSERT_GE(exprs.size(), 10u);
    const std::regex metric(R"(\bskiff_[a-z0-9_]+)");
    size_t names = 0;
    for (const std::string &e : exprs) {
        bool any = false;
        for (std::sregex_iterator it(e.begin(), e.end(), metric), end; it != end; ++it) {
            EXPECT_TRUE(exported.count(it->str())) << it->str() << " (in " << e << ") is not exported";
            any = true;
            ++names;
        }
        EXPECT_TRUE(any) << "an expression that names no skiff metric: " << e;
    }
    EXPECT_GE(names, 10u);
}

// A free TCP port on loopback for a helper process.
std::string loopback_port_text(uint16_t port) {
    return "127.0.0.1:" + std::to_string(port);
}

TEST_F(MetricsTest, PrometheusScrapesTheTarget) {
    if (run_host_tool("command -v prometheus").exit_code != 0)
        GTEST_SKIP() << "prometheus is not installed (Debian package prometheus, in scripts/install-deps.sh)";
    start_with_metrics();
    PerfResult p = perf("--rw randread --bs 4k --qd 4 --time 300ms");
    ASSERT_EQ(p.exit_code, 0) << p.out;
    const uint64_t reads = p.j["all_reads"].get<uint64_t>();
    ASSERT_GT(reads, 0u);

    const std::string dir = ::testing::TempDir() + "skiff-prometheus-" + std::to_string(::getpid());
    std::filesystem::create_directories(dir + "/data");
    std::ofstream(dir + "/prometheus.yml") << "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
                                              "scrape_configs:\n  - job_name: skiff\n    static_configs:\n"
                                              "      - targets: ['"
                                           << loopback_port_text(metrics_port_) << "']\n";
    const uint16_t web = free_port();
    const std::string log = dir + "/prometheus.log";
    // Everything the child needs is made before fork(): it only redirects and execs.
    const std::string config = "--config.file=" + dir + "/prometheus.yml";
    const std::string storage = "--storage.tsdb.path=" + dir + "/data";
    const std::string listen = "--web.listen-address=" + loopback_port_text(web);
    const pid_t pid = ::fork();
    if (pid == 0) {
        const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        ::dup2(fd, 1);
        ::dup2(fd, 2);
        ::execlp("prometheus", "prometheus", config.c_str(), storage.c_str(), listen.c_str(), nullptr);
        ::_exit(127);
    }
    ASSERT_GT(pid, 0);

    // Prometheus starts, scrapes every second; the query answers once a scrape landed.
    std::string answer, value_text;
    const auto deadline = std::chrono::steady_clock::now() + 60s;
    while (std::chrono::steady_clock::now() < deadline && value_text.empty()) {
        std::this_thread::sleep_for(500ms);
        answer = http_exchange(
            web, "GET /api/v1/query?query=skiff_namespace_read_commands_total HTTP/1.0\r\n\r\n");
        const size_t body = answer.find("\r\n\r\n");
        if (body == std::string::npos) continue;
        const nlohmann::json j = nlohmann::json::parse(answer.substr(body + 4), nullptr, false);
        if (j.is_discarded() || !j.contains("data") || j["data"]["result"].empty()) continue;
        const nlohmann::json &series = j["data"]["result"][0];
        EXPECT_EQ(series["metric"]["subsystem"], kNqn);
        EXPECT_EQ(series["metric"]["nsid"], "1");
        value_text = series["value"][1].get<std::string>();
    }
    ::kill(pid, SIGTERM);
    int status = 0;
    ::waitpid(pid, &status, 0);
    std::string prometheus_log;
    if (std::ifstream l(log); l)
        prometheus_log.assign(std::istreambuf_iterator<char>(l), std::istreambuf_iterator<char>());
    std::filesystem::remove_all(dir);
    ASSERT_FALSE(value_text.empty()) << "no sample in Prometheus after 60 s; last answer:\n"
                                     << answer << "\n---- prometheus log:\n"
                                     << prometheus_log;
    EXPECT_EQ(value_text, std::to_string(reads));
}

} // namespace
} // namespace skiff::itest
