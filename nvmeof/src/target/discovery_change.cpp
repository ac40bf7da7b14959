// Discovery Log Page Change events: a host that keeps its discovery controller connected
// (`nvme discover -p`, a persistent discovery controller) learns that subsystems, listeners,
// host lists or referrals changed without polling. Its Linux driver turns the event into a
// uevent (NVME_AEN=0x70f002) on which nvme-cli's udev rule runs `nvme connect-all`.
//
// The generation is the log's GENCTR. One event per change the host has not read yet: sent
// when the log moved past what the host last read, then masked until the host reads the log
// again without Retain Asynchronous Event, as NVMe asks for every event type.
#include "skiff/nvmeof/target/controller.hpp"

namespace skiff::nvmeof::target {

namespace {
constexpr uint32_t kAecDiscoveryLogChange = 1u << 31; // Asynchronous Event Configuration bit
} // namespace

bool Controller::collect_discovery_change(uint64_t generation) {
    if (generation == disc_generation_seen_ || disc_event_masked_) return false;
    if (!(async_event_config & kAecDiscoveryLogChange)) return false;
    disc_generation_seen_ = generation;
    disc_event_masked_ = true;
    return true;
}

void Controller::discovery_log_read(uint64_t generation, bool retain) {
    if (retain) return;
    disc_generation_seen_ = generation;
    disc_event_masked_ = false;
}

} // namespace skiff::nvmeof::target
