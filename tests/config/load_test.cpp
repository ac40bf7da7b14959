// Loading valid configurations: defaults, units, identifiers, listeners, and that what
// to_json() writes loads back to the same configuration.
#include "../support/build_paths.hpp"
#include "skiff/config/load.hpp"
#include "skiff/config/save.hpp"
#include "skiff/config/units.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <utility>

namespace skiff::config {
namespace {

using nlohmann::json;

TEST(Units, SizesWithBinaryUnits) {
    EXPECT_EQ(parse_size("512MiB"), uint64_t(512) << 20);
    EXPECT_EQ(parse_size("1TiB"), uint64_t(1) << 40);
    EXPECT_EQ(parse_size("4K"), 4096u);
    EXPECT_EQ(parse_size("4096"), 4096u);
    EXPECT_EQ(parse_size("2G"), uint64_t(2) << 30);
    EXPECT_FALSE(parse_size("1.5GiB"));
    EXPECT_FALSE(parse_size("GiB"));
    EXPECT_FALSE(parse_size("12MB"));
    EXPECT_FALSE(parse_size("99999999999999999999"));
    EXPECT_FALSE(parse_size("16384PiB")); // overflows 64 bits
    EXPECT_EQ(format_size(uint64_t(1) << 30), "1GiB");
    EXPECT_EQ(format_size(4608), "4608");
    EXPECT_EQ(format_size(8192), "8KiB");
}

TEST(Units, Identifiers) {
    auto id = parse_id16("6F1C2A4E-0B7D-4C59-9A3E-2D8F5B1C7E90");
    ASSERT_TRUE(id);
    EXPECT_EQ((*id)[0], 0x6f);
    EXPECT_EQ((*id)[15], 0x90);
    EXPECT_EQ(format_id16(*id), "6f1c2a4e-0b7d-4c59-9a3e-2d8f5b1c7e90");
    EXPECT_EQ(parse_id16("6f1c2a4e0b7d4c599a3e2d8f5b1c7e90"), id);
    EXPECT_FALSE(parse_id16("6f1c2a4e-0b7d4c59-9a3e-2d8f5b1c7e90a"));
    EXPECT_FALSE(parse_id16("6f1c2a4e0b7d4c599a3e2d8f5b1c7e9g"));
}

TEST(Load, DefaultsFillWhatIsLeftOut) {
    LoadResult r = parse_config(json::parse(R"({
      "backends": [{"name": "b", "kind": "null", "size": "1TiB"}],
      "subsystems": [{"nqn": "nqn.2026-11.io.skiff:x", "namespaces": [{"nsid": 3, "backend": "b"}]}]
    })"));
    ASSERT_TRUE(r.ok()) << r.error_text();
    const Config &c = *r.config;
    EXPECT_EQ(c.target.cores, 1);
    EXPECT_EQ(c.target.log_level, "info");
    EXPECT_EQ(c.target.datapath, "poll");
    EXPECT_EQ(c.target.dpa_eus, 1);
    EXPECT_TRUE(c.target.management_socket.empty());
    EXPECT_EQ(c.transport().max_queue_depth, 128u);
    ASSERT_EQ(c.backends.size(), 1u);
    EXPECT_EQ(c.backends[0].size_bytes, uint64_t(1) << 40);
    const SubsystemConfig &s = c.subsystems[0];
    EXPECT_TRUE(s.allow_any_host);
    EXPECT_EQ(s.cntlid_min, 1);
    EXPECT_EQ(s.cntlid_max, 0xFFEF);
    EXPECT_EQ(s.namespaces[0].nsid, 3u);
    EXPECT_EQ(s.namespaces[0].block_size, 512u);
    EXPECT_EQ(s.namespaces[0].ana_group, 1u);
    EXPECT_FALSE(s.namespaces[0].uuid);
    EXPECT_TRUE(c.listeners.empty());
    EXPECT_FALSE(c.discovery);
}

TEST(Load, AHostListAloneMeansOnlyThoseHosts) {
    LoadResult r = parse_config(json::parse(R"({"subsystems": [{"nqn": "nqn.2026-11.io.skiff:x",
      "allowed_hosts": ["nqn.2014-08.org.nvmexpress:uuid:8f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b"]}]})"));
    ASSERT_TRUE(r.ok()) << r.error_text();
    EXPECT_FALSE(r.config->subsystems[0].allow_any_host);
}

// visible_hosts: absent (every host), empty (no host) and a list each save and load back as
// they were.
TEST(Load, VisibleHostsAbsentEmptyOrListedSaveBackAsTheyWere) {
    LoadResult r = parse_config(json::parse(R"({
      "backends": [{"name": "a", "kind": "null", "size": "1GiB"}, {"name": "b", "kind": "null", "size": "1GiB"},
                   {"name": "c", "kind": "null", "size": "1GiB"}],
      "subsystems": [{"nqn": "nqn.2026-11.io.skiff:x", "namespaces": [
        {"nsid": 1, "backend": "a"},
        {"nsid": 2, "backend": "b", "visible_hosts": []},
        {"nsid": 1024, "backend": "c", "visible_hosts": ["nqn.2026-11.io.skiff:h1", "nqn.2026-11.io.skiff:h2"]}]}]
    })"));
    ASSERT_TRUE(r.ok()) << r.error_text();
    const auto &ns = r.config->subsystems[0].namespaces;
    EXPECT_FALSE(ns[0].visible_hosts);
    ASSERT_TRUE(ns[1].visible_hosts);
    EXPECT_TRUE(ns[1].visible_hosts->empty());
    EXPECT_EQ(*ns[2].visible_hosts,
              (std::vector<std::string>{"nqn.2026-11.io.skiff:h1", "nqn.2026-11.io.skiff:h2"}));
    json saved = to_json(*r.config);
    EXPECT_FALSE(saved["subsystems"][0]["namespaces"][0].contains("visible_hosts"));
    LoadResult again = parse_config(saved);
    ASSERT_TRUE(again.ok()) << again.error_text();
    EXPECT_EQ(again.config->subsystems[0].namespaces, ns);
}

// 1024 namespaces in each of four subsystems load; one more anywhere is refused, by its path.
TEST(Load, ATargetHolds4096NamespacesAndNotOneMore) {
    auto config = [](size_t subsystems, size_t last_count) {
        json doc = {{"backends", json::array()}, {"subsystems", json::array()}};
        for (size_t s = 0; s < subsystems; ++s) {
            json sub = {{"nqn", "nqn.2026-11.io.skiff:scale" + std::to_string(s)},
                        {"namespaces", json::array()}};
            const size_t count = s + 1 == subsystems ? last_count : 1024;
            for (size_t n = 1; n <= count; ++n) {
                const std::string name = "b" + std::to_string(s) + "." + std::to_string(n);
                doc["backends"].push_back({{"name", name}, {"kind", "null"}, {"size", "1GiB"}});
                sub["namespaces"].push_back({{"nsid", n}, {"backend", name}});
            }
            doc["subsystems"].push_back(sub);
        }
        return doc;
    };
    LoadResult full = parse_config(config(4, 1024));
    ASSERT_TRUE(full.ok()) << full.error_text();
    EXPECT_EQ(full.config->subsystems[3].namespaces.back().nsid, 1024u);
    LoadResult over = parse_config(config(5, 1));
    ASSERT_FALSE(over.ok());
    ASSERT_EQ(over.errors.size(), 1u) << over.error_text();
    EXPECT_EQ(over.errors[0],
              "subsystems[4].namespaces[0]: one namespace too many: a target holds at most 4096 "
              "namespaces, in all its subsystems");
}

TEST(Load, AioSettings) {
    LoadResult r = parse_config(json::parse(R"({"backends": [
      {"name": "d", "kind": "aio", "path": "/var/lib/skiff/d.img", "size": "2GiB", "create": true,
       "buffered": true, "queue_depth": 64},
      {"name": "e", "kind": "aio", "path": "/dev/sdb"}]})"));
    ASSERT_TRUE(r.ok()) << r.error_text();
    const BackendConfig &d = r.config->backends[0];
    EXPECT_EQ(d.size_bytes, uint64_t(2) << 30);
    EXPECT_EQ(d.settings.json()["path"], "/var/lib/skiff/d.img");
    EXPECT_EQ(d.settings.json()["create"], true);
    EXPECT_EQ(d.settings.json()["buffered"], true);
    EXPECT_EQ(d.settings.json()["queue_depth"], 64);
    const BackendConfig &e = r.config->backends[1];
    EXPECT_EQ(e.size_bytes, 0u); // the device decides
    EXPECT_EQ(e.settings.json()["create"], false);
    EXPECT_EQ(e.settings.json()["buffered"], false);
    EXPECT_EQ(e.settings.json()["queue_depth"], 128);
}

TEST(Load, ErrorBackendWrapsAnotherAndSavesBack) {
    LoadResult r = parse_config(json::parse(R"({"backends": [
      {"name": "flaky", "kind": "error", "base": {"kind": "aio", "path": "/var/lib/skiff/d.img", "size": "1GiB"},
       "inject": {"read": {"count": 3, "status": "0x281"}, "flush": {"count": 1, "status": 6, "dnr": true}}}],
      "subsystems": [{"nqn": "nqn.2026-11.io.skiff:x", "namespaces": [{"nsid": 1, "backend": "flaky"}]}]})"));
    ASSERT_TRUE(r.ok()) << r.error_text();
    const BackendConfig &b = r.config->backends[0];
    EXPECT_EQ(b.kind, "error");
    EXPECT_EQ(b.size_bytes, uint64_t(1) << 30); // the base's
    EXPECT_EQ(b.settings.json()["base"]["kind"], "aio");
    EXPECT_EQ(b.settings.json()["base"]["path"], "/var/lib/skiff/d.img");
    EXPECT_EQ(b.settings.json()["base"]["queue_depth"], 128); // the base kind's defaults filled in
    EXPECT_EQ(b.settings.json()["inject"]["read"]["status"], 0x281);
    EXPECT_EQ(b.settings.json()["inject"]["read"]["count"], 3);
    EXPECT_EQ(b.settings.json()["inject"]["flush"]["dnr"], true);
    LoadResult again = parse_config(to_json(*r.config));
    ASSERT_TRUE(again.ok()) << again.error_text();
    EXPECT_TRUE(again.config->backends == r.config->backends);
}

// BackendSettings, the holder of BackendConfig::settings, behaves as the JSON object it holds:
// empty by default, copied deeply, equal by value, still an empty object after being moved from.
// (Here and not in a file of its own: that file would parse nlohmann/json and GoogleTest once
// more in every build flavour, about 7 s each.)
TEST(BackendSettings, DefaultIsAnEmptyObject) {
    BackendSettings s;
    EXPECT_EQ(std::as_const(s).json(), json::object());
    EXPECT_EQ(s, BackendSettings(json::object()));
    s.json()["path"] = "/var/lib/skiff/d.img";
    EXPECT_EQ(s.json(), json({{"path", "/var/lib/skiff/d.img"}}));
}

TEST(BackendSettings, CopyIsIndependent) {
    BackendSettings a(json{{"path", "/a"}, {"queue_depth", 64}});
    BackendSettings b = a;
    EXPECT_EQ(a, b);
    b.json()["path"] = "/b";
    EXPECT_EQ(a.json()["path"], "/a");
    EXPECT_NE(a, b);
    a = b;
    EXPECT_EQ(a.json()["path"], "/b");
    b.json()["queue_depth"] = 1;
    EXPECT_EQ(a.json()["queue_depth"], 64);
}

TEST(BackendSettings, MovedFromIsEmpty) {
    BackendSettings a(json{{"channel", "skiff-host"}});
    BackendSettings b = std::move(a);
    EXPECT_EQ(b.json()["channel"], "skiff-host");
    EXPECT_EQ(std::as_const(a).json(), json::object()); // the documented moved-from state
}

// The flat setters write the same fields as the JSON they stand for (skiff-target's command line
// builds its backend with them); text() falls back only when the field is absent.
TEST(BackendSettings, FlatFieldsAreTheJsonFields) {
    BackendSettings s;
    s.set_text("path", "/dev/sdb");
    s.set_flag("buffered", true);
    s.set_number("queue_depth", 128);
    EXPECT_EQ(s, BackendSettings(json{{"path", "/dev/sdb"}, {"buffered", true}, {"queue_depth", 128}}));
    EXPECT_EQ(s.text("path", "none"), "/dev/sdb");
    EXPECT_EQ(s.text("channel", "none"), "none");
}

// The tcp entry's zero-copy threshold reaches transport(), the one set of limits the target
// takes; an rdma entry beside it keeps its own settings; it saves back only when not the default.
TEST(Load, ZeroCopyReadMinIsATcpSetting) {
    LoadResult r = parse_config(json::parse(R"({"transports": [
      {"trtype": "rdma", "srq_depth": 64}, {"trtype": "tcp", "zero_copy_read_min": "64KiB"}]})"));
    ASSERT_TRUE(r.ok()) << r.error_text();
    EXPECT_EQ(r.config->transport().zero_copy_read_min, 64u * 1024);
    EXPECT_EQ(r.config->transport().srq_depth, 64u);
    json saved = to_json(*r.config);
    EXPECT_FALSE(saved["transports"][0].contains("zero_copy_read_min"));
    EXPECT_EQ(saved["transports"][1]["zero_copy_read_min"], "64KiB");
    LoadResult again = parse_config(saved);
    ASSERT_TRUE(again.ok()) << again.error_text();
    EXPECT_TRUE(again.config->transports == r.config->transports);

    LoadResult off =
        parse_config(json::parse(R"({"transports": [{"trtype": "tcp", "zero_copy_read_min": 0}]})"));
    ASSERT_TRUE(off.ok()) << off.error_text();
    EXPECT_EQ(off.config->transport().zero_copy_read_min, 0u);
    EXPECT_EQ(parse_config(to_json(*off.config)).config->transport().zero_copy_read_min, 0u);
    EXPECT_EQ(parse_config(json::parse("{}")).config->transport().zero_copy_read_min, 32u * 1024);
}

// In-capsule data lands in a request buffer of max_io_size bytes: with the smallest max_io_size
// (8 KiB) the default in-capsule size still fits and saves back the same (an explicit larger one
// is refused: bad_config_test), and one that fits is kept.
TEST(Load, InCapsuleDataSizeNeverExceedsMaxIoSize) {
    LoadResult small =
        parse_config(json::parse(R"({"transports": [{"trtype": "tcp", "max_io_size": "8KiB"}]})"));
    ASSERT_TRUE(small.ok()) << small.error_text();
    EXPECT_EQ(small.config->transport().in_capsule_data_size, 8192u);
    LoadResult again = parse_config(to_json(*small.config));
    ASSERT_TRUE(again.ok()) << again.error_text();
    EXPECT_EQ(again.config->transport().in_capsule_data_size, 8192u);

    LoadResult fits = parse_config(json::parse(
        R"({"transports": [{"trtype": "tcp", "max_io_size": "64KiB", "in_capsule_data_size": "64KiB"}]})"));
    ASSERT_TRUE(fits.ok()) << fits.error_text();
    EXPECT_EQ(fits.config->transport().in_capsule_data_size, 64u * 1024);
}

TEST(Load, DpaDataPath) {
    LoadResult r = parse_config(json::parse(R"({"target": {"datapath": "dpa", "dpa": {"eus": 2}},
      "backends": [{"name": "b", "kind": "ram", "size": "64MiB"}],
      "listeners": [{"trtype": "rdma", "addr": "192.168.77.1", "port": 4420}]})"));
    ASSERT_TRUE(r.ok()) << r.error_text();
    EXPECT_EQ(r.config->target.datapath, "dpa");
    EXPECT_EQ(r.config->target.dpa_eus, 2);
    LoadResult again = parse_config(to_json(*r.config));
    ASSERT_TRUE(again.ok()) << again.error_text();
    EXPECT_TRUE(again.config->target == r.config->target);
}

// A listener's ANA entry that names the subsystem wins over one for every subsystem; groups
// without an entry are optimized.
TEST(Load, ListenerAnaStatesSpecificEntryWins) {
    LoadResult r = parse_config(json::parse(R"({"backends": [{"name": "b", "kind": "ram", "size": "64MiB"}],
      "subsystems": [{"nqn": "nqn.2026-11.io.skiff:x", "namespaces": [{"nsid": 1, "backend": "b"}]},
                     {"nqn": "nqn.2026-11.io.skiff:y"}],
      "listeners": [{"addr": "127.0.0.1", "port": 4420,
                     "ana": [{"group": 1, "state": "inaccessible"},
                             {"subsystem": "nqn.2026-11.io.skiff:x", "group": 1, "state": "non-optimized"}]}]})"));
    ASSERT_TRUE(r.ok()) << r.error_text();
    const ListenerConfig &l = r.config->listeners[0];
    EXPECT_EQ(l.ana_state("nqn.2026-11.io.skiff:x", 1), "non-optimized");
    EXPECT_EQ(l.ana_state("nqn.2026-11.io.skiff:y", 1), "inaccessible");
    EXPECT_EQ(l.ana_state("nqn.2026-11.io.skiff:x", 2), "optimized");
    LoadResult again = parse_config(to_json(*r.config));
    ASSERT_TRUE(again.ok()) << again.error_text();
    EXPECT_TRUE(again.config->listeners == r.config->listeners);
}

TEST(Load, NamespacePtplFile) {
    LoadResult r = parse_config(json::parse(R"({"backends": [{"name": "b", "kind": "ram", "size": "64MiB"}],
      "subsystems": [{"nqn": "nqn.2026-11.io.skiff:p",
                      "namespaces": [{"nsid": 1, "backend": "b", "ptpl_file": "/var/lib/skiff/p1.resv"}]}]})"));
    ASSERT_TRUE(r.ok()) << r.error_text();
    EXPECT_EQ(r.config->subsystems[0].namespaces[0].ptpl_file, "/var/lib/skiff/p1.resv");
    LoadResult again = parse_config(to_json(*r.config));
    ASSERT_TRUE(again.ok()) << again.error_text();
    EXPECT_EQ(again.config->subsystems[0].namespaces[0].ptpl_file, "/var/lib/skiff/p1.resv");
}

TEST(Load, SaveLoadsBackToTheSameConfiguration) {
    for (auto &entry : std::filesystem::directory_iterator(skiff::test::source_dir() + "/config/examples")) {
        if (entry.path().filename().string().starts_with("nvmetcli")) continue;
        LoadResult first = load_config_file(entry.path());
        ASSERT_TRUE(first.ok()) << entry.path() << "\n" << first.error_text();
        LoadResult again = parse_config(to_json(*first.config));
        ASSERT_TRUE(again.ok()) << entry.path() << "\n" << again.error_text();
        EXPECT_EQ(to_json(*again.config), to_json(*first.config)) << entry.path();
        EXPECT_TRUE(again.config->subsystems == first.config->subsystems) << entry.path();
        EXPECT_TRUE(again.config->backends == first.config->backends) << entry.path();
        EXPECT_TRUE(again.config->listeners == first.config->listeners) << entry.path();
    }
}

// The admission settings (nvmeof/TARGET.md, "Admission and policy"): secure defaults, and what
// is set is saved and loads back.
TEST(Load, AdmissionSettingsDefaultSecureAndSaveBack) {
    json doc = to_json(default_config());
    LoadResult defaults = parse_config(doc);
    ASSERT_TRUE(defaults.ok()) << defaults.error_text();
    EXPECT_EQ(defaults.config->transport().auth_timeout_ms, 10000u);
    doc["transports"] = {{{"trtype", "tcp"}, {"auth_timeout_ms", 250}}};
    doc["listeners"][0]["secure_channel"] = "optional";
    doc["listeners"][0]["allow_plaintext_psk_hosts"] = true;
    LoadResult set = parse_config(doc);
    ASSERT_TRUE(set.ok()) << set.error_text();
    EXPECT_EQ(set.config->transport().auth_timeout_ms, 250u);
    EXPECT_TRUE(set.config->listeners[0].allow_plaintext_psk_hosts);
    json saved = to_json(*set.config);
    EXPECT_EQ(saved["transports"][0]["auth_timeout_ms"], 250);
    EXPECT_EQ(saved["listeners"][0]["allow_plaintext_psk_hosts"], true);
    LoadResult again = parse_config(saved);
    ASSERT_TRUE(again.ok()) << again.error_text();
    EXPECT_TRUE(again.config->listeners == set.config->listeners);
    EXPECT_TRUE(again.config->transport() == set.config->transport());
    doc["listeners"][0].erase("allow_plaintext_psk_hosts");
    LoadResult secure = parse_config(doc);
    ASSERT_TRUE(secure.ok()) << secure.error_text();
    EXPECT_FALSE(secure.config->listeners[0].allow_plaintext_psk_hosts);
}

// IPv6 listeners and referrals: the address alone, kept in its canonical spelling; a listener on
// "::" and one on "0.0.0.0" share a port (the IPv6 one takes IPv6 only).
TEST(Load, Ipv6ListenersAndReferrals) {
    json doc = to_json(default_config());
    doc["listeners"] = {{{"addr", "::1"}, {"port", 4420}},
                        {{"addr", "::"}, {"port", 4421}},
                        {{"addr", "0.0.0.0"}, {"port", 4421}},
                        {{"trtype", "rdma"}, {"addr", "FD00:0:0::2"}, {"port", 4420}}};
    doc["discovery"] = {{"addr", "::1"}, {"port", 8009}};
    doc["referrals"] = {{{"addr", "2001:DB8::7"}}};
    LoadResult r = parse_config(doc);
    ASSERT_TRUE(r.ok()) << r.error_text();
    const Config &c = *r.config;
    EXPECT_EQ(c.listeners[0].addr, "::1");
    EXPECT_EQ(c.listeners[1].addr, "::");
    EXPECT_EQ(c.listeners[3].addr, "fd00::2");
    EXPECT_EQ(c.discovery->addr, "::1");
    EXPECT_EQ(c.referrals[0].addr, "2001:db8::7");
    const std::string summary = summarize(c);
    EXPECT_NE(summary.find("listener tcp [::1]:4420"), std::string::npos) << summary;
    EXPECT_NE(summary.find("discovery tcp [::1]:8009"), std::string::npos) << summary;
    EXPECT_NE(summary.find("referral tcp [2001:db8::7]:8009"), std::string::npos) << summary;
    LoadResult again = parse_config(to_json(c));
    ASSERT_TRUE(again.ok()) << again.error_text();
    EXPECT_TRUE(again.config->listeners == c.listeners);
}

TEST(Load, DefaultConfigIsValid) {
    LoadResult r = parse_config(to_json(default_config()));
    ASSERT_TRUE(r.ok()) << r.error_text();
    EXPECT_EQ(r.config->subsystems[0].nqn, "nqn.2026-11.io.skiff:default");
    EXPECT_EQ(r.config->backends[0].size_bytes, uint64_t(1) << 30);
}

TEST(LoadConfig, MetricsEndpointLoadsAndSavesBack) {
    json doc = json::parse(R"({
      "backends": [{"name": "r", "kind": "ram", "size": "4MiB"}],
      "subsystems": [{"nqn": "nqn.2026-11.io.skiff:m", "namespaces": [{"nsid": 1, "backend": "r"}]}],
      "listeners": [{"addr": "127.0.0.1", "port": 4420}],
      "metrics": {"listen": "[0:0::1]:9860"}
    })");
    LoadResult r = parse_config(doc);
    ASSERT_TRUE(r.ok()) << r.error_text();
    EXPECT_EQ(r.config->metrics.listen, "[::1]:9860"); // canonical, as listeners' addresses
    json saved = to_json(*r.config);
    EXPECT_EQ(saved["metrics"]["listen"], "[::1]:9860");
    LoadResult again = parse_config(saved);
    ASSERT_TRUE(again.ok()) << again.error_text();
    EXPECT_EQ(again.config->metrics, r.config->metrics);
    // Off by default, and then not written at all.
    doc.erase("metrics");
    LoadResult off = parse_config(doc);
    ASSERT_TRUE(off.ok()) << off.error_text();
    EXPECT_EQ(off.config->metrics.listen, "");
    EXPECT_FALSE(to_json(*off.config).contains("metrics"));
}

TEST(LoadConfig, MdnsAnnouncementLoadsAndSavesBack) {
    json doc = json::parse(R"({
      "backends": [{"name": "r", "kind": "ram", "size": "4MiB"}],
      "subsystems": [{"nqn": "nqn.2026-11.io.skiff:m", "namespaces": [{"nsid": 1, "backend": "r"}]}],
      "listeners": [{"addr": "127.0.0.1", "port": 4420}],
      "discovery": {"trtype": "tcp", "addr": "0.0.0.0", "port": 8009},
      "mdns": {"announce": true, "name": "rack 4 target"}
    })");
    LoadResult r = parse_config(doc);
    ASSERT_TRUE(r.ok()) << r.error_text();
    EXPECT_TRUE(r.config->mdns.announce);
    EXPECT_EQ(r.config->mdns.name, "rack 4 target");
    EXPECT_NE(summarize(*r.config).find("mDNS: the discovery listener announced as _nvme-disc._tcp"),
              std::string::npos);
    json saved = to_json(*r.config);
    EXPECT_EQ(saved["mdns"]["announce"], true);
    LoadResult again = parse_config(saved);
    ASSERT_TRUE(again.ok()) << again.error_text();
    EXPECT_EQ(again.config->mdns, r.config->mdns);
    // Off by default, and then not written at all.
    doc.erase("mdns");
    LoadResult off = parse_config(doc);
    ASSERT_TRUE(off.ok()) << off.error_text();
    EXPECT_FALSE(off.config->mdns.announce);
    EXPECT_FALSE(to_json(*off.config).contains("mdns"));
}

TEST(LoadConfig, IoAccountingAloneLoadsAndSavesBackAndTheEndpointImpliesIt) {
    json doc = json::parse(R"({
      "backends": [{"name": "r", "kind": "ram", "size": "4MiB"}],
      "subsystems": [{"nqn": "nqn.2026-11.io.skiff:m", "namespaces": [{"nsid": 1, "backend": "r"}]}],
      "listeners": [{"addr": "127.0.0.1", "port": 4420}],
      "metrics": {"accounting": true}
    })");
    LoadResult r = parse_config(doc);
    ASSERT_TRUE(r.ok()) << r.error_text();
    EXPECT_TRUE(r.config->metrics.accounting);
    EXPECT_EQ(r.config->metrics.listen, "");
    EXPECT_TRUE(r.config->metrics.accounting_on());
    json saved = to_json(*r.config);
    EXPECT_EQ(saved["metrics"], json({{"accounting", true}}));
    LoadResult again = parse_config(saved);
    ASSERT_TRUE(again.ok()) << again.error_text();
    EXPECT_EQ(again.config->metrics, r.config->metrics);
    // The endpoint alone: accounting is on without being written.
    doc["metrics"] = {{"listen", "127.0.0.1:9860"}};
    LoadResult endpoint = parse_config(doc);
    ASSERT_TRUE(endpoint.ok()) << endpoint.error_text();
    EXPECT_FALSE(endpoint.config->metrics.accounting);
    EXPECT_TRUE(endpoint.config->metrics.accounting_on());
    EXPECT_FALSE(to_json(*endpoint.config)["metrics"].contains("accounting"));
    // Neither: off.
    doc["metrics"] = {{"accounting", false}};
    LoadResult off = parse_config(doc);
    ASSERT_TRUE(off.ok()) << off.error_text();
    EXPECT_FALSE(off.config->metrics.accounting_on());
    EXPECT_FALSE(to_json(*off.config).contains("metrics"));
}

} // namespace
} // namespace skiff::config
