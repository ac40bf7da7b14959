// Internal: commands made of several backend I/Os one after the other (Copy, Verify). The
// command's `next` function plans each I/O in turn (plan_io) from its progress in req.seq; the
// driver submits it and calls `next` again with its status. An I/O that completes inline (the
// synchronous backends: RAM, null) loops in the driver instead of recursing, so a long command
// does not grow the stack; one that completes later resumes the driver from the poll group's
// loop. Nothing is allocated: the state lives in the preallocated Request.
#pragma once

#include "skiff/nvmeof/target/request.hpp"

#include <cstdint>

namespace skiff::nvmeof::target::detail {

// Called with the status of the I/O before (0 for the first call). Returns true with the next
// I/O planned, or false once it has completed the request (which may then be reused at once).
using NextIo = bool (*)(Request &req, uint16_t last_status);

// Starts the sequence on req.ns. req.seq's progress fields are the command's to set first.
void run_io_sequence(Request &req, NextIo next);

// The I/O `next` plans: bytes of req.ns, into or out of buf.
void plan_io(Request &req, IoOp op, uint64_t offset, uint64_t len, void *buf);

// Where a command may stage data inside the target: the slot's own buffer, past the command's
// data when that lies in it (Copy's range descriptors on NVMe/TCP), page aligned for O_DIRECT
// files. `blocks` whole blocks of the namespace fit; 0 when not even one does.
struct Staging {
    uint8_t *buf = nullptr;
    uint32_t blocks = 0;
};
Staging staging_space(const Request &req);

} // namespace skiff::nvmeof::target::detail
