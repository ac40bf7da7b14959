#include "skiff/nvmeof/host/rx_stream.hpp"

#include "skiff/nvmeof/wire/tcp_pdu.hpp"

#include <algorithm>
#include <cstring>

namespace skiff::nvmeof::host {

namespace {
constexpr uint32_t kMinRing = 64;
constexpr int kDataSegment = 1; // seg_[0] pad, seg_[1] data, seg_[2] digest
} // namespace

RxStream::RxStream(uint32_t ring_bytes, bool header_digest)
    : ring_(new uint8_t[std::max(ring_bytes, kMinRing)]), cap_(std::max(ring_bytes, kMinRing)),
      header_digest_(header_digest), ring_read_limit_(cap_) {}

uint32_t RxStream::header_need() const {
    const bool digest = header_digest_ && ring_[head_] != wire::tcp::kC2HTermReq;
    return kHeaderLen + (digest ? wire::tcp::kDigestLen : 0u);
}

RxStream::Event RxStream::next() {
    if (header_pending_) { // the caller is done with the last header: drop it
        head_ += header_bytes_;
        header_pending_ = false;
    }
    if (in_payload_) {
        fill_payload_from_ring();
        if (!payload_done()) return Event::kNeedData;
        in_payload_ = false;
        return Event::kPayloadDone;
    }
    if (staged() > 0) {
        const uint32_t need = header_need();
        if (staged() >= need) {
            header_ = ring_.get() + head_;
            header_bytes_ = need;
            header_pending_ = true;
            return Event::kHeader;
        }
    }
    if (head_ == tail_) head_ = tail_ = 0;
    return Event::kNeedData;
}

void RxStream::expect_payload(uint32_t pad, uint8_t *dst, uint32_t len, bool digest) {
    if (header_pending_) {
        head_ += header_bytes_;
        header_pending_ = false;
    }
    seg_[0] = {pad_sink_, std::min<size_t>(pad, sizeof(pad_sink_))};
    seg_[kDataSegment] = {dst, len};
    seg_[2] = {&payload_digest_, digest ? wire::tcp::kDigestLen : 0u};
    seg_count_ = 3;
    seg_next_ = 0;
    payload_copied_ = 0;
    in_payload_ = true;
    ring_read_limit_ = len >= cap_ / 2 ? std::min(kLargePayloadRingRead, cap_) : cap_;
}

void RxStream::fill_payload_from_ring() {
    while (seg_next_ < seg_count_) {
        iovec &s = seg_[seg_next_];
        if (s.iov_len == 0) {
            ++seg_next_;
            continue;
        }
        if (staged() == 0) break;
        const uint32_t n = static_cast<uint32_t>(std::min<size_t>(s.iov_len, staged()));
        std::memcpy(s.iov_base, ring_.get() + head_, n);
        head_ += n;
        if (seg_next_ == kDataSegment) payload_copied_ += n;
        s.iov_base = static_cast<uint8_t *>(s.iov_base) + n;
        s.iov_len -= n;
    }
    if (head_ == tail_) head_ = tail_ = 0;
}

int RxStream::read_targets(iovec *iov, size_t &want) {
    int n = 0;
    want = 0;
    if (in_payload_) {
        // The ring is empty (the payload took everything staged): the rest of the payload goes
        // straight to its place, what follows it into the ring.
        head_ = tail_ = 0;
        for (int i = seg_next_; i < seg_count_; ++i)
            if (seg_[i].iov_len > 0) iov[n++] = seg_[i];
    } else if (head_ > 0) { // keep the partial header at the front: at most 27 bytes move
        std::memmove(ring_.get(), ring_.get() + head_, staged());
        tail_ -= head_;
        head_ = 0;
    }
    iov[n++] = {ring_.get() + tail_, std::min(cap_ - tail_, ring_read_limit_)};
    for (int i = 0; i < n; ++i) want += iov[i].iov_len;
    return n;
}

void RxStream::commit(size_t n) {
    if (in_payload_) {
        for (; seg_next_ < seg_count_ && n > 0; ++seg_next_) {
            iovec &s = seg_[seg_next_];
            const size_t take = std::min(s.iov_len, n);
            s.iov_base = static_cast<uint8_t *>(s.iov_base) + take;
            s.iov_len -= take;
            n -= take;
            if (s.iov_len > 0) break;
        }
        while (seg_next_ < seg_count_ && seg_[seg_next_].iov_len == 0) ++seg_next_;
    }
    tail_ += static_cast<uint32_t>(n); // the rest went to the ring
}

size_t RxStream::take_staged(void *dst, size_t len) {
    const uint32_t n = static_cast<uint32_t>(std::min<size_t>(len, staged()));
    std::memcpy(dst, ring_.get() + head_, n);
    head_ += n;
    if (head_ == tail_) head_ = tail_ = 0;
    return n;
}

} // namespace skiff::nvmeof::host
