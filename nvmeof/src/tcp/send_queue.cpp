#include "send_queue.hpp"

#include "skiff/nvmeof/tls/tls_session.hpp"

#include <cerrno>
#include <climits>
#include <sys/socket.h>

namespace skiff::nvmeof::tcp {

SendItem *SendQueue::reserve() {
    if (size_ == items_.size()) return nullptr;
    SendItem &it = items_[tail_];
    it = SendItem{};
    return &it;
}

// One sendmsg() over up to 256 iovecs from the head, skipping what was already sent: a full
// queue of 4 KiB reads (C2HData header, data, response: three iovecs each) goes out at once.
ssize_t SendQueue::send_batch(int fd, tls::TlsSession *tls) {
    constexpr int kMaxIov = 256;
    iovec iov[kMaxIov];
    int cnt = 0;
    size_t skip = head_sent_;
    size_t i = head_;
    for (size_t n = 0; n < size_ && cnt < kMaxIov - 4; ++n, i = next(i)) {
        const SendItem &it = items_[i];
        for (int k = 0; k < it.iovcnt; ++k) {
            iovec v = it.iov[k];
            if (skip >= v.iov_len) {
                skip -= v.iov_len;
                continue;
            }
            v.iov_base = static_cast<uint8_t *>(v.iov_base) + skip;
            v.iov_len -= skip;
            skip = 0;
            iov[cnt++] = v;
        }
    }
    ssize_t n;
    if (tls && !tls->ktls_send()) {
        n = tls->writev(iov, cnt);
    } else {
        msghdr msg{};
        msg.msg_iov = iov;
        msg.msg_iovlen = cnt;
        n = sendmsg(fd, &msg, MSG_DONTWAIT | MSG_NOSIGNAL);
    }
    if (n < 0) return (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) ? 0 : -1;
    return n;
}

} // namespace skiff::nvmeof::tcp
