// LiveConfig in-process: differences applied to a running target (namespaces, subsystems,
// listeners, hosts), refusals that change nothing, and namespace removal while other poll
// groups have I/O in flight on the subsystem.
#include "skiff/config/load.hpp"
#include "skiff/dataplane/live_config.hpp"
#include "skiff/nvmeof/host/controller.hpp"
#include "../helpers/free_port.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sys/socket.h>
#include <unistd.h>
#include <netinet/in.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

namespace skiff::dataplane {
namespace {

using nlohmann::json;
namespace tgt = nvmeof::target;
using itest::free_port;

const std::string kA = "nqn.2026-11.io.skiff:live-a";
const std::string kB = "nqn.2026-11.io.skiff:live-b";

config::Config parse(const json &doc) {
    config::LoadResult r = config::parse_config(doc);
    EXPECT_TRUE(r.ok()) << r.error_text();
    return r.ok() ? *r.config : config::Config{};
}

json base_doc() {
    return json::parse(R"({
      "target": {"cores": 2},
      "backends": [{"name": "b1", "kind": "ram", "size": "16MiB"}, {"name": "b2", "kind": "ram", "size": "16MiB"}],
      "subsystems": [{"nqn": "nqn.2026-11.io.skiff:live-a",
                      "namespaces": [{"nsid": 1, "backend": "b1"}, {"nsid": 2, "backend": "b2"}]}],
      "listeners": [{"trtype": "tcp", "addr": "127.0.0.1", "port": 0}]
    })");
}

// A running target built from a configuration, as skiff-target builds it.
struct Running {
    explicit Running(const json &doc)
        : cfg(parse(doc)), target(limits_from(cfg.transport())), live(target, cfg) {
        EXPECT_TRUE(live.build().ok());
        ServiceOptions o;
        o.poll_groups = cfg.target.cores;
        service = std::make_unique<TargetService>(target, o);
        EXPECT_TRUE(service->start().ok());
        EXPECT_TRUE(live.attach(*service).ok());
    }
    ~Running() { service->stop(); }
    uint16_t port(size_t i = 0) const { return service->bound().at(i).port; }

    config::Config cfg;
    tgt::Target target;
    LiveConfig live;
    std::unique_ptr<TargetService> service;
};

std::unique_ptr<nvmeof::host::Controller> connect(uint16_t port, const std::string &nqn,
                                                  uint16_t io_queues = 1) {
    nvmeof::host::ConnectOptions o;
    o.port = port;
    o.subnqn = nqn;
    o.io_queues = io_queues;
    o.timeout = std::chrono::seconds(10);
    auto c = nvmeof::host::Controller::connect(o);
    if (!c) return nullptr;
    return std::move(c.value());
}

TEST(LiveConfig, BuildsWhatTheConfigurationDescribes) {
    Running r(base_doc());
    auto s = r.target.find_subsystem(kA);
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(s->namespaces().size(), 2u);
    auto host = connect(r.port(), kA);
    ASSERT_NE(host, nullptr);
    auto active = host->active_namespaces();
    ASSERT_TRUE(active.ok());
    EXPECT_EQ(*active, (std::vector<uint32_t>{1, 2}));
}

TEST(LiveConfig, NamespaceRemovedWhileOtherPollGroupsDoIo) {
    Running r(base_doc());
    auto host = connect(r.port(), kA, 2); // admin and I/O queues spread over both poll groups
    ASSERT_NE(host, nullptr);
    ASSERT_EQ(host->io_queue_count(), 2u);
    json without = base_doc();
    without["subsystems"][0]["namespaces"].erase(1);
    without["backends"].erase(1);

    std::atomic<bool> stop{false};
    std::atomic<uint64_t> ns1_failures{0}, ns1_ok{0}, ns2_ok{0}, ns2_failed{0};
    std::thread steady([&] {
        std::vector<uint8_t> out(4096), in(4096);
        for (uint64_t i = 0; !stop; ++i) {
            std::fill(out.begin(), out.end(), uint8_t(i));
            bool ok = host->write(0, 1, (i % 64) * 8, 8, out.data(), 4096).ok() &&
                      host->read(0, 1, (i % 64) * 8, 8, in.data(), 4096).ok() && in == out;
            (ok ? ns1_ok : ns1_failures)++;
        }
    });
    std::thread churn([&] {
        std::vector<uint8_t> buf(4096);
        while (!stop) (host->read(1, 2, 0, 8, buf.data(), 4096).ok() ? ns2_ok : ns2_failed)++;
    });
    std::vector<std::weak_ptr<tgt::Namespace>> removed;
    // Wait (bounded) until the churning queue has seen the change, so removals really race I/O.
    auto seen = [](std::atomic<uint64_t> &counter) {
        uint64_t start = counter;
        for (int i = 0; i < 10000 && counter < start + 3; ++i)
            std::this_thread::sleep_for(std::chrono::microseconds(100));
        return counter >= start + 3;
    };
    for (int round = 0; round < 20; ++round) {
        auto s = r.target.find_subsystem(kA);
        removed.push_back(s->namespaces().back());
        ASSERT_TRUE(r.live.apply(parse(without)).ok());
        EXPECT_TRUE(seen(ns2_failed)) << "reads of the removed namespace must fail";
        ASSERT_TRUE(r.live.apply(parse(base_doc())).ok());
        EXPECT_TRUE(seen(ns2_ok)) << "reads of the namespace added again must succeed";
        r.live.reap(); // retire while I/O runs
    }
    stop = true;
    steady.join();
    churn.join();
    EXPECT_EQ(ns1_failures, 0u) << "I/O on the namespace that stayed must never fail";
    EXPECT_GT(ns1_ok, 0u);
    EXPECT_GT(ns2_ok + ns2_failed, 0u);
    // The connection that raced the removals still works.
    std::vector<uint8_t> buf(4096);
    EXPECT_TRUE(host->read(1, 2, 0, 8, buf.data(), 4096).ok());
    // Every removed namespace is destroyed once quiescent (bounded wait, no timing asserted).
    for (int i = 0; i < 200 && r.live.reap() > 0; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_EQ(r.live.reap(), 0u);
    for (auto &w : removed) EXPECT_TRUE(w.expired());
}

TEST(LiveConfig, RefusedChangesChangeNothing) {
    Running r(base_doc());
    // A listener that cannot bind, together with a new namespace: neither happens.
    int blocker = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::bind(blocker, reinterpret_cast<sockaddr *>(&a), sizeof(a)), 0);
    ASSERT_EQ(::listen(blocker, 1), 0);
    socklen_t len = sizeof(a);
    getsockname(blocker, reinterpret_cast<sockaddr *>(&a), &len);
    uint16_t busy = ntohs(a.sin_port);
    json next = base_doc();
    next["backends"].push_back({{"name", "b3"}, {"kind", "ram"}, {"size", "16MiB"}});
    next["subsystems"][0]["namespaces"].push_back({{"nsid", 3}, {"backend", "b3"}});
    next["listeners"].push_back({{"trtype", "tcp"}, {"addr", "127.0.0.1"}, {"port", busy}});
    auto res = r.live.apply(parse(next));
    ASSERT_FALSE(res.ok());
    EXPECT_NE(res.error().message.find("listener tcp 127.0.0.1:" + std::to_string(busy)), std::string::npos)
        << res.error().message;
    EXPECT_EQ(r.target.find_subsystem(kA)->namespaces().size(), 2u);
    EXPECT_EQ(r.service->bound().size(), 1u);
    EXPECT_EQ(r.live.running().backends.size(), 2u);
    ::close(blocker);

    json cores = base_doc();
    cores["target"]["cores"] = 3;
    res = r.live.apply(parse(cores));
    ASSERT_FALSE(res.ok());
    EXPECT_EQ(res.error().message, "target.cores: changing the number of poll groups needs a restart");

    json datapath = base_doc();
    datapath["target"]["datapath"] = "dpa";
    res = r.live.apply(parse(datapath));
    ASSERT_FALSE(res.ok());
    EXPECT_EQ(res.error().message,
              "target.datapath: changing the data path (or target.dpa.eus) needs a restart");

    json zero_copy = base_doc();
    zero_copy["transports"] = {{{"trtype", "tcp"}, {"zero_copy_read_min", 0}}};
    res = r.live.apply(parse(zero_copy));
    ASSERT_FALSE(res.ok());
    EXPECT_NE(res.error().message.find("transports: every transport setting"), std::string::npos)
        << res.error().message;
    EXPECT_EQ(r.live.running().transport().zero_copy_read_min, 32u * 1024);

    // Queues decide at Connect whether they count: the accounting is a start setting.
    json accounting = base_doc();
    accounting["metrics"] = {{"accounting", true}};
    res = r.live.apply(parse(accounting));
    ASSERT_FALSE(res.ok());
    EXPECT_EQ(res.error().message,
              "metrics: moving or turning the metrics endpoint (metrics.listen) or the I/O "
              "accounting (metrics.accounting) on or off needs a restart");
    EXPECT_FALSE(r.live.running().metrics.accounting);
}

// A configuration whose only change is a backend's larger size (a file edited, then SIGHUP):
// the same device and namespace objects grow; a connected host keeps its controller and data.
TEST(LiveConfig, ALargerBackendSizeGrowsTheNamespaceInPlace) {
    Running r(base_doc());
    auto s = r.target.find_subsystem(kA);
    const tgt::Namespace *before = s->find_namespace(1);
    auto host = connect(r.port(), kA);
    ASSERT_NE(host, nullptr);
    std::vector<uint8_t> data(4096, 0x42), back(4096);
    ASSERT_TRUE(host->write(0, 1, (16u << 20) / 512 - 8, 8, data.data(), 4096).ok());

    json next = base_doc();
    next["backends"][0]["size"] = "48MiB";
    auto res = r.live.apply(parse(next));
    ASSERT_TRUE(res.ok()) << res.error().message;
    EXPECT_NE(std::find(res->begin(), res->end(), "namespace 1 of " + kA + " grew to 50331648 bytes"),
              res->end());
    EXPECT_EQ(s->find_namespace(1), before) << "the namespace was made anew";
    EXPECT_EQ(before->num_blocks(), (48u << 20) / 512);
    EXPECT_EQ(s->find_namespace(2)->num_blocks(), (16u << 20) / 512);
    EXPECT_EQ(r.live.running().find_backend("b1")->size_bytes, 48u << 20);
    ASSERT_TRUE(host->read(0, 1, (16u << 20) / 512 - 8, 8, back.data(), 4096).ok());
    EXPECT_EQ(back, data);
    ASSERT_TRUE(host->write(0, 1, (48u << 20) / 512 - 8, 8, data.data(), 4096).ok());

    // Past the RAM reservation: refused whole, nothing changes.
    json huge = base_doc();
    huge["backends"][0]["size"] = "1GiB";
    res = r.live.apply(parse(huge));
    ASSERT_FALSE(res.ok());
    EXPECT_NE(res.error().message.find("backend \"b1\" cannot grow"), std::string::npos)
        << res.error().message;
    EXPECT_EQ(before->num_blocks(), (48u << 20) / 512);
}

TEST(LiveConfig, PerListenerSubsystemsAndHosts) {
    json doc = base_doc();
    doc["listeners"][0]["port"] = free_port();
    Running r(doc);
    const std::string host_nqn = "nqn.2014-08.org.nvmexpress:uuid:0c8f2d2e-1a54-4f8a-9a55-3b1c7c9e00aa";
    // A second subsystem, reachable only through a second listener, and only for one host.
    doc["backends"].push_back({{"name", "b3"}, {"kind", "null"}, {"size", "1GiB"}});
    doc["subsystems"].push_back({{"nqn", kB},
                                 {"allowed_hosts", {host_nqn}},
                                 {"cntlid_min", 100},
                                 {"cntlid_max", 101},
                                 {"namespaces", {{{"nsid", 1}, {"backend", "b3"}}}}});
    doc["listeners"][0]["subsystems"] = {kA};
    doc["listeners"].push_back(
        {{"trtype", "tcp"}, {"addr", "127.0.0.1"}, {"port", free_port()}, {"subsystems", {kB}}});
    auto res = r.live.apply(parse(doc));
    ASSERT_TRUE(res.ok()) << res.error().message;
    ASSERT_EQ(r.service->bound().size(), 2u);
    uint16_t port_a = r.port(0), port_b = r.port(1);

    nvmeof::host::ConnectOptions o;
    o.timeout = std::chrono::seconds(10);
    o.subnqn = kB;
    o.port = port_a;
    o.host.hostnqn = host_nqn;
    EXPECT_FALSE(nvmeof::host::Controller::connect(o).ok()) << "B is not exposed on A's listener";
    o.port = port_b;
    auto first = nvmeof::host::Controller::connect(o);
    ASSERT_TRUE(first.ok()) << first.error().message;
    EXPECT_EQ((*first)->cntlid(), 100);
    auto second = nvmeof::host::Controller::connect(o);
    ASSERT_TRUE(second.ok());
    EXPECT_EQ((*second)->cntlid(), 101);
    EXPECT_FALSE(nvmeof::host::Controller::connect(o).ok()) << "the controller id range is used up";
    o.host = nvmeof::host::HostIdentity::generate();
    EXPECT_FALSE(nvmeof::host::Controller::connect(o).ok()) << "that host is not on B's list";

    // The discovery log of A's listener lists A only.
    nvmeof::host::ConnectOptions d;
    d.port = port_a;
    d.timeout = std::chrono::seconds(10);
    auto disc = nvmeof::host::Controller::connect(d);
    ASSERT_TRUE(disc.ok());
    auto log = (*disc)->discovery_log();
    ASSERT_TRUE(log.ok());
    std::vector<std::string> listed;
    for (auto &e : log->entries)
        if (e.subtype == NVME_NQN_NVME)
            listed.push_back(nvmeof::host::trim_field(e.subnqn, sizeof(e.subnqn)));
    EXPECT_EQ(listed, std::vector<std::string>{kA}) << "B is listed only for its allowed host";
    d.host.hostnqn = host_nqn;
    disc = nvmeof::host::Controller::connect(d);
    ASSERT_TRUE(disc.ok());
    log = (*disc)->discovery_log();
    ASSERT_TRUE(log.ok());
    listed.clear();
    for (auto &e : log->entries)
        if (e.subtype == NVME_NQN_NVME)
            listed.push_back(nvmeof::host::trim_field(e.subnqn, sizeof(e.subnqn)));
    EXPECT_EQ(listed, (std::vector<std::string>{kA, kB})) << "A through A's listener, B through B's";
}

} // namespace
} // namespace skiff::dataplane
