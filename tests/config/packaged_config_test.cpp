// The configuration files the packages install, and the BlueField example of
// docs/deploy-bluefield.md, agree with each other: the example's hostmem backend uses the channel
// skiff-host.service listens on (/etc/skiff/host.conf) and no more memory than it lends.
#include "../support/build_paths.hpp"
#include "skiff/config/load.hpp"
#include "skiff/config/units.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

namespace skiff::config {
namespace {

// The value following `option` in host.conf's SKIFF_HOST_ARGS line ("" when absent).
std::string host_conf_option(const std::string &option) {
    std::ifstream in(skiff::test::source_dir() + "/packaging/etc/host.conf");
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("SKIFF_HOST_ARGS=", 0) != 0) continue;
        std::istringstream words(line.substr(16));
        for (std::string w; words >> w;)
            if (w == option && words >> w) return w;
    }
    return "";
}

TEST(PackagedConfig, TargetJsonIsValid) {
    LoadResult r = load_config_file(skiff::test::source_dir() + "/packaging/etc/target.json");
    ASSERT_TRUE(r.ok()) << r.error_text();
    EXPECT_TRUE(r.warnings.empty());
    // No socket named: the service's default (/run/skiff/target.sock) applies.
    EXPECT_EQ(r.config->target.management_socket, "");
    // Prometheus metrics on loopback (9860: not taken by Prometheus' exporters' port list).
    EXPECT_EQ(r.config->metrics.listen, "127.0.0.1:9860");
}

TEST(PackagedConfig, BlueFieldExampleUsesWhatSkiffHostServiceLends) {
    LoadResult r =
        load_config_file(skiff::test::source_dir() + "/config/examples/bluefield-rdma-hostmem.json");
    ASSERT_TRUE(r.ok()) << r.error_text();
    const BackendConfig *b = r.config->find_backend("host0");
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(b->kind, "hostmem");
    EXPECT_EQ(b->settings.text("channel", ""), host_conf_option("--channel"));
    auto lent = parse_size(host_conf_option("--size"));
    ASSERT_TRUE(lent.has_value()) << "host.conf --size";
    EXPECT_LE(b->size_bytes, *lent);
    ASSERT_EQ(r.config->listeners.size(), 1u);
    EXPECT_EQ(r.config->listeners[0].trtype, "rdma");
}

} // namespace
} // namespace skiff::config
