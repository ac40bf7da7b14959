#include "backend_io.hpp"

#include "skiff/nvmeof/target/controller.hpp"
#include "skiff/nvmeof/target/queue.hpp"

#include <nvme/types.h>

namespace skiff::nvmeof::target::detail {
namespace {

Request &owner_of(BackendIo &io) {
    return *static_cast<Request *>(io.owner);
}

// Durable before completion: the command's FUA bit (CDW12 bit 30 in Write and Copy alike), or
// the host disabled the volatile write cache (Set Features 06h), which makes every write
// write-through.
bool wants_fua(const Request &req) {
    const Controller *ctrl = req.queue->controller();
    return (req.cmd.cdw12 & (uint32_t(NVME_IO_FUA) << 16)) || (ctrl && !ctrl->volatile_write_cache);
}

// A large read may come back as a view of the device's memory (RAM), sent from there. Only a
// read whose bytes go to the host (Read) or nowhere (Verify) can take one: Copy needs them in
// its buffer to write them elsewhere.
bool may_take_view(const Request &req, IoOp op, uint64_t len) {
    if (op != IoOp::kRead || req.dir == DataDir::kHostToCtrl) return false;
    const uint32_t view_min = req.queue->transport().read_view_min_bytes();
    return view_min != 0 && len >= view_min;
}

} // namespace

void submit_io(Request &req, Namespace &ns, IoOp op, uint64_t offset, uint64_t len, void *buf,
               void (*done)(Request &, uint16_t), void *write_buf) {
    Queue &q = *req.queue;
    IoChannel *ch = q.context().channel(ns, q.channel_params());
    if (!ch) return done(req, wire::Status::make(NVME_SCT_GENERIC, NVME_SC_INTERNAL, false));
    BackendIo &io = req.io;
    io.op = op;
    io.offset = offset;
    io.len = len;
    io.buf = buf;
    io.write_buf = write_buf;
    io.fua = op == IoOp::kWrite && wants_fua(req);
    io.view_ok = may_take_view(req, op, len);
    io.view = nullptr;
    io.view_channel = nullptr;
    io.owner = &req;
    io.next = nullptr;
    // The command's continuation rides in the request; the channel calls back through here.
    req.io_done = done;
    io.done = [](BackendIo &io, uint16_t status) {
        Request &r = owner_of(io);
        r.queue->io_finished();
        r.io_done(r, status);
    };
    q.io_started();
    ch->submit(io);
}

} // namespace skiff::nvmeof::target::detail
