// The byte stream a host receives after the ICResp, cut into PDUs without a system call per PDU:
// one large read lands in a receive ring and every whole header in it is handed out in place;
// a data payload is copied from the ring into the command's buffer, and what has not arrived
// yet is read straight into that buffer (the ring behind it picks up the PDUs that follow).
//
// Pure bookkeeping, no socket: the queue asks read_targets() where the next read should go,
// reads (readv), tells commit() how many bytes came, then pulls events with next(). The tests
// feed it byte streams split at every boundary.
//
//   for (;;) switch (rx.next()) {
//   case RxStream::Event::kNeedData: read into rx.read_targets(); rx.commit(n); break;
//   case RxStream::Event::kHeader: inspect rx.header(); for C2HData rx.expect_payload(...); break;
//   case RxStream::Event::kPayloadDone: check rx.payload_digest(), complete the command; break;
//   }
#pragma once

#include <sys/uio.h>

#include <cstddef>
#include <cstdint>
#include <memory>

namespace skiff::nvmeof::host {

class RxStream {
  public:
    // Every PDU a host receives after the ICResp has a 24-byte header (CapsuleResp, C2HData,
    // R2T, C2HTermReq), followed by a header digest when digests were negotiated (not after a
    // C2HTermReq).
    static constexpr uint32_t kHeaderLen = 24;
    static constexpr uint32_t kMaxTargets = 4; // pad, data, digest, ring
    // While payloads are large (half the ring or more: 128 KiB reads), a read puts at most this
    // much into the ring: enough for the next header, so its payload is read in place, not copied.
    static constexpr uint32_t kLargePayloadRingRead = 4096;

    // ring_bytes: at least 64 (two headers with digests fit).
    explicit RxStream(uint32_t ring_bytes, bool header_digest = false);
    // Header digests negotiated (ICResp): every header but a C2HTermReq's is 4 bytes longer.
    void set_header_digest(bool on) { header_digest_ = on; }

    enum class Event : uint8_t {
        kNeedData,    // nothing complete: read more into read_targets()
        kHeader,      // header() holds a whole PDU header (and its digest)
        kPayloadDone, // the payload announced by expect_payload() is in place
    };
    Event next();

    // The header of the last kHeader event, valid until the next call to next() or commit().
    const uint8_t *header() const { return header_; }
    // Bytes header() occupies on the wire: kHeaderLen plus the digest when present.
    uint32_t header_bytes() const { return header_bytes_; }

    // After kHeader: the PDU carries `pad` bytes to drop, `len` bytes of data for dst and, with
    // digest, a 4-byte data digest. next() reports kPayloadDone once all of it arrived.
    void expect_payload(uint32_t pad, uint8_t *dst, uint32_t len, bool digest);
    uint32_t payload_digest() const { return payload_digest_; }
    // Bytes of the current payload copied from the ring (the rest was read in place).
    uint32_t payload_copied() const { return payload_copied_; }

    // Where the next read should put its bytes (at most kMaxTargets iovecs); `want` is their
    // total. Only valid after next() returned kNeedData.
    int read_targets(iovec *iov, size_t &want);
    // n bytes (at most `want`) arrived in the iovecs read_targets() gave.
    void commit(size_t n);

    // Copies up to len staged (ring) bytes to dst; for the raw escape hatch.
    size_t take_staged(void *dst, size_t len);
    uint32_t staged() const { return tail_ - head_; }

  private:
    uint32_t header_need() const; // bytes the header at head_ occupies, once 8 bytes are there
    void fill_payload_from_ring();
    bool payload_done() const { return seg_next_ == seg_count_; }

    std::unique_ptr<uint8_t[]> ring_;
    uint32_t cap_;
    uint32_t head_ = 0, tail_ = 0; // unread bytes are [head_, tail_)
    bool header_digest_;

    const uint8_t *header_ = nullptr;
    uint32_t header_bytes_ = 0;
    bool header_pending_ = false; // kHeader handed out, its bytes still to be dropped

    // The payload being placed: up to three segments (pad, data, digest), filled in order.
    bool in_payload_ = false;
    iovec seg_[3]{};
    int seg_count_ = 0, seg_next_ = 0;
    uint32_t payload_digest_ = 0;
    uint32_t payload_copied_ = 0;
    uint32_t ring_read_limit_; // bytes a read may put into the ring
    uint8_t pad_sink_[256]{};  // PDO padding lands here (PDO <= 255)
};

} // namespace skiff::nvmeof::host
