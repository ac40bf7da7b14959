// Internal: handing a request's backend I/O to its namespace's channel on the queue's poll
// group (shared by the I/O command parsers: io_cmd.cpp, io_sequence.cpp).
#pragma once

#include "skiff/nvmeof/target/request.hpp"

#include <cstdint>

namespace skiff::nvmeof::target::detail {

// Fills req.io and submits it to ns's channel; `done` runs when the backend is finished with
// it (inline for synchronous backends, later for asynchronous ones), or at once with Internal
// Error when the poll group has no channel for ns. write_buf: kCompareAndWrite's data.
void submit_io(Request &req, Namespace &ns, IoOp op, uint64_t offset, uint64_t len, void *buf,
               void (*done)(Request &, uint16_t), void *write_buf = nullptr);

} // namespace skiff::nvmeof::target::detail
