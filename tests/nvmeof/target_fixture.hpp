// Test helper: a real target (RAM namespace, TCP listener on an ephemeral loopback port, one
// poll group) running in-process.
#pragma once

#include "skiff/dataplane/ram_device.hpp"
#include "skiff/dataplane/target_service.hpp"
#include "skiff/nvmeof/target/target.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace skiff::test {

inline const std::string kSubNqn = "nqn.2026-11.io.skiff:test";
inline const std::string kHostNqn = "nqn.2014-08.org.nvmexpress:uuid:0c8f2d2e-1a54-4f8a-9a55-3b1c7c9e0001";

class LiveTarget {
  public:
    explicit LiveTarget(uint64_t size = 64ull << 20, uint32_t block_size = 512, int groups = 1)
        : LiveTarget(ram(size), {}, block_size, groups) {}
    // Namespace 1 on `dev`, the target made with `limits`.
    LiveTarget(std::shared_ptr<nvmeof::target::BlockDevice> dev, nvmeof::target::Limits limits,
               uint32_t block_size = 512, int groups = 1)
        : target(limits) {
        namespace tgt = nvmeof::target;
        auto subsys = std::make_shared<tgt::Subsystem>(kSubNqn, tgt::SubsystemKind::kNvm);
        auto ns = std::make_shared<tgt::Namespace>(1, block_size, dev, tgt::derive_namespace_ids(kSubNqn, 1));
        EXPECT_TRUE(subsys->add_namespace(ns).ok());
        EXPECT_TRUE(target.add_subsystem(subsys).ok());
        dataplane::ServiceOptions opts;
        opts.listeners.push_back({"127.0.0.1", 0});
        opts.discovery = nvmeof::transport::ListenAddress{"127.0.0.1", 0};
        opts.poll_groups = groups;
        service = std::make_unique<dataplane::TargetService>(target, opts);
        auto st = service->start();
        EXPECT_TRUE(st.ok());
        io_port = service->bound()[0].port;
        discovery_port = service->bound()[1].port;
    }
    ~LiveTarget() { service->stop(); }

    static std::shared_ptr<nvmeof::target::BlockDevice> ram(uint64_t size) {
        auto dev = dataplane::RamDevice::create(size);
        EXPECT_TRUE(dev.ok());
        return dev.ok() ? *dev : nullptr;
    }

    nvmeof::target::Target target;
    std::unique_ptr<dataplane::TargetService> service;
    uint16_t io_port = 0;
    uint16_t discovery_port = 0;
};

} // namespace skiff::test
