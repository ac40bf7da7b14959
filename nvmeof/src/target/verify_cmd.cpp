// Verify (NVM command set, opcode 0Ch): reads the range and reports whether it could. skiff's
// backends keep no protection information, so a range that reads back is a verified range;
// nothing goes to the host. The reads go through the backend a chunk at a time into the
// request slot's buffer (io_sequence.hpp); a RAM namespace lends its memory instead (a read
// view), so verifying it copies nothing. FUA asks for the data from non-volatile media: the
// reads go to the same storage every Read does, which is all a backend without its own cache
// can offer.
#include "commands.hpp"
#include "copy_limits.hpp"
#include "io_sequence.hpp"
#include "skiff/nvmeof/target/namespace.hpp"

#include <algorithm>

namespace skiff::nvmeof::target::detail {
namespace {

bool verify_next(Request &req, uint16_t status) {
    IoSequence &s = req.seq;
    const uint64_t total = req.cmd.nlb();
    if (status != 0 || s.done == total) {
        req.set_status(status);
        complete(req);
        return false;
    }
    const uint8_t shift = req.ns->block_shift();
    const Staging staging = staging_space(req);
    s.chunk = static_cast<uint32_t>(std::min<uint64_t>(total - s.done, staging.blocks));
    plan_io(req, IoOp::kRead, (req.cmd.slba() + s.done) << shift, uint64_t(s.chunk) << shift, staging.buf);
    s.done += s.chunk;
    return true;
}

void execute_verify(Request &req) {
    req.seq = {};
    run_io_sequence(req, verify_next);
}

} // namespace

bool parse_verify(Request &req) {
    const uint64_t nlb = req.cmd.nlb();
    if (!req.ns->contains(req.cmd.slba(), nlb)) return fail(req, NVME_SCT_GENERIC, NVME_SC_LBA_RANGE);
    // Beyond Identify's VSL (copy_limits.hpp), as SPDK refuses a Write Zeroes beyond WZSL.
    if ((nlb << req.ns->block_shift()) > kMaxVerifyBytes)
        return fail(req, NVME_SCT_GENERIC, NVME_SC_INVALID_FIELD);
    if (!expect_transfer(req, 0, DataDir::kNone)) return false;
    if (staging_space(req).blocks == 0) return fail(req, NVME_SCT_GENERIC, NVME_SC_INTERNAL);
    req.execute = execute_verify;
    return true;
}

} // namespace skiff::nvmeof::target::detail
