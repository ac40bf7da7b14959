// Copy (NVM command set, opcode 19h), Source Range Entries format 0h: the ranges listed in the
// command's data are copied one after the other to consecutive blocks from SDLBA, within the
// namespace. Everything is checked before any block moves (size limits, then LBA ranges, then
// overlap), so a refused Copy changes nothing. The data goes through the backend: each range is
// read into the request slot's staging space and written to the destination, one chunk at a
// time (io_sequence.hpp).
//
// A destination that overlaps a source range is refused (Invalid Field in Command): copied
// chunk by chunk, a later chunk could read blocks an earlier chunk already overwrote, and a
// result that depends on the chunk size is no behaviour to offer. Sources may overlap each
// other.
#include "commands.hpp"
#include "copy_limits.hpp"
#include "io_sequence.hpp"
#include "skiff/nvmeof/target/namespace.hpp"

#include <algorithm>

namespace skiff::nvmeof::target::detail {
namespace {

constexpr uint32_t kFormatShift = 8; // CDW12 bits 11:8: Descriptor Format

uint32_t range_count(const Request &req) {
    return (req.cmd.cdw12 & 0xFF) + 1;
}

const nvme_copy_range *ranges_of(const Request &req) {
    return reinterpret_cast<const nvme_copy_range *>(req.buf);
}

uint64_t blocks_of(const nvme_copy_range &r) {
    return static_cast<uint64_t>(r.nlb) + 1; // 0's based
}

uint16_t size_limit_exceeded() {
    return wire::Status::make(NVME_SCT_CMD_SPECIFIC, NVME_SC_CMD_SIZE_LIMIT_EXCEEDED, true);
}

uint16_t generic(uint8_t sc) {
    return wire::Status::make(NVME_SCT_GENERIC, sc, true);
}

// MSSRL for each range, MCL for all of them; sets `total` to the blocks to copy.
uint16_t check_sizes(const Request &req, uint64_t &total) {
    const uint8_t shift = req.ns->block_shift();
    total = 0;
    for (uint32_t i = 0; i < range_count(req); ++i) {
        const uint64_t n = blocks_of(ranges_of(req)[i]);
        if (n > max_copy_range_blocks(shift)) return size_limit_exceeded();
        total += n;
    }
    return total > max_copy_blocks(shift) ? size_limit_exceeded() : 0;
}

bool overlaps(uint64_t a, uint64_t a_len, uint64_t b, uint64_t b_len) {
    return a < b + b_len && b < a + a_len;
}

uint16_t check_ranges(const Request &req, uint64_t total) {
    const Namespace &ns = *req.ns;
    const uint64_t dest = req.cmd.slba(); // SDLBA, CDW10-11
    for (uint32_t i = 0; i < range_count(req); ++i)
        if (!ns.contains(ranges_of(req)[i].slba, blocks_of(ranges_of(req)[i])))
            return generic(NVME_SC_LBA_RANGE);
    if (!ns.contains(dest, total)) return generic(NVME_SC_LBA_RANGE);
    for (uint32_t i = 0; i < range_count(req); ++i)
        if (overlaps(ranges_of(req)[i].slba, blocks_of(ranges_of(req)[i]), dest, total))
            return generic(NVME_SC_INVALID_FIELD);
    return 0;
}

// A failed Copy reports the lowest numbered Source Range entry not fully copied in Dword 0.
bool copy_failed(Request &req, uint16_t status) {
    req.cqe.result = req.seq.range;
    req.set_status(status);
    complete(req);
    return false;
}

// Plans the write of the chunk just read, or the read of the next one.
bool copy_next(Request &req, uint16_t status) {
    IoSequence &s = req.seq;
    if (status != 0) return copy_failed(req, status);
    const uint8_t shift = req.ns->block_shift();
    const Staging staging = staging_space(req);
    if (s.write_next) {
        s.write_next = false;
        plan_io(req, IoOp::kWrite, s.dest << shift, uint64_t(s.chunk) << shift, staging.buf);
        s.dest += s.chunk;
        s.done += s.chunk;
        return true;
    }
    const nvme_copy_range *ranges = ranges_of(req);
    while (s.range < range_count(req) && s.done == blocks_of(ranges[s.range])) {
        ++s.range;
        s.done = 0;
    }
    if (s.range == range_count(req)) {
        complete(req);
        return false;
    }
    const nvme_copy_range &r = ranges[s.range];
    s.chunk = static_cast<uint32_t>(std::min<uint64_t>(blocks_of(r) - s.done, staging.blocks));
    plan_io(req, IoOp::kRead, (r.slba + s.done) << shift, uint64_t(s.chunk) << shift, staging.buf);
    s.write_next = true;
    return true;
}

void execute_copy(Request &req) {
    uint64_t total = 0;
    uint16_t status = check_sizes(req, total);
    if (!status) status = check_ranges(req, total);
    if (status) {
        req.set_status(status);
        return complete(req);
    }
    req.seq = {};
    req.seq.dest = req.cmd.slba();
    run_io_sequence(req, copy_next);
}

} // namespace

bool parse_copy(Request &req) {
    const uint32_t format = (req.cmd.cdw12 >> kFormatShift) & 0xF;
    if (format != 0) return fail(req, NVME_SCT_GENERIC, NVME_SC_INVALID_FIELD);
    const uint32_t nr = range_count(req);
    if (nr > kMaxCopyRanges) return fail(req, NVME_SCT_CMD_SPECIFIC, NVME_SC_CMD_SIZE_LIMIT_EXCEEDED);
    // Hosts may send the descriptors in a larger buffer (as for Dataset Management), never
    // more than the largest list we take.
    if (req.data_len < nr * sizeof(nvme_copy_range) ||
        req.data_len > kMaxCopyRanges * sizeof(nvme_copy_range))
        return fail(req, NVME_SCT_GENERIC, NVME_SC_SGL_INVALID_DATA);
    // A target configured with blocks larger than its buffer cannot stage one: say so rather
    // than loop without progress.
    if (staging_space(req).blocks == 0) return fail(req, NVME_SCT_GENERIC, NVME_SC_INTERNAL);
    req.dir = DataDir::kHostToCtrl;
    req.execute = execute_copy;
    return true;
}

} // namespace skiff::nvmeof::target::detail
