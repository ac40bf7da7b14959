// What a librbd result means for the NVMe command it served: the completion status, and
// whether the result says the cluster (not the request) is the problem, which turns the
// namespace ANA inaccessible. A pure function of the operation and librbd's return value, so
// it is tested without a cluster (tests/dataplane/rbd_device_test.cpp).
#pragma once

#include "skiff/nvmeof/target/block_device.hpp"

#include <cstdint>
#include <sys/types.h>

namespace skiff::dataplane {

// -ETIMEDOUT, -ENOTCONN, -ESHUTDOWN (also a blocklisted client), -ECONNREFUSED.
bool rbd_result_unreachable(ssize_t result);

// librbd's result for `op` (>= 0 success) -> an NVMe status field (0 = success):
// - unreachable (above): ANA Inaccessible (SCT 3h, SC 02h, retryable on another path);
// - -EILSEQ from rbd_aio_compare_and_write (the stored bytes differ; nothing was written):
//   Compare Failure (SCT 2h, SC 85h);
// - -EINVAL Invalid Field, -ENOSPC / -EDQUOT Capacity Exceeded;
// - anything else: Unrecovered Read Error for reads and compares, Write Fault for the rest.
// A Compare's own miscompare (bytes read, then compared by skiff) is decided by the caller.
uint16_t rbd_io_status(nvmeof::target::IoOp op, ssize_t result);

} // namespace skiff::dataplane
