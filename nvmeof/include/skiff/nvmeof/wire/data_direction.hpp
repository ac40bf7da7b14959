// Which way a command's data goes, from the direction bits of its opcode (NVMe base spec: bits
// 1:0, 01b host to controller, 10b controller to host, 11b both) or, for a Fabrics command, of
// its FCTYPE (the low byte of the NSID field).
#pragma once

#include "skiff/nvmeof/wire/command.hpp"

#include <cstdint>

namespace skiff::nvmeof::wire {

// Only data going to the controller may travel in the capsule: a Read with an in-capsule data
// block is malformed (nvmet answers it Invalid Field; so does skiff).
inline bool moves_data_to_controller(const Sqe &cmd) {
    const uint8_t code = cmd.opcode == kFabricsOpcode ? static_cast<uint8_t>(cmd.nsid & 0xFF) : cmd.opcode;
    return (code & 1) != 0;
}

} // namespace skiff::nvmeof::wire
