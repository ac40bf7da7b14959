// Internal: a connection's outgoing PDUs, as a fixed ring of iovec groups sent in batches with
// sendmsg(). Partial sends resume where they stopped. No allocation after construction.
#pragma once

#include <cstddef>
#include <cstdint>
#include <sys/uio.h>
#include <vector>

namespace skiff::nvmeof::tls {
class TlsSession;
}

namespace skiff::nvmeof::tcp {

struct TcpRequest;

struct SendItem {
    enum Kind : uint8_t { kControl, kR2T, kData, kResponse };
    iovec iov[4];
    uint8_t iovcnt = 0;
    Kind kind = kControl;
    bool frees_request = false; // the request slot is released once this item is on the wire
    TcpRequest *req = nullptr;
};

class SendQueue {
  public:
    explicit SendQueue(size_t capacity) : items_(capacity) {}

    // A slot to fill; commit() makes it visible. nullptr when full (a sizing bug).
    SendItem *reserve();
    void commit() {
        tail_ = next(tail_);
        ++size_;
    }
    bool empty() const { return size_ == 0; }
    // Calls fn(item) for every item still queued (whole or partly unsent), oldest first.
    template <typename Fn>
    void for_each_queued(Fn &&fn) {
        for (size_t n = 0, i = head_; n < size_; ++n, i = next(i)) fn(items_[i]);
    }

    // Sends as much as the socket takes. Calls done(item) for each item fully sent.
    // Returns false on a socket error (other than EAGAIN). With a TLS session whose keys the
    // kernel does not hold, the bytes go through the session's records instead of sendmsg.
    template <typename Done>
    bool flush(int fd, tls::TlsSession *tls, Done &&done);

  private:
    size_t next(size_t i) const { return i + 1 == items_.size() ? 0 : i + 1; }
    ssize_t send_batch(int fd, tls::TlsSession *tls);

    std::vector<SendItem> items_;
    size_t head_ = 0, tail_ = 0, size_ = 0;
    size_t head_sent_ = 0; // bytes of the head item already sent
};

template <typename Done>
bool SendQueue::flush(int fd, tls::TlsSession *tls, Done &&done) {
    while (size_) {
        ssize_t n = send_batch(fd, tls);
        if (n < 0) return false;
        if (n == 0) return true; // socket full
        size_t left = static_cast<size_t>(n) + head_sent_;
        head_sent_ = 0;
        while (size_) {
            SendItem &it = items_[head_];
            size_t len = 0;
            for (int i = 0; i < it.iovcnt; ++i) len += it.iov[i].iov_len;
            if (left < len) {
                head_sent_ = left;
                break;
            }
            left -= len;
            head_ = next(head_);
            --size_;
            done(it);
        }
    }
    return true;
}

} // namespace skiff::nvmeof::tcp
