#include "skiff/nvmeof/host/tx_batch.hpp"

#include <cstring>

namespace skiff::nvmeof::host {

uint8_t *TxBatch::alloc(uint32_t bytes) {
    uint8_t *p = arena_ + used_;
    used_ += bytes;
    std::memset(p, 0, bytes);
    return p;
}

void TxBatch::add(const void *data, size_t len) {
    if (len == 0) return;
    bytes_ += len;
    if (iov_count_ > 0) {
        iovec &last = iov_[iov_count_ - 1];
        if (static_cast<uint8_t *>(last.iov_base) + last.iov_len == data) {
            last.iov_len += len;
            return;
        }
    }
    iov_[iov_count_++] = {const_cast<void *>(data), len};
}

Status TxBatch::send(TcpSocket &sock, Deadline deadline) {
    if (iov_count_ == 0) return Status::success();
    Status st = sock.send_all(iov_, iov_count_, deadline);
    ++sends_;
    iov_count_ = 0;
    bytes_ = 0;
    used_ = 0;
    return st;
}

} // namespace skiff::nvmeof::host
