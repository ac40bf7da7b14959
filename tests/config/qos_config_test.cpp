// namespaces[].qos: what loads, what saves back, and the exact message for each bad value.
#include "skiff/config/load.hpp"
#include "skiff/config/save.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <vector>

namespace skiff::config {
namespace {

using nlohmann::json;

constexpr const char *kHost = "nqn.2014-08.org.nvmexpress:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6";

json with_qos(const json &qos) {
    json doc = json::parse(R"({
      "backends": [{"name": "ram0", "kind": "ram", "size": "64MiB"}],
      "subsystems": [{"nqn": "nqn.2026-11.io.skiff:q", "namespaces": [{"nsid": 1, "backend": "ram0"}]}]
    })");
    doc["subsystems"][0]["namespaces"][0]["qos"] = qos;
    return doc;
}

TEST(QosConfig, LimitsLoadWithUnitsAndHosts) {
    LoadResult r = parse_config(with_qos({{"rw_ios_per_sec", 5000},
                                          {"write_bytes_per_sec", "200MiB"},
                                          {"read_bytes_per_sec", 1000000},
                                          {"hosts", {{{"nqn", kHost}, {"read_ios_per_sec", 100}}}}}));
    ASSERT_TRUE(r.ok()) << r.error_text();
    const QosConfig &q = r.config->subsystems[0].namespaces[0].qos;
    EXPECT_EQ(q.limits.rw_ios_per_sec, 5000u);
    EXPECT_EQ(q.limits.write_bytes_per_sec, 200u << 20);
    EXPECT_EQ(q.limits.read_bytes_per_sec, 1000000u);
    EXPECT_EQ(q.limits.read_ios_per_sec, 0u);
    ASSERT_EQ(q.hosts.size(), 1u);
    EXPECT_EQ(q.hosts[0].nqn, kHost);
    EXPECT_EQ(q.hosts[0].limits.read_ios_per_sec, 100u);
}

TEST(QosConfig, SavesBackToTheSameLimits) {
    LoadResult r = parse_config(with_qos({{"rw_ios_per_sec", 5000},
                                          {"rw_bytes_per_sec", "1GiB"},
                                          {"write_bytes_per_sec", 1000000},
                                          {"hosts", {{{"nqn", kHost}, {"write_ios_per_sec", 7}}}}}));
    ASSERT_TRUE(r.ok()) << r.error_text();
    json saved = to_json(*r.config);
    const json &q = saved["subsystems"][0]["namespaces"][0]["qos"];
    EXPECT_EQ(q["rw_bytes_per_sec"], "1GiB"); // sizes in their unit form, as elsewhere
    EXPECT_EQ(q["rw_ios_per_sec"], 5000);
    EXPECT_FALSE(q.contains("read_ios_per_sec")); // only what is set
    LoadResult again = parse_config(saved);
    ASSERT_TRUE(again.ok()) << again.error_text();
    EXPECT_TRUE(again.config->subsystems == r.config->subsystems);
}

TEST(QosConfig, NoQosWritesNoKey) {
    LoadResult r = parse_config(with_qos(json::object()));
    ASSERT_TRUE(r.ok()) << r.error_text();
    EXPECT_TRUE(r.config->subsystems[0].namespaces[0].qos.empty());
    EXPECT_FALSE(to_json(*r.config)["subsystems"][0]["namespaces"][0].contains("qos"));
}

struct BadQos {
    const char *what;
    json qos;
    std::vector<std::string> errors;
};

TEST(QosConfig, BadValuesNameTheirPathAndWhatIsExpected) {
    const std::string p = "subsystems[0].namespaces[0].qos";
    const std::vector<BadQos> cases = {
        {"negative IOPS",
         {{"rw_ios_per_sec", -5}},
         {p + ".rw_ios_per_sec: expected I/O commands per second: an integer 0..1000000000, 0 for no limit; "
              "got -5"}},
        {"IOPS as text",
         {{"read_ios_per_sec", "5k"}},
         {p +
          ".read_ios_per_sec: expected I/O commands per second: an integer 0..1000000000, 0 for no limit; "
          "got \"5k\""}},
        {"bytes in an unknown unit",
         {{"write_bytes_per_sec", "200MB/s"}},
         {p +
          ".write_bytes_per_sec: expected bytes per second: a byte count or a size such as \"200MiB\", up "
          "to 1PiB; 0 for no limit; got \"200MB/s\""}},
        {"misspelled limit",
         {{"rw_iops", 5}},
         {p + ".rw_iops: unknown key; expected one of rw_ios_per_sec, read_ios_per_sec, write_ios_per_sec, "
              "rw_bytes_per_sec, read_bytes_per_sec, write_bytes_per_sec, hosts"}},
        {"not an object", 5000, {p + ": expected an object, got 5000"}},
        {"host without nqn",
         {{"hosts", {{{"rw_ios_per_sec", 5}}}}},
         {p + ".hosts[0].nqn: missing; expected a string such as \"nqn.2014-08.org.nvmexpress:uuid:...\""}},
        {"host twice",
         {{"hosts", {{{"nqn", kHost}, {"rw_ios_per_sec", 5}}, {{"nqn", kHost}, {"rw_ios_per_sec", 6}}}}},
         {p + ".hosts[1].nqn: \"" + kHost + "\" already has limits in this list"}},
    };
    for (const BadQos &c : cases) {
        LoadResult r = parse_config(with_qos(c.qos));
        EXPECT_FALSE(r.ok()) << c.what;
        EXPECT_EQ(r.errors, c.errors) << c.what;
    }
}

} // namespace
} // namespace skiff::config
