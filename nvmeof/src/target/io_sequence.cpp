#include "io_sequence.hpp"

#include "backend_io.hpp"
#include "skiff/nvmeof/target/namespace.hpp"

#include <algorithm>

namespace skiff::nvmeof::target::detail {
namespace {

constexpr uint64_t kPage = 4096;

void on_io_done(Request &req, uint16_t status);

// Submits planned I/O until one is still in flight when submit returns (on_io_done resumes
// then) or `next` has completed the request.
void drive(Request &req, uint16_t status) {
    IoSequence &s = req.seq;
    while (s.next(req, status)) {
        s.submitting = true;
        s.completed_inline = false;
        submit_io(req, *req.ns, req.io.op, req.io.offset, req.io.len, req.io.buf, on_io_done);
        s.submitting = false;
        if (!s.completed_inline) return;
        status = s.status;
    }
}

void on_io_done(Request &req, uint16_t status) {
    IoSequence &s = req.seq;
    if (s.submitting) { // inline: drive() is below us on the stack and goes on
        s.status = status;
        s.completed_inline = true;
        return;
    }
    drive(req, status);
}

} // namespace

void run_io_sequence(Request &req, NextIo next) {
    req.seq.next = next;
    drive(req, 0);
}

void plan_io(Request &req, IoOp op, uint64_t offset, uint64_t len, void *buf) {
    req.io.op = op;
    req.io.offset = offset;
    req.io.len = len;
    req.io.buf = buf;
}

Staging staging_space(const Request &req) {
    const auto slot = reinterpret_cast<uintptr_t>(req.slot_buf);
    const auto data = reinterpret_cast<uintptr_t>(req.buf);
    uint64_t skip = 0;
    if (req.data_len && data >= slot && data < slot + req.slot_cap)
        skip = (data - slot + req.data_len + kPage - 1) / kPage * kPage;
    if (skip >= req.slot_cap) return {};
    const uint64_t blocks = (req.slot_cap - skip) >> req.ns->block_shift();
    return {req.slot_buf + skip, static_cast<uint32_t>(blocks)};
}

} // namespace skiff::nvmeof::target::detail
