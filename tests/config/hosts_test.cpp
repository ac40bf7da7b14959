// hosts[]: DH-HMAC-CHAP secrets and TLS PSKs in the configuration. Bad entries are reported by
// JSON path without repeating the secret; the nvmetcli import carries dhchap_* and a port's
// TLS setting over; save writes the secrets and redact_secrets hides them.
#include "skiff/config/host_auth.hpp"
#include "skiff/config/load.hpp"
#include "skiff/config/nvmetcli.hpp"
#include "skiff/config/save.hpp"
#include "skiff/nvmeof/auth/dh_group.hpp"
#include "skiff/nvmeof/auth/hash.hpp"
#include "skiff/nvmeof/tls/psk.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace skiff::config {
namespace {

using nlohmann::json;

const std::string kSub = "nqn.2026-11.io.skiff:auth";
const std::string kHost = "nqn.2014-08.org.nvmexpress:uuid:7a6b1b0e-3c7e-4d5f-9c0a-00000000000a";
const std::string kKey = "DHHC-1:01:WulleCBkG4oCs0iIC3Cit9gBDCLWiZ9PNXuhqytWkBIZkvGy:";
// As `nvme gen-tls-key` prints it (SHA-256 transform, 32-byte key).
const std::string kPsk = "NVMeTLSkey-1:01:VRLbtnN9AQb2WXW3c9+wEf/DRLz0QuLdbYvEhwtdWwNf9LrZ:";

json base() {
    return {{"backends", {{{"name", "d"}, {"kind", "ram"}, {"size", "16MiB"}}}},
            {"subsystems", {{{"nqn", kSub}, {"namespaces", {{{"nsid", 1}, {"backend", "d"}}}}}}},
            {"listeners", {{{"trtype", "tcp"}, {"addr", "127.0.0.1"}, {"port", 4420}}}}};
}

std::string errors_of(const json &doc) {
    LoadResult r = parse_config(doc);
    EXPECT_FALSE(r.ok());
    return r.error_text();
}

TEST(Hosts, ValidEntryLoadsAndBecomesTheTargetsSecrets) {
    json doc = base();
    doc["hosts"] = {{{"nqn", kHost},
                     {"subsystem", kSub},
                     {"dhchap_key", kKey},
                     {"dhchap_hashes", {"sha512", "hmac(sha256)"}},
                     {"dhchap_dhgroups", {"ffdhe4096", "NULL"}}}};
    LoadResult r = parse_config(doc);
    ASSERT_TRUE(r.ok()) << r.error_text();
    auto map = host_auth_map(*r.config);
    ASSERT_EQ(map.size(), 1u);
    const auto &entry = *map.at({kHost, kSub});
    EXPECT_EQ(entry.host_key.transform, nvmeof::auth::kHashSha256);
    EXPECT_EQ(entry.hashes, (std::vector<uint8_t>{nvmeof::auth::kHashSha512, nvmeof::auth::kHashSha256}));
    EXPECT_EQ(entry.dhgroups, (std::vector<uint8_t>{nvmeof::auth::kDhFfdhe4096, nvmeof::auth::kDhNull}));
    EXPECT_FALSE(entry.ctrl_key);
    // summarize says a key is set, never which.
    const std::string summary = summarize(*r.config);
    EXPECT_NE(summary.find("DH-HMAC-CHAP key set"), std::string::npos) << summary;
    EXPECT_EQ(summary.find("DHHC-1"), std::string::npos) << summary;
    // Saved, it loads again to the same configuration; redacted, the secret is gone.
    json saved = to_json(*r.config);
    LoadResult again = parse_config(saved);
    ASSERT_TRUE(again.ok()) << again.error_text();
    EXPECT_EQ(again.config->hosts, r.config->hosts);
    EXPECT_EQ(redact_secrets(saved).dump().find("DHHC-1"), std::string::npos);
}

TEST(Hosts, BadEntriesNameTheirPathAndNeverTheSecret) {
    json doc = base();
    std::string broken = kKey;
    broken[15] = broken[15] == 'x' ? 'y' : 'x';
    doc["hosts"] = {{{"nqn", kHost}, {"dhchap_key", broken}},
                    {{"nqn", "host1"}, {"dhchap_key", kKey}, {"dhchap_hashes", {"md5"}}},
                    {{"nqn", kHost}, {"dhchap_key", kKey}, {"dhchap_dhgroups", {"ffdhe1024"}}},
                    {{"nqn", kHost}, {"subsystem", "nqn.2026-11.io.skiff:none"}, {"dhchap_key", kKey}},
                    {{"nqn", kHost}}};
    // Field errors first (the cross checks wait until every entry parses).
    std::string e = errors_of(doc);
    EXPECT_NE(e.find("hosts[0].dhchap_key: DH-HMAC-CHAP secret: the CRC-32 does not match"),
              std::string::npos)
        << e;
    EXPECT_EQ(e.find(broken.substr(10, 20)), std::string::npos) << e;
    EXPECT_NE(e.find("hosts[1].nqn:"), std::string::npos) << e;
    EXPECT_NE(e.find("hosts[1].dhchap_hashes[0]: expected sha256, sha384 or sha512, got \"md5\""),
              std::string::npos)
        << e;
    EXPECT_NE(e.find("hosts[2].dhchap_dhgroups[0]: expected null, ffdhe2048"), std::string::npos) << e;
    EXPECT_NE(e.find("hosts[4]: expected \"dhchap_key\" (DH-HMAC-CHAP), \"tls_psk\" (TLS) or both"),
              std::string::npos)
        << e;

    json cross = base();
    cross["hosts"] = {{{"nqn", kHost}, {"subsystem", "nqn.2026-11.io.skiff:none"}, {"dhchap_key", kKey}},
                      {{"nqn", kHost}, {"dhchap_key", kKey}},
                      {{"nqn", kHost}, {"dhchap_key", kKey}}};
    e = errors_of(cross);
    EXPECT_NE(e.find("hosts[0].subsystem: no subsystem named \"nqn.2026-11.io.skiff:none\""),
              std::string::npos)
        << e;
    EXPECT_NE(e.find("hosts[2].nqn: \"" + kHost + "\" already has secrets in hosts[1]"), std::string::npos)
        << e;
}

TEST(Hosts, NvmetcliHostsWithDhchapAttributesAreImported) {
    json nvmet = {{"hosts",
                   {{{"nqn", kHost},
                     {"dhchap_key", kKey},
                     {"dhchap_ctrl_key", kKey},
                     {"dhchap_hash", "hmac(sha512)"},
                     {"dhchap_dhgroup", "ffdhe2048"}},
                    {{"nqn", "nqn.2014-08.org.nvmexpress:uuid:7a6b1b0e-3c7e-4d5f-9c0a-00000000000b"}}}},
                  {"ports", json::array()},
                  {"subsystems", json::array()}};
    LoadResult r = import_nvmetcli(nvmet);
    ASSERT_TRUE(r.ok()) << r.error_text();
    ASSERT_EQ(r.config->hosts.size(), 1u); // the host without a key needs no entry
    const HostConfig &h = r.config->hosts[0];
    EXPECT_EQ(h.nqn, kHost);
    EXPECT_EQ(h.dhchap_ctrl_key, kKey);
    EXPECT_EQ(h.dhchap_hashes, std::vector<std::string>{"hmac(sha512)"});
    EXPECT_EQ(h.dhchap_dhgroups, std::vector<std::string>{"ffdhe2048"});
}

// One schema for both kinds of secret: an entry may carry a dhchap_key, a tls_psk or both, per
// host or per (host, subsystem); each consumer takes the entries with its kind.
TEST(Hosts, TlsPskSharesTheEntryWithDhchapSecrets) {
    json doc = base();
    doc["hosts"] = {{{"nqn", kHost}, {"dhchap_key", kKey}, {"tls_psk", kPsk}},
                    {{"nqn", kHost}, {"subsystem", kSub}, {"tls_psk", kPsk}}};
    LoadResult r = parse_config(doc);
    ASSERT_TRUE(r.ok()) << r.error_text();
    auto auth = host_auth_map(*r.config);
    ASSERT_EQ(auth.size(), 1u); // the TLS-only entry asks for no authentication
    EXPECT_TRUE(auth.count({kHost, ""}));
    auto psks = tls_psk_map(*r.config);
    ASSERT_EQ(psks.size(), 2u);
    EXPECT_EQ(psks.at({kHost, kSub}).key.size(), 32u);
    EXPECT_EQ(psks.at({kHost, ""}).hash, nvmeof::tls::PskHash::kSha256);

    const std::string summary = summarize(*r.config);
    EXPECT_NE(summary.find("DH-HMAC-CHAP key set, TLS PSK set"), std::string::npos) << summary;
    EXPECT_NE(summary.find("on " + kSub + ": TLS PSK set"), std::string::npos) << summary;
    EXPECT_EQ(summary.find("NVMeTLSkey"), std::string::npos) << summary;

    json saved = to_json(*r.config);
    EXPECT_EQ(saved["hosts"][0]["tls_psk"], kPsk);
    EXPECT_FALSE(saved["hosts"][1].contains("dhchap_key"));
    LoadResult again = parse_config(saved);
    ASSERT_TRUE(again.ok()) << again.error_text();
    EXPECT_EQ(again.config->hosts, r.config->hosts);
    json shown = redact_secrets(saved);
    EXPECT_EQ(shown["hosts"][1]["tls_psk"], kRedacted);
    EXPECT_EQ(shown.dump().find("NVMeTLSkey"), std::string::npos);
}

TEST(Hosts, BadTlsEntriesNameTheirPathAndNeverTheKey) {
    json doc = base();
    std::string broken = kPsk;
    broken[20] = broken[20] == 'x' ? 'y' : 'x';
    doc["hosts"] = {{{"nqn", kHost}, {"tls_psk", broken}},
                    {{"nqn", kHost}, {"subsystem", kSub}, {"tls_psk", 42}},
                    {{"nqn", "nqn.2014-08.org.nvmexpress:uuid:7a6b1b0e-3c7e-4d5f-9c0a-00000000000b"},
                     {"tls_psk", kPsk},
                     {"dhchap_ctrl_key", kKey},
                     {"dhchap_hashes", {"sha256"}}}};
    std::string e = errors_of(doc);
    EXPECT_NE(e.find("hosts[0].tls_psk: TLS PSK: CRC-32 does not match the key"), std::string::npos) << e;
    EXPECT_EQ(e.find(broken.substr(16, 20)), std::string::npos) << e;
    EXPECT_NE(e.find("hosts[1].tls_psk: expected a string"), std::string::npos) << e;
    EXPECT_NE(e.find("hosts[2].dhchap_ctrl_key: applies to a dhchap_key; this entry has none"),
              std::string::npos)
        << e;
    EXPECT_NE(e.find("hosts[2].dhchap_hashes: applies to a dhchap_key"), std::string::npos) << e;

    json twice = base();
    twice["hosts"] = {{{"nqn", kHost}, {"tls_psk", kPsk}}, {{"nqn", kHost}, {"dhchap_key", kKey}}};
    e = errors_of(twice);
    EXPECT_NE(e.find("hosts[1].nqn: \"" + kHost + "\" already has secrets in hosts[0]"), std::string::npos)
        << e;
}

// nvmet keeps TLS keys in the kernel keyring, not in configfs: only the port's addr_tsas /
// addr_treq come over, as the listener's secure_channel.
TEST(Hosts, NvmetcliPortTlsBecomesTheListenersSecureChannel) {
    auto port = [](int id, json addr) {
        addr["trtype"] = "tcp";
        addr["adrfam"] = "ipv4";
        addr["traddr"] = "127.0.0.1";
        addr["trsvcid"] = std::to_string(4420 + id);
        return json{{"portid", id}, {"addr", addr}, {"subsystems", json::array()}};
    };
    json nvmet = {{"hosts", json::array()},
                  {"ports",
                   {port(0, {{"tsas", "tls1.3"}, {"treq", "required"}}),
                    port(1, {{"tsas", "tls1.3"}, {"treq", "not required"}}), port(2, {{"tsas", "tls1.3"}}),
                    port(3, {{"tsas", "none"}, {"treq", "not specified"}})}},
                  {"subsystems", json::array()}};
    LoadResult r = import_nvmetcli(nvmet);
    ASSERT_TRUE(r.ok()) << r.error_text();
    ASSERT_EQ(r.config->listeners.size(), 4u);
    EXPECT_EQ(r.config->listeners[0].secure_channel, "required");
    EXPECT_EQ(r.config->listeners[1].secure_channel, "optional");
    EXPECT_EQ(r.config->listeners[2].secure_channel, "required");
    EXPECT_EQ(r.config->listeners[3].secure_channel, "none");

    nvmet["ports"][3]["addr"]["tsas"] = "tls1.2";
    LoadResult bad = import_nvmetcli(nvmet);
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.error_text().find("ports[3].addr.tsas: expected \"none\" or \"tls1.3\" for a tcp port"),
              std::string::npos)
        << bad.error_text();
}

} // namespace
} // namespace skiff::config
