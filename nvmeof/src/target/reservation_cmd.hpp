// Internal: the reservation parts of the I/O, features and log page parsers
// (reservation_cmd.cpp).
#pragma once

#include "skiff/nvmeof/target/request.hpp"

#include <cstdint>

namespace skiff::nvmeof::target::detail {

bool is_reservation_command(uint8_t opcode);
// Parses Reservation Register / Report / Acquire / Release (req.ns set).
bool parse_reservation(Request &req);
// False, with Reservation Conflict set, when the namespace's reservation forbids this host the
// command (reads: Read, Compare, Verify; writes: Write, Write Zeroes, Dataset Management, Flush,
// Copy), as the specification's read and write command groups.
bool check_reservation_access(Request &req);
// Features 82h (notification mask) and 83h (persistence); return the status.
uint16_t set_reservation_feature(Request &req);
uint16_t get_reservation_feature(Request &req);
// Log page 80h: the next Reservation Notification (one per read).
void log_reservation(Request &req, uint64_t offset, uint32_t len, bool retain);

} // namespace skiff::nvmeof::target::detail
