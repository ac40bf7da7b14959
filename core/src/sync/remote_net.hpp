// A peer's sync event reached over RDMA: where its counter lives in the peer and the rkey that
// lets this side write or add to it (DPA comms, doca_dpa_dev_rdma_signal_set / _add).
#pragma once

#include <doca_sync_event.h>

#include <cstdint>

struct doca_sync_event_remote_net {
    static constexpr uint32_t kMagic = 0x5345524e; // "SERN"
    uint32_t magic = kMagic;
    doca_dev *dev = nullptr;
    uint64_t addr = 0;
    uint32_t rkey = 0;
};
