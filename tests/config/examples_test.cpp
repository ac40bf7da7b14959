// Every example under config/examples/ loads (skiff format) or imports (nvmetcli format), and
// says what it serves.
#include "../support/build_paths.hpp"
#include "skiff/config/load.hpp"
#include "skiff/config/nvmetcli.hpp"
#include "skiff/config/save.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>

namespace skiff::config {
namespace {

TEST(Examples, EachLoads) {
    size_t n = 0;
    for (auto &entry : std::filesystem::directory_iterator(skiff::test::source_dir() + "/config/examples")) {
        if (entry.path().extension() != ".json") continue;
        bool nvmetcli = entry.path().filename().string().starts_with("nvmetcli");
        LoadResult r = nvmetcli ? import_nvmetcli_file(entry.path()) : load_config_file(entry.path());
        ASSERT_TRUE(r.ok()) << entry.path() << "\n" << r.error_text();
        EXPECT_FALSE(r.config->subsystems.empty()) << entry.path();
        EXPECT_FALSE(summarize(*r.config).empty());
        ++n;
    }
    EXPECT_GE(n, 4u);
}

// The rdma entry's shared receive queue reaches the limits even behind a tcp entry, and a saved
// configuration keeps it.
TEST(Examples, RdmaSrqDepthIsTheRdmaEntrys) {
    LoadResult r = load_config_file(skiff::test::source_dir() + "/config/examples/rdma-srq.json");
    ASSERT_TRUE(r.ok()) << r.error_text();
    EXPECT_EQ(r.config->transport().trtype, "tcp");
    EXPECT_EQ(r.config->transport().srq_depth, 1024u);
    LoadResult again = parse_config(to_json(*r.config));
    ASSERT_TRUE(again.ok()) << again.error_text();
    EXPECT_EQ(again.config->transport().srq_depth, 1024u);
}

// The TLS example: listener modes and the hosts' keys survive a save (the keys are written as
// is, and shown as kRedacted when listing); one entry carries a DH-HMAC-CHAP secret too.
TEST(Examples, TlsKeepsModesAndKey) {
    LoadResult r = load_config_file(skiff::test::source_dir() + "/config/examples/tls.json");
    ASSERT_TRUE(r.ok()) << r.error_text();
    ASSERT_EQ(r.config->listeners.size(), 2u);
    EXPECT_EQ(r.config->listeners[0].secure_channel, "required");
    EXPECT_EQ(r.config->listeners[1].secure_channel, "optional");
    ASSERT_EQ(r.config->hosts.size(), 2u);
    EXPECT_FALSE(r.config->hosts[1].dhchap_key.empty());
    EXPECT_EQ(r.config->hosts[1].subsystem, r.config->subsystems[0].nqn);
    LoadResult again = parse_config(to_json(*r.config));
    ASSERT_TRUE(again.ok()) << again.error_text();
    EXPECT_EQ(again.config->listeners, r.config->listeners);
    EXPECT_EQ(again.config->hosts, r.config->hosts);
    nlohmann::json listed = redact_secrets(to_json(*r.config));
    EXPECT_EQ(listed["hosts"][0]["tls_psk"], kRedacted);
    EXPECT_EQ(listed["hosts"][1]["dhchap_key"], kRedacted);
    EXPECT_EQ(listed.dump().find("NVMeTLSkey"), std::string::npos);
    EXPECT_EQ(listed.dump().find("DHHC-1"), std::string::npos);
}

TEST(Examples, MultiSubsystemHasWhatItSays) {
    LoadResult r = load_config_file(skiff::test::source_dir() + "/config/examples/multi-subsystem.json");
    ASSERT_TRUE(r.ok()) << r.error_text();
    const Config &c = *r.config;
    EXPECT_EQ(c.target.cores, 2);
    EXPECT_EQ(c.target.management_socket, "/run/skiff/target.sock");
    EXPECT_EQ(c.transport().max_io_queues, 16u);
    EXPECT_EQ(c.transport().in_capsule_data_size, 8192u);
    ASSERT_EQ(c.subsystems.size(), 2u);
    EXPECT_FALSE(c.subsystems[0].allow_any_host);
    EXPECT_EQ(c.subsystems[0].cntlid_max, 1000);
    EXPECT_EQ(c.subsystems[0].namespaces[1].ana_group, 2u);
    EXPECT_EQ(c.subsystems[0].namespaces[1].block_size, 4096u);
    ASSERT_TRUE(c.listeners[0].subsystems);
    EXPECT_EQ(*c.listeners[0].subsystems, std::vector<std::string>{"nqn.2026-11.io.skiff:tenant-a"});
    EXPECT_FALSE(c.listeners[1].subsystems);
}

// The first gateway of a gateway group: its own controller id range, the namespace identity the
// other gateway repeats, one listener non-optimized, the other gateway as a referral; all of it
// survives save.
TEST(Examples, MultipathGatewayHasWhatItSays) {
    LoadResult r = load_config_file(skiff::test::source_dir() + "/config/examples/multipath-gateway.json");
    ASSERT_TRUE(r.ok()) << r.error_text();
    const Config &c = *r.config;
    EXPECT_EQ(c.subsystems[0].cntlid_max, 999);
    ASSERT_TRUE(c.subsystems[0].namespaces[0].eui64);
    EXPECT_EQ((*c.subsystems[0].namespaces[0].eui64)[7], 0xef);
    EXPECT_EQ(c.listeners[0].ana_state("nqn.2026-11.io.skiff:gateway", 1), "optimized");
    EXPECT_EQ(c.listeners[1].ana_state("nqn.2026-11.io.skiff:gateway", 1), "non-optimized");
    ASSERT_EQ(c.referrals.size(), 1u);
    EXPECT_EQ(c.referrals[0].addr, "10.0.0.2");
    EXPECT_EQ(c.referrals[0].port, 8009);
    EXPECT_NE(summarize(c).find("referral tcp 10.0.0.2:8009"), std::string::npos) << summarize(c);
    LoadResult again = parse_config(to_json(c));
    ASSERT_TRUE(again.ok()) << again.error_text();
    EXPECT_TRUE(again.config->listeners == c.listeners);
    EXPECT_TRUE(again.config->referrals == c.referrals);
    EXPECT_TRUE(again.config->subsystems == c.subsystems);
}

} // namespace
} // namespace skiff::config
