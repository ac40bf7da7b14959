#include "skiff/dataplane/rbd_status.hpp"

#include "skiff/nvmeof/wire/command.hpp"

#include <nvme/types.h>

#include <cerrno>

namespace skiff::dataplane {

using nvmeof::target::IoOp;
namespace wire = nvmeof::wire;

bool rbd_result_unreachable(ssize_t result) {
    return result == -ETIMEDOUT || result == -ENOTCONN || result == -ESHUTDOWN || result == -ECONNREFUSED;
}

uint16_t rbd_io_status(IoOp op, ssize_t result) {
    if (result >= 0) return 0;
    if (rbd_result_unreachable(result)) return wire::Status::make(NVME_SCT_PATH, NVME_SC_ANA_INACCESSIBLE);
    // librbd's miscompare (the OSD's cmpext failed; librbd reports where in *mismatch_off).
    if (result == -EILSEQ && op == IoOp::kCompareAndWrite)
        return wire::Status::make(NVME_SCT_MEDIA, NVME_SC_COMPARE_FAILED, true);
    if (result == -EINVAL) return wire::Status::make(NVME_SCT_GENERIC, NVME_SC_INVALID_FIELD, true);
    if (result == -ENOSPC || result == -EDQUOT)
        return wire::Status::make(NVME_SCT_GENERIC, NVME_SC_CAP_EXCEEDED, true);
    if (op == IoOp::kRead || op == IoOp::kCompare)
        return wire::Status::make(NVME_SCT_MEDIA, NVME_SC_READ_ERROR, false);
    return wire::Status::make(NVME_SCT_MEDIA, NVME_SC_WRITE_FAULT, false);
}

} // namespace skiff::dataplane
