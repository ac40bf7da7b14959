// What an RDMA device allows the NVMe/RDMA transport to advertise. Pure: unit-tested without RDMA.
#pragma once

#include <cstdint>

namespace skiff::nvmeof::rdma {

// The largest transfer (MDTS, in bytes) a controller reached through a device can offer. One
// keyed data block moves with one RDMA READ or WRITE of one SGE, so the port's max_msg_sz bounds
// it: min(configured, device_max_msg), rounded down to 4 KiB times a power of two (MDTS is a
// power of two of the 4 KiB minimum page). 0 when the device cannot move even 4 KiB.
uint32_t max_transfer_for_device(uint32_t configured, uint64_t device_max_msg);

} // namespace skiff::nvmeof::rdma
