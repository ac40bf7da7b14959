// The target's side of the metrics in-process: a real target (TCP on loopback, one poll group)
// and the host library doing I/O. With metrics on, each queue's counts land in its subsystem's
// totals and stay there when the host disconnects; with metrics off nothing is counted; the
// rendered exposition carries the namespace, listener and poll group families.
#include "skiff/dataplane/metrics/target_metrics.hpp"
#include "skiff/dataplane/ram_device.hpp"
#include "skiff/dataplane/target_service.hpp"
#include "skiff/nvmeof/host/controller.hpp"
#include "skiff/nvmeof/target/subsystem.hpp"
#include "skiff/nvmeof/target/target.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <thread>
#include <vector>

namespace skiff::dataplane::metrics {
namespace {

namespace tgt = nvmeof::target;
using namespace std::chrono_literals;

const std::string kSub = "nqn.2026-11.io.skiff:metrics";

class MetricsTarget : public ::testing::Test {
  protected:
    void start(bool metrics) {
        if (metrics) target.enable_metrics();
        subsys = std::make_shared<tgt::Subsystem>(kSub, tgt::SubsystemKind::kNvm);
        auto dev = RamDevice::create(16ull << 20);
        ASSERT_TRUE(dev.ok());
        auto ns = std::make_shared<tgt::Namespace>(1, 512, *dev, tgt::derive_namespace_ids(kSub, 1));
        ASSERT_TRUE(subsys->add_namespace(ns).ok());
        ASSERT_TRUE(target.add_subsystem(subsys).ok());
        ServiceOptions opts;
        opts.listeners.push_back({"127.0.0.1", 0});
        service = std::make_unique<TargetService>(target, opts);
        ASSERT_TRUE(service->start().ok());
        port = service->bound()[0].port;
    }

    // Two writes, three reads (one past the end), one flush; then the host disconnects.
    void run_io() {
        nvmeof::host::ConnectOptions o;
        o.port = port;
        o.subnqn = kSub;
        auto ctrl = nvmeof::host::Controller::connect(o);
        ASSERT_TRUE(ctrl.ok()) << ctrl.error().describe();
        std::vector<uint8_t> buf(1024, 0x5A);
        ASSERT_TRUE((*ctrl)->write(0, 1, 0, 2, buf.data(), 1024).ok());
        ASSERT_TRUE((*ctrl)->write(0, 1, 8, 1, buf.data(), 512).ok());
        ASSERT_TRUE((*ctrl)->read(0, 1, 0, 2, buf.data(), 1024).ok());
        ASSERT_TRUE((*ctrl)->read(0, 1, 8, 1, buf.data(), 512).ok());
        EXPECT_FALSE((*ctrl)->read(0, 1, (16ull << 20) / 512, 1, buf.data(), 512).ok());
        ASSERT_TRUE((*ctrl)->flush(0, 1).ok());
        ctrl->reset(); // disconnects
        // The target notices the connections close on its poll group.
        for (int i = 0; i < 100 && !target.controllers().empty(); ++i) std::this_thread::sleep_for(20ms);
        EXPECT_TRUE(target.controllers().empty());
    }

    void TearDown() override {
        if (service) service->stop();
    }

    tgt::Target target;
    std::shared_ptr<tgt::Subsystem> subsys;
    std::unique_ptr<TargetService> service;
    uint16_t port = 0;
};

TEST_F(MetricsTarget, QueuesCountIntoTheirSubsystemAndOutliveTheirConnection) {
    start(true);
    run_io();
    const tgt::NamespaceIoTotals t = subsys->io_metrics()->totals()[1];
    EXPECT_EQ(t.commands[size_t(tgt::IoKind::kRead)], 3u);
    EXPECT_EQ(t.commands[size_t(tgt::IoKind::kWrite)], 2u);
    EXPECT_EQ(t.commands[size_t(tgt::IoKind::kOther)], 1u);
    EXPECT_EQ(t.read_bytes, 1536u);
    EXPECT_EQ(t.write_bytes, 1536u);
    ASSERT_EQ(t.errors.size(), 1u);
    EXPECT_EQ(t.errors.begin()->first, tgt::error_key(0, 0x80)); // LBA Out of Range
    EXPECT_EQ(t.errors.begin()->second, 1u);
    for (size_t k = 0; k < tgt::kIoKinds; ++k) EXPECT_EQ(t.latency[k].count(), t.commands[k]) << k;
    EXPECT_GT(t.latency[size_t(tgt::IoKind::kRead)].sum_ns, 0u);

    const std::string text = render_target_metrics(target, service.get());
    EXPECT_NE(text.find("skiff_namespace_read_commands_total{subsystem=\"" + kSub + "\",nsid=\"1\"} 3\n"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("skiff_namespace_errors_total{subsystem=\"" + kSub +
                        "\",nsid=\"1\",status=\"lba_out_of_range\",sct=\"0x0\",sc=\"0x80\"} 1\n"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("skiff_namespace_latency_seconds_count{subsystem=\"" + kSub +
                        "\",nsid=\"1\",op=\"write\"} 2\n"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("skiff_listener_connections_accepted_total{listener=\"127.0.0.1:" +
                        std::to_string(port) + "\",transport=\"tcp\"} 2\n"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("skiff_poll_group_polls_total{group=\"0\"} "), std::string::npos) << text;
}

// ANA states per group and listener, a series per state with 1 for the current one, follow a
// change; each namespace says whether its storage answers.
TEST_F(MetricsTarget, AnaGroupStatesAndNamespaceAccessibility) {
    start(true);
    ASSERT_EQ(target.ports().size(), 1u);
    const uint16_t port_id = target.ports()[0].id;
    const std::string series = "skiff_ana_group_state{subsystem=\"" + kSub +
                               "\",listener=\"127.0.0.1:" + std::to_string(port) +
                               "\",transport=\"tcp\",group=\"1\",state=";
    std::string text = render_target_metrics(target, service.get());
    EXPECT_NE(text.find(series + "\"optimized\"} 1\n"), std::string::npos) << text;
    EXPECT_NE(text.find(series + "\"inaccessible\"} 0\n"), std::string::npos) << text;
    EXPECT_EQ(text.find("group=\"2\""), std::string::npos) << "a group without namespaces has no series";
    EXPECT_NE(text.find("skiff_namespace_accessible{subsystem=\"" + kSub + "\",nsid=\"1\"} 1\n"),
              std::string::npos)
        << text;

    ASSERT_TRUE(subsys->set_ana_state(port_id, 1, tgt::AnaState::kInaccessible));
    text = render_target_metrics(target, service.get());
    EXPECT_NE(text.find(series + "\"optimized\"} 0\n"), std::string::npos) << text;
    EXPECT_NE(text.find(series + "\"inaccessible\"} 1\n"), std::string::npos) << text;
}

TEST_F(MetricsTarget, OffCountsNothing) {
    start(false);
    run_io();
    const tgt::NamespaceIoTotals t = subsys->io_metrics()->totals()[1];
    for (size_t k = 0; k < tgt::kIoKinds; ++k) EXPECT_EQ(t.commands[k], 0u) << k;
    EXPECT_TRUE(t.errors.empty());
}

} // namespace
} // namespace skiff::dataplane::metrics
