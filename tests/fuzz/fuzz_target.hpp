// The target the fuzz harnesses aim at: one NVM subsystem (any host allowed) with two RAM
// namespaces (512-byte and 4 KiB blocks), the discovery subsystem, and one TCP port. Small limits
// keep each input cheap (a harness may pass its own, fuzz_limits.hpp); logging is off (the fuzzer
// runs millions of rejected inputs).
#pragma once

#include "skiff/core/log.hpp"
#include "skiff/dataplane/ram_device.hpp"
#include "skiff/nvmeof/target/target.hpp"

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

namespace skiff::fuzz {

namespace tgt = nvmeof::target;

inline const std::string kSubNqn = "nqn.2026-11.io.skiff:fuzz";
inline const std::string kHostNqn = "nqn.2014-08.org.nvmexpress:uuid:0f0e0d0c-0b0a-0908-0706-050403020100";

inline void quiet_logs() {
    // SKIFF_FUZZ_LOG=1 keeps the logs (to see why an input is refused).
    if (std::getenv("SKIFF_FUZZ_LOG") == nullptr) skiff::log::set_level(spdlog::level::off);
}

struct FuzzTarget {
    explicit FuzzTarget(const tgt::Limits &limits = FuzzTarget::limits()) : target(limits) {
        quiet_logs();
        subsys = std::make_shared<tgt::Subsystem>(kSubNqn, tgt::SubsystemKind::kNvm,
                                                  tgt::SubsystemIdentity{"SN-FUZZ", "skiff fuzz", "1.0"});
        subsys->set_allow_any_host(true);
        add_ns(1, 512, 1u << 20);
        add_ns(2, 4096, 1u << 20);
        (void)target.add_subsystem(subsys);
        port = target.add_port({0, "tcp", "127.0.0.1", "4420", false, std::nullopt});
    }
    static tgt::Limits limits() {
        tgt::Limits l;
        l.max_queue_depth = 16;
        l.max_admin_queue_depth = 8;
        l.max_io_queues = 4;
        l.max_transfer = 16 * 1024;
        l.in_capsule_data = 8192;
        return l;
    }
    void add_ns(uint32_t nsid, uint32_t block_size, uint64_t bytes) {
        auto dev = dataplane::RamDevice::create(bytes);
        if (!dev.ok()) std::abort();
        devices.push_back(*dev);
        (void)subsys->add_namespace(std::make_shared<tgt::Namespace>(
            nsid, block_size, *dev, tgt::derive_namespace_ids(kSubNqn, nsid)));
    }

    tgt::Target target;
    std::shared_ptr<tgt::Subsystem> subsys;
    tgt::Port port;
    // The namespaces' devices, watched: once the target is gone nothing may keep one alive.
    std::vector<std::weak_ptr<tgt::BlockDevice>> devices;
};

} // namespace skiff::fuzz
