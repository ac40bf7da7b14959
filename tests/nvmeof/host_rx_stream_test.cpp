// The host's receive ring (RxStream) cutting a byte stream into PDUs: the same stream of
// responses, padded C2HData with digests, an R2T, a payload larger than the ring and a TermReq
// must give the same events and the same placed bytes however the stream is split: at every
// byte boundary, one byte at a time, all at once, with a ring smaller than one payload.
#include "skiff/nvmeof/host/rx_stream.hpp"

#include "skiff/nvmeof/crc32c.hpp"
#include "skiff/nvmeof/wire/tcp_pdu.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <string>
#include <vector>

using namespace skiff::nvmeof;
using namespace skiff::nvmeof::host;
using namespace skiff::nvmeof::wire::tcp;

namespace {

struct StreamShape {
    bool hdgst = false;
    bool ddgst = false;
};

// Builds the controller's byte stream and remembers what the host must see.
class StreamBuilder {
  public:
    explicit StreamBuilder(StreamShape shape) : shape_(shape) {}

    void response(uint16_t cid) {
        CapsuleResp r{};
        r.ch = {kCapsuleResp, 0, 24, 0, header_len()};
        r.cqe.cid = cid;
        header(&r, 24, true);
        expected_.push_back("resp " + std::to_string(cid));
    }
    void r2t(uint16_t cid, uint32_t offset, uint32_t length) {
        R2T r{};
        r.ch = {kR2T, 0, 24, 0, header_len()};
        r.cccid = cid;
        r.r2to = offset;
        r.r2tl = length;
        header(&r, 24, true);
        expected_.push_back("r2t " + std::to_string(cid));
    }
    // C2HData for cid carrying `len` bytes at offset 0, data starting at PDO `pdo`.
    void c2h(uint16_t cid, uint32_t len, uint8_t pdo) {
        std::vector<uint8_t> data(len);
        for (uint32_t i = 0; i < len; ++i) data[i] = static_cast<uint8_t>(cid * 31 + i * 7);
        DataPdu d{};
        const uint32_t dd = shape_.ddgst ? 4 : 0;
        d.ch = {kC2HData, static_cast<uint8_t>(kFlagDataLast | (shape_.ddgst ? kFlagDdgst : 0)), 24, pdo,
                pdo + len + dd};
        d.cccid = cid;
        d.datal = len;
        header(&d, 24, true);
        bytes_.resize(bytes_.size() + (pdo - header_len()), 0xEE); // padding, must be dropped
        bytes_.insert(bytes_.end(), data.begin(), data.end());
        if (shape_.ddgst) {
            const uint32_t c = crc32c(data.data(), len);
            const auto *p = reinterpret_cast<const uint8_t *>(&c);
            bytes_.insert(bytes_.end(), p, p + 4);
        }
        payloads_[cid] = data;
        expected_.push_back("c2h " + std::to_string(cid));
        expected_.push_back("done " + std::to_string(cid));
    }
    void term_req() {
        TermReq t{};
        t.ch = {kC2HTermReq, 0, 24, 0, 24};
        t.fes = kFesPduSequenceError;
        header(&t, 24, false);
        expected_.push_back("term");
    }

    uint32_t header_len() const { return 24u + (shape_.hdgst ? 4u : 0u); }
    const std::vector<uint8_t> &bytes() const { return bytes_; }
    const std::vector<std::string> &expected() const { return expected_; }
    const std::map<uint16_t, std::vector<uint8_t>> &payloads() const { return payloads_; }

  private:
    void header(const void *h, uint32_t len, bool digest_allowed) {
        const auto *p = static_cast<const uint8_t *>(h);
        bytes_.insert(bytes_.end(), p, p + len);
        if (shape_.hdgst && digest_allowed) {
            const uint32_t c = crc32c(h, len);
            const auto *d = reinterpret_cast<const uint8_t *>(&c);
            bytes_.insert(bytes_.end(), d, d + 4);
        }
    }

    StreamShape shape_;
    std::vector<uint8_t> bytes_;
    std::vector<std::string> expected_;
    std::map<uint16_t, std::vector<uint8_t>> payloads_;
};

// What the host side saw: events in order, payload bytes per CID, bytes copied from the ring.
struct Seen {
    std::vector<std::string> events;
    std::map<uint16_t, std::vector<uint8_t>> payloads;
    std::map<uint16_t, uint32_t> copied;
    std::string error;
};

// Feeds `stream` into an RxStream, never more than `chunk` bytes per read and never across a
// byte offset listed in `cuts`, playing the queue's part on every event.
Seen run(const std::vector<uint8_t> &stream, uint32_t ring, StreamShape shape, size_t chunk,
         const std::vector<size_t> &cuts) {
    RxStream rx(ring, shape.hdgst);
    Seen seen;
    size_t pos = 0;
    uint16_t payload_cid = 0;
    for (int guard = 0; guard < 1000000; ++guard) {
        const RxStream::Event e = rx.next();
        if (e == RxStream::Event::kHeader) {
            const uint8_t *h = rx.header();
            const auto &ch = *reinterpret_cast<const CommonHeader *>(h);
            if (rx.header_bytes() != (ch.type == kC2HTermReq ? 24u : 24u + (shape.hdgst ? 4u : 0u)))
                seen.error = "header_bytes " + std::to_string(rx.header_bytes()) + " for type " +
                             std::to_string(ch.type);
            if (shape.hdgst && ch.type != kC2HTermReq) {
                uint32_t d;
                std::memcpy(&d, h + 24, 4);
                if (d != crc32c(h, 24)) seen.error = "header digest handed out wrong";
            }
            if (ch.type == kCapsuleResp) {
                seen.events.push_back("resp " +
                                      std::to_string(reinterpret_cast<const CapsuleResp *>(h)->cqe.cid));
            } else if (ch.type == kR2T) {
                seen.events.push_back("r2t " + std::to_string(reinterpret_cast<const R2T *>(h)->cccid));
            } else if (ch.type == kC2HTermReq) {
                seen.events.push_back("term");
                return seen; // a host stops reading at a TermReq
            } else if (ch.type == kC2HData) {
                const auto &d = *reinterpret_cast<const DataPdu *>(h);
                payload_cid = d.cccid;
                seen.events.push_back("c2h " + std::to_string(payload_cid));
                auto &buf = seen.payloads[payload_cid];
                buf.assign(d.datal, 0);
                rx.expect_payload(d.ch.pdo - rx.header_bytes(), buf.data(), d.datal, d.ch.flags & kFlagDdgst);
            } else {
                seen.error = "unknown PDU type " + std::to_string(ch.type);
                return seen;
            }
            continue;
        }
        if (e == RxStream::Event::kPayloadDone) {
            seen.events.push_back("done " + std::to_string(payload_cid));
            seen.copied[payload_cid] = rx.payload_copied();
            const auto &buf = seen.payloads[payload_cid];
            if (shape.ddgst && rx.payload_digest() != crc32c(buf.data(), buf.size()))
                seen.error = "data digest of CID " + std::to_string(payload_cid) + " wrong";
            continue;
        }
        if (pos == stream.size()) return seen; // everything delivered
        iovec iov[RxStream::kMaxTargets];
        size_t want = 0;
        const int n = rx.read_targets(iov, want);
        size_t limit = std::min({want, chunk, stream.size() - pos});
        for (size_t cut : cuts)
            if (cut > pos) limit = std::min(limit, cut - pos);
        size_t copied = 0;
        for (int i = 0; i < n && copied < limit; ++i) {
            const size_t take = std::min(iov[i].iov_len, limit - copied);
            std::memcpy(iov[i].iov_base, stream.data() + pos + copied, take);
            copied += take;
        }
        rx.commit(copied);
        pos += copied;
    }
    seen.error = "no progress";
    return seen;
}

StreamBuilder mixed_stream(StreamShape shape) {
    StreamBuilder b(shape);
    b.response(1);
    b.c2h(2, 100, 32); // padded: PDO 32 after a 24/28-byte header
    b.r2t(5, 0, 8192);
    b.c2h(3, 3000, static_cast<uint8_t>(b.header_len())); // larger than a 64-byte ring
    b.response(4);
    b.c2h(6, 0, static_cast<uint8_t>(b.header_len())); // no data at all
    b.response(7);
    b.term_req();
    return b;
}

void expect_seen(const StreamBuilder &b, const Seen &seen, const std::string &how) {
    ASSERT_EQ(seen.error, "") << how;
    ASSERT_EQ(seen.events, b.expected()) << how;
    for (const auto &[cid, data] : b.payloads())
        EXPECT_EQ(seen.payloads.at(cid), data) << how << ", CID " << cid;
}

} // namespace

class HostRxStream : public ::testing::TestWithParam<std::tuple<bool, bool, uint32_t>> {
  protected:
    StreamShape shape() const { return {std::get<0>(GetParam()), std::get<1>(GetParam())}; }
    uint32_t ring() const { return std::get<2>(GetParam()); }
};

TEST_P(HostRxStream, SameEventsAndBytesWhereverTheStreamIsSplit) {
    const StreamBuilder b = mixed_stream(shape());
    const auto &s = b.bytes();
    for (size_t cut = 1; cut < s.size(); ++cut)
        expect_seen(b, run(s, ring(), shape(), SIZE_MAX, {cut}), "split at byte " + std::to_string(cut));
}

TEST_P(HostRxStream, SameEventsAndBytesOneByteAtATime) {
    const StreamBuilder b = mixed_stream(shape());
    expect_seen(b, run(b.bytes(), ring(), shape(), 1, {}), "byte by byte");
}

TEST_P(HostRxStream, SameEventsAndBytesInThreeUnevenPieces) {
    const StreamBuilder b = mixed_stream(shape());
    const size_t n = b.bytes().size();
    for (size_t a = 1; a < n; a += 37)
        for (size_t c = a + 1; c < n; c += 53)
            expect_seen(b, run(b.bytes(), ring(), shape(), SIZE_MAX, {a, c}),
                        "cuts at " + std::to_string(a) + " and " + std::to_string(c));
}

INSTANTIATE_TEST_SUITE_P(DigestsAndRings, HostRxStream,
                         ::testing::Combine(::testing::Bool(), ::testing::Bool(),
                                            ::testing::Values(64u, 65536u)));

TEST(HostRxStreamPlacement, PayloadInTheRingIsCopiedAndTheRestIsReadInPlace) {
    StreamBuilder b({});
    b.c2h(3, 3000, 24);
    b.response(4);
    // All at once into a big ring: the whole payload was copied out of the ring.
    Seen all = run(b.bytes(), 65536, {}, SIZE_MAX, {});
    expect_seen(b, all, "all at once");
    EXPECT_EQ(all.copied.at(3), 3000u);
    // The header alone first: the next read puts the payload straight into the buffer.
    Seen split = run(b.bytes(), 65536, {}, SIZE_MAX, {24});
    expect_seen(b, split, "header first");
    EXPECT_EQ(split.copied.at(3), 0u);
    // Header plus 1000 bytes first: those 1000 are copied, the other 2000 land in place.
    Seen part = run(b.bytes(), 65536, {}, SIZE_MAX, {24 + 1000});
    expect_seen(b, part, "header and part of the data first");
    EXPECT_EQ(part.copied.at(3), 1000u);
}

TEST(HostRxStreamPlacement, ReadTargetsPutThePayloadBeforeTheRing) {
    RxStream rx(4096);
    StreamBuilder b({});
    b.c2h(9, 500, 24);
    const auto &s = b.bytes();
    iovec iov[RxStream::kMaxTargets];
    size_t want = 0;
    ASSERT_EQ(rx.next(), RxStream::Event::kNeedData);
    ASSERT_EQ(rx.read_targets(iov, want), 1);
    EXPECT_EQ(want, 4096u);
    std::memcpy(iov[0].iov_base, s.data(), 24);
    rx.commit(24);
    ASSERT_EQ(rx.next(), RxStream::Event::kHeader);
    std::vector<uint8_t> buf(500);
    rx.expect_payload(0, buf.data(), 500, false);
    ASSERT_EQ(rx.next(), RxStream::Event::kNeedData);
    ASSERT_EQ(rx.read_targets(iov, want), 2);
    EXPECT_EQ(iov[0].iov_base, buf.data());
    EXPECT_EQ(iov[0].iov_len, 500u);
    EXPECT_EQ(iov[1].iov_len, 4096u); // then the whole (empty) ring for what follows
    EXPECT_EQ(want, 4596u);
}

TEST(HostRxStreamPlacement, LargePayloadsKeepTheRingReadsSmall) {
    // 128 KiB reads through a 64 KiB ring: after a large payload's header, the ring takes only
    // enough for the next header, so the next payload lands in place instead of being copied.
    RxStream rx(65536);
    StreamBuilder b({});
    b.c2h(1, 131072, 24);
    b.c2h(2, 131072, 24);
    b.c2h(3, 100, 24);
    const auto &s = b.bytes();
    Seen seen = run(s, 65536, {}, SIZE_MAX, {});
    expect_seen(b, seen, "large payloads");
    EXPECT_EQ(seen.copied.at(1), 65536u - 24u); // the first read filled the ring
    EXPECT_LE(seen.copied.at(2), RxStream::kLargePayloadRingRead);
    iovec iov[RxStream::kMaxTargets];
    size_t want = 0;
    ASSERT_EQ(rx.next(), RxStream::Event::kNeedData);
    rx.read_targets(iov, want);
    EXPECT_EQ(want, 65536u); // small payloads (or none yet): the whole ring
}
