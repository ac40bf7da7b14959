// The software device topology: which local functions exist on the host side and on the DPU side,
// and which representors each DPU PF manages. Loaded from the JSON file named by SKIFF_TOPOLOGY
// (format in README.md) or built in; SKIFF_SIDE=host|dpu chooses the side of this process.
#pragma once

#include "dev/dev_caps.hpp"

#include <skiff/core/status.hpp>

#include <doca_types.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace skiff::core::dev {

enum class Side { host, dpu };

const char *side_name(Side side);

// A bitmask of DevCap values.
using CapMask = uint32_t;
constexpr CapMask cap_bit(DevCap cap) {
    return 1u << static_cast<uint32_t>(cap);
}

enum class RepKind { net, emulated };

struct RepDesc {
    std::string name;     // "hpf0", "pf0sf0"
    std::string pci_addr; // normalized; a host-function representor shares the host function's address
    doca_pci_func_type func_type = DOCA_PCI_FUNC_TYPE_PF;
    RepKind kind = RepKind::net;
    std::string vuid;
    bool hotplug = false;
};

struct DeviceDesc {
    std::string name; // "pf0", "p0", or an rdma-core device name
    Side side = Side::dpu;
    std::string pci_addr; // normalized
    doca_pci_func_type func_type = DOCA_PCI_FUNC_TYPE_PF;
    uint32_t sf_index = 0; // an SF's number under its parent PF (doca_devinfo_get_sf_index); SFs only
    std::string iface_name;
    std::string ibdev_name; // empty for an emulated function unless its topology entry names one ("ibdev")
    std::string vuid;
    std::optional<std::array<uint8_t, 6>> mac;
    std::optional<std::array<uint8_t, 4>> ipv4;
    CapMask caps = 0;
    std::vector<RepDesc> reps; // only DPU PFs have representors

    bool has_cap(DevCap cap) const { return (caps & cap_bit(cap)) != 0; }
    // The key that identifies "the same device" across devinfo lists.
    std::string identity() const { return std::string(side_name(side)) + "/" + name; }
};

struct Topology {
    Side side = Side::dpu;        // the side this process runs on
    std::vector<DeviceDesc> host; // host-side functions
    std::vector<DeviceDesc> dpu;  // DPU-side functions

    const std::vector<DeviceDesc> &local() const { return side == Side::host ? host : dpu; }
};

// The built-in topology (spec section 1.1): host pf0, pf0vf0, pf0vf1, pf1, pf1vf0; DPU p0, p1 with
// representors hpf0.. and SF representors, and local SFs p0s0, p1s0.
Topology default_topology();

// Loads the topology now (SKIFF_TOPOLOGY file or the default), then applies SKIFF_SIDE.
// Read on every call, so each devinfo list is a fresh snapshot.
Result<Topology> load_topology();

// Parses a topology document (the file format of README.md).
Result<Topology> parse_topology(const std::string &json_text, const std::string &origin);

// Real rdma-core devices on this machine (empty without SKIFF_HAVE_RDMA or without devices).
std::vector<DeviceDesc> rdma_devices(Side side);

} // namespace skiff::core::dev
