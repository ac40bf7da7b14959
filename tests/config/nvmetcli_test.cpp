// Importing nvmetcli's config.json: ports become listeners with their subsystem lists,
// attributes and host lists carry over, device paths become aio backends, and what skiff does
// not use is named in warnings.
#include "../support/build_paths.hpp"
#include "skiff/config/nvmetcli.hpp"
#include "skiff/config/units.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace skiff::config {
namespace {

using nlohmann::json;

TEST(Nvmetcli, ImportsTheExample) {
    LoadResult r = import_nvmetcli_file(skiff::test::source_dir() + "/config/examples/nvmetcli-config.json");
    ASSERT_TRUE(r.ok()) << r.error_text();
    const Config &c = *r.config;
    ASSERT_EQ(c.listeners.size(), 2u);
    EXPECT_EQ(c.listeners[0].addr, "127.0.0.1");
    EXPECT_EQ(c.listeners[0].port, 4420);
    EXPECT_EQ(*c.listeners[0].subsystems,
              (std::vector<std::string>{"nqn.2026-11.com.example:db", "nqn.2026-11.com.example:logs"}));
    EXPECT_EQ(*c.listeners[1].subsystems, std::vector<std::string>{"nqn.2026-11.com.example:logs"});
    EXPECT_FALSE(c.discovery); // nvmet serves discovery on every port, as skiff's I/O listeners do
    EXPECT_EQ(c.transport().in_capsule_data_size, 16384u);

    ASSERT_EQ(c.subsystems.size(), 2u);
    const SubsystemConfig &db = c.subsystems[0];
    EXPECT_EQ(db.nqn, "nqn.2026-11.com.example:db");
    EXPECT_FALSE(db.allow_any_host);
    EXPECT_EQ(db.allowed_hosts, std::vector<std::string>{
                                    "nqn.2014-08.org.nvmexpress:uuid:8f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b"});
    EXPECT_EQ(db.serial, "5d0c2f5a3b9e8a71");
    EXPECT_EQ(db.model, "Linux");
    EXPECT_EQ(db.cntlid_max, 65519);
    ASSERT_EQ(db.namespaces.size(), 2u);
    EXPECT_EQ(format_id16(*db.namespaces[0].uuid), "2a7c9e1f-3b4d-4e5f-8a6b-7c8d9e0f1a2b");
    EXPECT_FALSE(db.namespaces[0].nguid);          // all zero in nvmet means unset
    EXPECT_EQ(db.namespaces[0].block_size, 4096u); // a regular file, as nvmet's file backend
    const BackendConfig *b = c.find_backend(db.namespaces[1].backend);
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(b->kind, "aio");
    EXPECT_EQ(b->settings.json()["path"], "/var/lib/nvmet/db1.img");

    const SubsystemConfig &logs = c.subsystems[1];
    EXPECT_TRUE(logs.allow_any_host);
    ASSERT_EQ(logs.namespaces.size(), 1u); // nsid 2 is disabled
    EXPECT_EQ(r.warnings, std::vector<std::string>{
                              "subsystems[1].namespaces[1]: disabled in nvmet (enable 0); not imported"});
}

TEST(Nvmetcli, ErrorsUseTheNvmetcliPaths) {
    json doc = json::parse(R"({
      "ports": [{"addr": {"adrfam": "ib", "traddr": "::1", "trsvcid": "4420", "trtype": "tcp"}, "portid": 1,
                 "subsystems": []},
                {"addr": {"adrfam": "ipv4", "traddr": "10.0.0.1", "trsvcid": "4420", "trtype": "fc"}, "portid": 2,
                 "subsystems": []}],
      "subsystems": [{"nqn": "nqn.2026-11.com.example:x", "attr": {"allow_any_host": "yes"},
                      "namespaces": [{"nsid": 1, "enable": 1, "device": {}}]}]
    })");
    LoadResult r = import_nvmetcli(doc);
    EXPECT_FALSE(r.ok());
    EXPECT_EQ(r.errors,
              (std::vector<std::string>{
                  "ports[0].addr.adrfam: \"ib\" is not supported; expected \"ipv4\" or \"ipv6\"",
                  "ports[1].addr.trtype: \"fc\" is not served by skiff; expected \"tcp\" or \"rdma\"",
                  "subsystems[0].attr.allow_any_host: expected a number (as a string such as \"1\"), got "
                  "\"yes\"",
                  "subsystems[0].namespaces[0].device.path: missing; expected the file or block device "
                  "behind the namespace",
              }));
}

// nvmet's IPv6 ports: adrfam "ipv6", traddr the address alone (as nvmetcli saves it).
TEST(Nvmetcli, Ipv6PortsBecomeIpv6Listeners) {
    json doc = json::parse(R"({
      "ports": [{"addr": {"adrfam": "ipv6", "traddr": "::1", "trsvcid": "4420", "trtype": "tcp"}, "portid": 1,
                 "subsystems": []},
                {"addr": {"adrfam": "ipv6", "traddr": "FD00::2", "trsvcid": "4420", "trtype": "rdma"}, "portid": 2,
                 "subsystems": []}]
    })");
    LoadResult r = import_nvmetcli(doc);
    ASSERT_TRUE(r.ok()) << r.error_text();
    ASSERT_EQ(r.config->listeners.size(), 2u);
    EXPECT_EQ(r.config->listeners[0].addr, "::1");
    EXPECT_EQ(r.config->listeners[0].port, 4420);
    EXPECT_EQ(r.config->listeners[1].trtype, "rdma");
    EXPECT_EQ(r.config->listeners[1].addr, "fd00::2");
}

TEST(Nvmetcli, AddressFamilyAndAddressMustAgree) {
    json doc = json::parse(R"({
      "ports": [{"addr": {"adrfam": "ipv4", "traddr": "::1", "trsvcid": "4420", "trtype": "tcp"}, "portid": 1,
                 "subsystems": []},
                {"addr": {"adrfam": "ipv6", "traddr": "10.0.0.1", "trsvcid": "4420", "trtype": "tcp"}, "portid": 2,
                 "subsystems": []},
                {"addr": {"adrfam": "ipv6", "traddr": "::1::2", "trsvcid": "4421", "trtype": "tcp"}, "portid": 3,
                 "subsystems": []}]
    })");
    LoadResult r = import_nvmetcli(doc);
    EXPECT_EQ(r.errors,
              (std::vector<std::string>{
                  "ports[0].addr.traddr: \"::1\" is an IPv6 address, but adrfam is \"ipv4\"",
                  "ports[1].addr.traddr: \"10.0.0.1\" is an IPv4 address, but adrfam is \"ipv6\"",
                  "ports[2].addr.traddr: expected an IPv4 or IPv6 address such as \"192.168.1.10\" or "
                  "\"fd00::10\", got \"::1::2\"",
              }));
}

TEST(Nvmetcli, SkiffRulesStillApply) {
    json doc = json::parse(R"({
      "ports": [{"addr": {"adrfam": "ipv4", "traddr": "127.0.0.1", "trsvcid": "4420", "trtype": "tcp"},
                 "portid": 1, "subsystems": ["nqn.2026-11.com.example:gone"]}],
      "subsystems": []
    })");
    LoadResult r = import_nvmetcli(doc);
    EXPECT_EQ(r.errors, std::vector<std::string>{"(imported as skiff config) listeners[0].subsystems[0]: no "
                                                 "subsystem named \"nqn.2026-11.com.example:gone\""});
}

TEST(Nvmetcli, WarnsAboutWhatItIgnores) {
    json doc = json::parse(R"({
      "ports": [{"addr": {"adrfam": "ipv4", "traddr": "127.0.0.1", "trsvcid": "4420", "trtype": "tcp"},
                 "portid": 1, "subsystems": [],
                 "referrals": [{"addr": {"trtype": "tcp"}, "name": "r1", "enable": 1}],
                 "param": {"pi_enable": "1"}}]
    })");
    LoadResult r = import_nvmetcli(doc);
    ASSERT_TRUE(r.ok()) << r.error_text();
    EXPECT_EQ(r.warnings, (std::vector<std::string>{
                              "ports[0].param.pi_enable: protection information is not supported; ignored",
                              "ports[0].referrals: discovery referrals are not supported; ignored"}));
}

TEST(Nvmetcli, PortAnaGroupStatesBecomeListenerAnaEntries) {
    json doc = json::parse(R"({
      "ports": [{"addr": {"adrfam": "ipv4", "traddr": "127.0.0.1", "trsvcid": "4420", "trtype": "tcp"},
                 "portid": 1, "subsystems": [],
                 "ana_groups": [{"ana": {"state": "optimized"}, "grpid": 1},
                                {"ana": {"state": "inaccessible"}, "grpid": 2}]}]
    })");
    LoadResult r = import_nvmetcli(doc);
    ASSERT_TRUE(r.ok()) << r.error_text();
    EXPECT_TRUE(r.warnings.empty());
    ASSERT_EQ(r.config->listeners.size(), 1u);
    ASSERT_EQ(r.config->listeners[0].ana.size(), 1u);
    EXPECT_EQ(r.config->listeners[0].ana[0].group, 2u);
    EXPECT_EQ(r.config->listeners[0].ana[0].state, "inaccessible");
    EXPECT_EQ(r.config->listeners[0].ana_state("nqn.2026-11.io.skiff:any", 1), "optimized");
}

} // namespace
} // namespace skiff::config
