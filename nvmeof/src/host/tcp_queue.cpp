// Queue set-up, submission and the host-to-controller data path (capsules, H2CData).
#include "skiff/nvmeof/host/tcp_queue.hpp"

#include "skiff/core/log.hpp"
#include "skiff/nvmeof/crc32c.hpp"

#include <cstring>

namespace skiff::nvmeof::host {

using namespace wire::tcp;

namespace {
// Admin and fabrics commands: every controller accepts this much in-capsule data.
constexpr uint32_t kAdminInCapsule = 8192;
} // namespace

TcpQueue::TcpQueue(const QueueConfig &config) : config_(config) {
    const uint32_t n = config.queue_size > 1 ? config.queue_size - 1u : 1u;
    slots_.resize(n);
    free_cids_.resize(n);
    done_ring_.resize(n);
    for (uint32_t i = 0; i < n; ++i) free_cids_[i] = static_cast<uint16_t>(n - 1 - i); // pops 0 first
    free_count_ = n;
    in_capsule_limit_ = config.qid == 0 ? kAdminInCapsule : 0;
}

TcpQueue::~TcpQueue() {
    close();
}

Result<std::unique_ptr<TcpQueue>> TcpQueue::connect(const QueueConfig &config) {
    if (config.queue_size < 2)
        return make_error(DOCA_ERROR_INVALID_VALUE,
                          "queue size " + std::to_string(config.queue_size) + " is too small, must be >= 2");
    if (config.hpda > 31)
        return make_error(DOCA_ERROR_INVALID_VALUE, "HPDA " + std::to_string(config.hpda) + " must be 0..31");
    std::unique_ptr<TcpQueue> q(new TcpQueue(config));
    Result<TcpSocket> sock = TcpSocket::connect(config.addr, config.port, config.timeout);
    if (!sock) return sock.error();
    q->sock_ = std::move(sock.value());
    if (config.tls)
        if (Status st = q->sock_.start_tls(*config.tls, deadline_after(config.timeout)); !st)
            return st.error();
    if (Status st = q->handshake(); !st) return st.error();
    return q;
}

Status TcpQueue::handshake() {
    IcReq req = make_ic_req(config_.header_digest, config_.data_digest, config_.hpda, config_.maxr2t);
    const Deadline deadline = pdu_deadline();
    if (Status st = sock_.send_all(&req, sizeof(req), deadline); !st) return st;

    // The controller answers with an ICResp, or a C2HTermReq when it rejects the ICReq.
    IcResp resp{};
    if (Status st = sock_.recv_exact(&resp.ch, sizeof(resp.ch), deadline); !st) return st;
    if (resp.ch.type == kC2HTermReq && resp.ch.plen >= sizeof(TermReq) && resp.ch.plen <= 1024) {
        TermReq term{};
        term.ch = resp.ch;
        if (Status st = sock_.recv_exact(&term.fes, sizeof(term) - sizeof(term.ch), deadline); !st) return st;
        return make_error(DOCA_ERROR_CONNECTION_ABORTED,
                          "target rejected the ICReq on " + sock_.peer() + ": " + describe_term_req(term));
    }
    if (resp.ch.type != kIcResp || resp.ch.plen != sizeof(IcResp)) {
        Result<TcpParams> bad = parse_ic_resp(resp, false, false); // names the wrong field
        return bad.error();
    }
    if (Status st = sock_.recv_exact(&resp.pfv, sizeof(resp) - sizeof(resp.ch), deadline); !st) return st;
    Result<TcpParams> params = parse_ic_resp(resp, config_.header_digest, config_.data_digest);
    if (!params) return params.error();
    params_ = *params;
    rx_.set_header_digest(params_.header_digest);
    skiff::log::get("host")->debug("queue {} to {}: hdgst {} ddgst {} cpda align {} maxh2cdata {}",
                                   config_.qid, sock_.peer(), params_.header_digest, params_.data_digest,
                                   params_.cpda_align, params_.maxh2cdata);
    return Status::success();
}

void TcpQueue::close() {
    sock_.close();
}

Status TcpQueue::fail(Error error) {
    if (!failed_) {
        failed_ = true;
        failure_ = std::move(error);
        skiff::log::get("host")->warn("queue {}: {}", config_.qid, failure_.message);
        sock_.close();
    }
    return failure_;
}

Status TcpQueue::flush() {
    if (failed_) return failure_;
    if (tx_.empty()) return Status::success();
    ++counters_.tx_sends;
    if (Status st = tx_.send(sock_, pdu_deadline()); !st) return fail(st.error());
    return Status::success();
}

Status TcpQueue::make_room(uint32_t bytes, int iovs) {
    if (tx_.fits(bytes, iovs)) return Status::success();
    return flush();
}

void TcpQueue::queue_data(const uint8_t *data, uint32_t len, const PduFrame &frame) {
    if (len == 0) return;
    tx_.add(data, len);
    if (params_.data_digest) {
        const uint32_t d = crc32c(data, len);
        uint8_t *p = tx_.alloc(kDigestLen);
        std::memcpy(p, &d, sizeof(d));
        tx_.add(p, kDigestLen);
    }
}

Result<uint16_t> TcpQueue::submit(const wire::Sqe &sqe, DataDir dir, void *data, uint32_t len, uint64_t tag,
                                  bool more) {
    if (failed_) return failure_;
    if (free_count_ == 0)
        return make_error(DOCA_ERROR_FULL, "queue " + std::to_string(config_.qid) + " has all " +
                                               std::to_string(capacity()) + " command slots in flight");
    if ((dir == DataDir::kNone) != (len == 0) || (len > 0 && data == nullptr))
        return make_error(DOCA_ERROR_INVALID_VALUE,
                          "a command with data needs a direction, a buffer and a length > 0; one without "
                          "data needs none of them");
    const bool in_capsule = dir == DataDir::kHostToController && len <= in_capsule_limit_;
    const uint32_t icd = in_capsule ? len : 0;
    const PduFrame frame = frame_pdu(sizeof(CapsuleCmd), icd, params_);
    // Header, padding and data digest in the arena; header + pad, data, digest as iovecs.
    if (Status st = make_room(frame.header_len + frame.pad + kDigestLen, 3); !st) return st.error();

    const uint16_t cid = free_cids_[--free_count_];
    Slot &slot = slots_[cid];
    slot = Slot{SlotState::kInFlight, false, dir, static_cast<uint8_t *>(data), len, 0, tag, {}};

    uint8_t *hdr = tx_.alloc(frame.header_len + frame.pad);
    auto *pdu = reinterpret_cast<CapsuleCmd *>(hdr);
    pdu->sqe = sqe;
    pdu->sqe.cid = cid;
    pdu->sqe.flags = static_cast<uint8_t>((sqe.flags & ~wire::kPsdtMask) | wire::kPsdtSgl);
    pdu->sqe.dptr = {};
    pdu->sqe.dptr.length = len;
    pdu->sqe.dptr.id = in_capsule && len > 0 ? wire::kSglIdInCapsule : wire::kSglIdTcpTransport;
    fill_common_header(pdu->ch, kCapsuleCmd, sizeof(CapsuleCmd), frame);
    if (params_.header_digest) {
        const uint32_t d = header_digest(hdr, sizeof(CapsuleCmd));
        std::memcpy(hdr + sizeof(CapsuleCmd), &d, sizeof(d));
    }
    tx_.add(hdr, frame.header_len + frame.pad);
    queue_data(slot.data, icd, frame);
    ++counters_.commands;
    if (icd > 0) ++counters_.in_capsule_writes;
    if (!more) {
        if (Status st = flush(); !st) return st.error();
    }
    return cid;
}

Status TcpQueue::queue_h2c_data(uint16_t cid, uint16_t ttag, uint32_t offset, uint32_t length) {
    const Slot &slot = slots_[cid];
    const uint32_t end = offset + length;
    for (uint32_t off = offset; off < end;) {
        const uint32_t chunk = std::min(end - off, params_.maxh2cdata);
        const PduFrame frame = frame_pdu(sizeof(DataPdu), chunk, params_);
        if (Status st = make_room(frame.header_len + frame.pad + kDigestLen, 3); !st) return st;
        uint8_t *hdr = tx_.alloc(frame.header_len + frame.pad);
        auto *pdu = reinterpret_cast<DataPdu *>(hdr);
        fill_common_header(pdu->ch, kH2CData, sizeof(DataPdu), frame);
        if (off + chunk == end) pdu->ch.flags |= kFlagDataLast;
        pdu->cccid = cid;
        pdu->ttag = ttag;
        pdu->datao = off;
        pdu->datal = chunk;
        if (params_.header_digest) {
            const uint32_t d = header_digest(hdr, sizeof(DataPdu));
            std::memcpy(hdr + sizeof(DataPdu), &d, sizeof(d));
        }
        tx_.add(hdr, frame.header_len + frame.pad);
        queue_data(slot.data + off, chunk, frame);
        ++counters_.h2c_pdus;
        off += chunk;
    }
    return Status::success();
}

Result<uint32_t> TcpQueue::poll(std::chrono::milliseconds timeout) {
    if (failed_) return failure_;
    if (!tx_.empty()) {
        if (Status st = flush(); !st) return st.error();
    }
    const uint64_t before = completed_total_;
    const bool wait = timeout.count() > 0;
    const Deadline deadline = wait ? deadline_after(timeout) : Deadline{};
    for (;;) {
        bool more = false;
        if (Status st = receive_pass(more); !st) return st.error();
        if (!tx_.empty()) { // H2CData answering the R2Ts just read
            if (Status st = flush(); !st) return st.error();
        }
        const bool completed = completed_total_ > before;
        if (more && !completed) continue; // the ring filled up: read on before returning empty
        if (completed || !wait) break;
        // An R2T or a C2HData alone completes nothing: wait for the rest.
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
        if (left.count() <= 0) break;
        Result<bool> readable = sock_.wait_readable(left);
        if (!readable) return fail(readable.error()).error();
        if (!*readable) break;
    }
    return static_cast<uint32_t>(completed_total_ - before);
}
bool TcpQueue::pop_completion(Completion &out) {
    if (done_count_ == 0) return false;
    const uint16_t cid = done_ring_[done_head_];
    done_head_ = (done_head_ + 1) % static_cast<uint32_t>(done_ring_.size());
    --done_count_;
    Slot &slot = slots_[cid];
    out.cid = cid;
    out.tag = slot.tag;
    out.cqe = slot.cqe;
    slot.state = SlotState::kFree;
    free_cids_[free_count_++] = cid;
    return true;
}

Result<Completion> TcpQueue::execute(const wire::Sqe &sqe, DataDir dir, void *data, uint32_t len,
                                     std::chrono::milliseconds timeout) {
    Result<uint16_t> cid = submit(sqe, dir, data, len);
    if (!cid) return cid.error();
    Slot &slot = slots_[*cid];
    slot.sync = true;
    const Deadline deadline = deadline_after(timeout);
    while (slot.state != SlotState::kDone) {
        if (failed_) return failure_;
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
        if (left.count() <= 0) {
            // The controller may still answer into the caller's buffer, which is about to go
            // away: like the Linux host on a command timeout, give up on the whole connection.
            return fail(make_error(DOCA_ERROR_TIME_OUT,
                                   "command opcode " + std::to_string(sqe.opcode) + " on queue " +
                                       std::to_string(config_.qid) + " got no answer within " +
                                       std::to_string(timeout.count()) + " ms; the queue is closed"))
                .error();
        }
        Result<uint32_t> r = poll(left);
        if (!r) return r.error();
    }
    Completion c{*cid, slot.tag, slot.cqe};
    slot.state = SlotState::kFree;
    free_cids_[free_count_++] = *cid;
    return c;
}

Status TcpQueue::send_raw(const void *data, size_t len) {
    return sock_.send_all(data, len, pdu_deadline());
}

Result<std::vector<uint8_t>> TcpQueue::recv_raw_pdu(std::chrono::milliseconds timeout) {
    const Deadline deadline = deadline_after(timeout);
    CommonHeader ch{};
    if (Status st = take(&ch, sizeof(ch), deadline); !st) return st.error();
    constexpr uint32_t kMaxRawPdu = 1u << 24;
    if (ch.plen < sizeof(ch) || ch.plen > kMaxRawPdu)
        return make_error(DOCA_ERROR_UNEXPECTED, "PDU type " + std::to_string(ch.type) + " has PLEN " +
                                                     std::to_string(ch.plen) + ", must be 8.." +
                                                     std::to_string(kMaxRawPdu));
    std::vector<uint8_t> pdu(ch.plen);
    std::memcpy(pdu.data(), &ch, sizeof(ch));
    if (Status st = take(pdu.data() + sizeof(ch), ch.plen - sizeof(ch), deadline); !st) return st.error();
    return pdu;
}

} // namespace skiff::nvmeof::host
