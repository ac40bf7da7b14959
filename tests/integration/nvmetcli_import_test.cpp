// A user switching from Linux nvmet: skiff-target --nvmetcli serves the saved nvmetcli
// config.json — the same subsystems on the same ports, host lists kept, namespaces on files
// through the aio backend — and the in-repo initiator does I/O through it.
#include "target_fixture.hpp"

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace skiff::itest {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;
namespace fs = std::filesystem;
namespace host = nvmeof::host;

const std::string kDb = "nqn.2026-11.com.example:db";
const std::string kLogs = "nqn.2026-11.com.example:logs";
const std::string kDbHost = "nqn.2014-08.org.nvmexpress:uuid:8f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b";

// A port as nvmetcli saves it; traddr "::1" makes it an IPv6 one.
json nvmet_port(int id, uint16_t port, std::vector<std::string> subsystems,
                const std::string &traddr = "127.0.0.1") {
    return {{"addr",
             {{"adrfam", traddr.find(':') == std::string::npos ? "ipv4" : "ipv6"},
              {"traddr", traddr},
              {"treq", "not specified"},
              {"trsvcid", std::to_string(port)},
              {"trtype", "tcp"}}},
            {"ana_groups", {{{"ana", {{"state", "optimized"}}}, {"grpid", 1}}}},
            {"param", {{"inline_data_size", "16384"}, {"pi_enable", "0"}}},
            {"portid", id},
            {"referrals", json::array()},
            {"subsystems", subsystems}};
}

json nvmet_ns(int nsid, const std::string &path) {
    return {{"ana_grpid", 1},
            {"device",
             {{"nguid", "00000000-0000-0000-0000-000000000000"},
              {"path", path},
              {"uuid", "00000000-0000-0000-0000-000000000000"}}},
            {"enable", 1},
            {"nsid", nsid}};
}

TEST(NvmetcliImport, ServesTheSameSubsystemsOnTheSamePorts) {
    char tmpl[] = "/var/tmp/skiff-nvmetcli-XXXXXX"; // a real file system (O_DIRECT), not tmpfs
    fs::path dir = ::mkdtemp(tmpl);
    for (const char *f : {"db0.img", "db1.img", "logs.img"}) {
        std::ofstream(dir / f).close();
        fs::resize_file(dir / f, 16 << 20);
    }
    uint16_t p1 = free_port(), p2 = free_port();
    json cfg = {{"hosts", {{{"nqn", kDbHost}}}},
                {"ports", {nvmet_port(1, p1, {kDb, kLogs}), nvmet_port(2, p2, {kLogs})}},
                {"subsystems",
                 {{{"nqn", kDb},
                   {"allowed_hosts", {kDbHost}},
                   {"attr",
                    {{"allow_any_host", "0"},
                     {"serial", "5d0c2f5a3b9e8a71"},
                     {"model", "Linux"},
                     {"cntlid_min", "1"},
                     {"cntlid_max", "65519"},
                     {"version", "1.3"}}},
                   {"namespaces", {nvmet_ns(1, dir / "db0.img"), nvmet_ns(2, dir / "db1.img")}}},
                  {{"nqn", kLogs},
                   {"allowed_hosts", json::array()},
                   {"attr", {{"allow_any_host", "1"}, {"serial", "9e4b1c7d2a6f3e80"}, {"model", "Linux"}}},
                   {"namespaces", {nvmet_ns(1, dir / "logs.img")}}}}}};
    std::ofstream(dir / "config.json") << cfg.dump(2);

    std::vector<uint8_t> out(4096), in(4096);
    for (size_t i = 0; i < out.size(); ++i) out[i] = uint8_t(i * 7);
    auto run = [&](bool write) {
        TargetProcess target({"--nvmetcli", (dir / "config.json").string()}, p1);
        ASSERT_TRUE(target.started()) << target.log();
        host::ConnectOptions o;
        o.timeout = 10s;
        o.port = p1;
        o.subnqn = kDb;
        o.host.hostnqn = kDbHost;
        auto db = host::Controller::connect(o);
        ASSERT_TRUE(db.ok()) << db.error().describe() << "\n" << target.log();
        EXPECT_EQ(host::trim_field((*db)->identity().sn, sizeof((*db)->identity().sn)), "5d0c2f5a3b9e8a71");
        EXPECT_EQ(*(*db)->active_namespaces(), (std::vector<uint32_t>{1, 2}));
        if (write) {
            ASSERT_TRUE((*db)->write(0, 2, 1, 1, out.data(), 4096).ok());
        }
        ASSERT_TRUE((*db)->read(0, 2, 1, 1, in.data(), 4096).ok());
        EXPECT_EQ(in, out) << (write ? "read back" : "after a restart");
        o.host = host::HostIdentity::generate();
        EXPECT_FALSE(host::Controller::connect(o).ok()) << "db admits only its listed host";
        o.host.hostnqn = kDbHost;
        o.port = p2;
        EXPECT_FALSE(host::Controller::connect(o).ok()) << "db is not on port 2";
        o.subnqn = kLogs;
        auto logs = host::Controller::connect(o);
        ASSERT_TRUE(logs.ok()) << logs.error().describe();
        ASSERT_TRUE((*logs)->write(0, 1, 0, 1, out.data(), 4096).ok());
        EXPECT_EQ(target.stop(), 0);
    };
    run(true);
    if (!IsSkipped()) run(false); // the data is in the files: it survives a restart
    fs::remove_all(dir);
}

// An IPv6 port ("adrfam": "ipv6") is served on its address, and the initiator does I/O through it.
TEST(NvmetcliImport, ServesAnIpv6Port) {
    if (!has_ipv6_loopback()) GTEST_SKIP() << "this machine has no IPv6 loopback (::1 cannot be bound)";
    char tmpl[] = "/var/tmp/skiff-nvmetcli-XXXXXX"; // a real file system (O_DIRECT), not tmpfs
    fs::path dir = ::mkdtemp(tmpl);
    std::ofstream(dir / "logs.img").close();
    fs::resize_file(dir / "logs.img", 16 << 20);
    const uint16_t port = free_port();
    json cfg = {{"ports", {nvmet_port(1, port, {kLogs}, "::1")}},
                {"subsystems",
                 {{{"nqn", kLogs},
                   {"allowed_hosts", json::array()},
                   {"attr", {{"allow_any_host", "1"}, {"serial", "9e4b1c7d2a6f3e80"}, {"model", "Linux"}}},
                   {"namespaces", {nvmet_ns(1, dir / "logs.img")}}}}}};
    std::ofstream(dir / "config.json") << cfg.dump(2);
    {
        TargetProcess target({"--nvmetcli", (dir / "config.json").string()}, port, "::1");
        ASSERT_TRUE(target.started()) << target.log();
        host::ConnectOptions o;
        o.timeout = 10s;
        o.addr = "::1";
        o.port = port;
        o.subnqn = kLogs;
        auto logs = host::Controller::connect(o);
        ASSERT_TRUE(logs.ok()) << logs.error().describe() << "\n" << target.log();
        std::vector<uint8_t> out(4096, 0x3C), in(4096);
        ASSERT_TRUE((*logs)->write(0, 1, 2, 1, out.data(), 4096).ok());
        ASSERT_TRUE((*logs)->read(0, 1, 2, 1, in.data(), 4096).ok());
        EXPECT_EQ(in, out);
        EXPECT_EQ(target.stop(), 0);
    }
    fs::remove_all(dir);
}

} // namespace
} // namespace skiff::itest
