// The controller-to-host side of a queue: one PDU at a time, dispatched by type. C2H data goes
// straight from the socket into the command's buffer; R2Ts are answered with H2CData at once.
#include "skiff/nvmeof/host/tcp_queue.hpp"

#include "skiff/nvmeof/crc32c.hpp"

#include <cstdio>
#include <cstring>

namespace skiff::nvmeof::host {

using namespace wire::tcp;

Result<size_t> TcpQueue::fill_stage() {
    if (rx_head_ > 0) { // keep the unread bytes at the front: the stage is tiny, this is cheap
        std::memmove(rx_stage_, rx_stage_ + rx_head_, staged());
        rx_tail_ -= rx_head_;
        rx_head_ = 0;
    }
    Result<size_t> n = sock_.try_recv(rx_stage_ + rx_tail_, kRxStage - rx_tail_);
    if (n && *n > 0) {
        rx_tail_ += static_cast<uint32_t>(*n);
        ++counters_.rx_reads;
    }
    return n;
}

Status TcpQueue::take(void *dst, size_t len, Deadline deadline) {
    iovec iov{dst, len};
    return take(&iov, 1, deadline, false);
}

Status TcpQueue::take(iovec *iov, int iovcnt, Deadline deadline, bool read_ahead) {
    // Staged bytes first.
    for (; iovcnt > 0 && staged() > 0; ++iov, --iovcnt) {
        const uint32_t n = static_cast<uint32_t>(std::min<size_t>(iov->iov_len, staged()));
        std::memcpy(iov->iov_base, rx_stage_ + rx_head_, n);
        rx_head_ += n;
        if (n < iov->iov_len) {
            iov->iov_base = static_cast<uint8_t *>(iov->iov_base) + n;
            iov->iov_len -= n;
            break;
        }
    }
    if (staged() > 0 || iovcnt == 0) return Status::success();
    rx_head_ = rx_tail_ = 0;
    if (!read_ahead) {
        if (Status st = sock_.recv_exact(iov, iovcnt, deadline); !st) return st;
        ++counters_.rx_reads;
        return Status::success();
    }
    // The rest straight from the socket, with the empty stage appended for what follows.
    constexpr int kMaxIov = 4;
    iovec v[kMaxIov + 1];
    int n = 0;
    for (int i = 0; i < iovcnt && n < kMaxIov; ++i)
        if (iov[i].iov_len > 0) v[n++] = iov[i];
    size_t want = 0;
    for (int i = 0; i < n; ++i) want += v[i].iov_len;
    v[n] = {rx_stage_, kRxStage};
    int first = 0;
    while (want > 0) {
        Result<size_t> got = sock_.try_readv(v + first, n + 1 - first);
        if (!got) return got.error();
        if (*got == 0) {
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
            if (left.count() <= 0)
                return make_error(DOCA_ERROR_TIME_OUT, "receive from " + sock_.peer() + ": no data in time");
            Result<bool> readable = sock_.wait_readable(left);
            if (!readable) return readable.error();
            continue;
        }
        ++counters_.rx_reads;
        size_t left = *got;
        while (first < n && left >= v[first].iov_len) {
            left -= v[first].iov_len;
            want -= v[first].iov_len;
            ++first;
        }
        if (first < n) {
            v[first].iov_base = static_cast<uint8_t *>(v[first].iov_base) + left;
            v[first].iov_len -= left;
            want -= left;
        } else {
            rx_tail_ = static_cast<uint32_t>(left); // read ahead: the start of the next PDU(s)
        }
    }
    return Status::success();
}

namespace {
// No PLEN bound common to all types: a C2HData's PLEN is checked against its command's buffer,
// and of a TermReq only the header is read before the connection is given up.
constexpr uint32_t kMaxPlen = 0xFFFFFFFFu;

std::string hex(uint32_t v) {
    char buf[16];
    std::snprintf(buf, sizeof(buf), "%08x", v);
    return buf;
}
} // namespace

Status TcpQueue::receive_one_pdu(uint8_t *hdr, size_t have) {
    // `have` bytes of the header are in hdr already; complete the 24 bytes every post-ICResp PDU
    // header has, check them, then take the header digest when one follows.
    auto &ch = *reinterpret_cast<CommonHeader *>(hdr);
    const Deadline deadline = pdu_deadline();
    if (have < sizeof(TermReq)) {
        if (Status st = take(hdr + have, sizeof(TermReq) - have, deadline); !st) return fail(st.error());
    }
    if (Status st = check_incoming_header(ch, params_, kMaxPlen); !st)
        return fail(
            make_error(DOCA_ERROR_UNEXPECTED,
                       "protocol error on queue " + std::to_string(config_.qid) + ": " + st.error().message));
    const bool hdgst = ch.type != kC2HTermReq && params_.header_digest;
    if (hdgst) {
        if (Status st = take(hdr + ch.hlen, kDigestLen, deadline); !st) return fail(st.error());
        if (Status st = check_header_digest(hdr, ch.hlen); !st) return st;
    }
    switch (ch.type) {
    case kCapsuleResp:
        return on_capsule_resp(hdr);
    case kC2HData:
        return on_c2h_data(hdr);
    case kR2T:
        return on_r2t(hdr);
    default:
        return on_term_req(hdr);
    }
}

Status TcpQueue::check_header_digest(const uint8_t *hdr, uint8_t hlen) {
    uint32_t got;
    std::memcpy(&got, hdr + hlen, sizeof(got));
    const uint32_t want = header_digest(hdr, hlen);
    if (got == want) return Status::success();
    return fail(make_error(DOCA_ERROR_UNEXPECTED, "header digest mismatch in PDU type " +
                                                      std::to_string(hdr[0]) + " on queue " +
                                                      std::to_string(config_.qid) + ": got 0x" + hex(got) +
                                                      ", computed 0x" + hex(want)));
}

Result<TcpQueue::Slot *> TcpQueue::slot_for(uint16_t cid, const char *pdu_name) {
    if (cid < slots_.size() && slots_[cid].state == SlotState::kInFlight) return &slots_[cid];
    return fail(make_error(DOCA_ERROR_UNEXPECTED,
                           std::string(pdu_name) + " names CID " + std::to_string(cid) +
                               ", which has no command in flight on queue " + std::to_string(config_.qid)))
        .error();
}

void TcpQueue::complete(uint16_t cid, const wire::Cqe &cqe) {
    Slot &slot = slots_[cid];
    slot.cqe = cqe;
    slot.state = SlotState::kDone;
    ++completed_total_;
    if (slot.sync) return;
    done_ring_[(done_head_ + done_count_) % done_ring_.size()] = cid;
    ++done_count_;
}

Status TcpQueue::on_capsule_resp(const uint8_t *hdr) {
    const auto &pdu = *reinterpret_cast<const CapsuleResp *>(hdr);
    Result<Slot *> slot = slot_for(pdu.cqe.cid, "CapsuleResp");
    if (!slot) return slot.error();
    ++counters_.responses;
    complete(pdu.cqe.cid, pdu.cqe);
    return Status::success();
}

Status TcpQueue::on_c2h_data(const uint8_t *hdr) {
    const auto &pdu = *reinterpret_cast<const DataPdu *>(hdr);
    Result<Slot *> found = slot_for(pdu.cccid, "C2HData");
    if (!found) return found.error();
    Slot &slot = **found;
    const uint32_t header_len = pdu.ch.hlen + (params_.header_digest ? kDigestLen : 0u);
    const bool ddgst = pdu.ch.flags & kFlagDdgst;
    const uint64_t expect_plen = uint64_t{pdu.ch.pdo} + pdu.datal + (ddgst ? kDigestLen : 0u);
    if (slot.dir != DataDir::kControllerToHost || uint64_t{pdu.datao} + pdu.datal > slot.len ||
        pdu.ch.plen != expect_plen)
        return fail(make_error(DOCA_ERROR_UNEXPECTED,
                               "C2HData for CID " + std::to_string(pdu.cccid) + " carries bytes " +
                                   std::to_string(pdu.datao) + ".." +
                                   std::to_string(uint64_t{pdu.datao} + pdu.datal) + " (PLEN " +
                                   std::to_string(pdu.ch.plen) + ", PDO " + std::to_string(pdu.ch.pdo) +
                                   ") but the command reads " + std::to_string(slot.len) + " bytes"));
    // Padding, data straight into the command's buffer, data digest: one readv when possible.
    uint8_t *dst = slot.data + pdu.datao;
    uint32_t got = 0;
    iovec iov[3] = {{rx_skip_, pdu.ch.pdo - header_len}, {dst, pdu.datal}, {&got, ddgst ? kDigestLen : 0u}};
    const uint32_t staged_before = staged();
    if (Status st = take(iov, 3, pdu_deadline(), true); !st) return fail(st.error());
    counters_.staged_data_bytes += std::min(staged_before, pdu.datal);
    if (ddgst) {
        const uint32_t want = crc32c(dst, pdu.datal);
        if (got != want)
            return fail(make_error(DOCA_ERROR_UNEXPECTED, "data digest mismatch in C2HData for CID " +
                                                              std::to_string(pdu.cccid) + ": got 0x" +
                                                              hex(got) + ", computed 0x" + hex(want)));
    }
    slot.received += pdu.datal;
    ++counters_.c2h_pdus;
    if (pdu.ch.pdo % ((config_.hpda + 1u) * 4u) != 0) ++counters_.c2h_misaligned;
    // SUCCESS with LAST_PDU stands in for a response capsule with all-zero status and result.
    if ((pdu.ch.flags & kFlagDataSuccess) && (pdu.ch.flags & kFlagDataLast)) {
        wire::Cqe cqe{};
        cqe.cid = pdu.cccid;
        cqe.sq_id = config_.qid;
        ++counters_.c2h_success;
        complete(pdu.cccid, cqe);
    }
    return Status::success();
}

Status TcpQueue::on_r2t(const uint8_t *hdr) {
    const auto &pdu = *reinterpret_cast<const R2T *>(hdr);
    Result<Slot *> found = slot_for(pdu.cccid, "R2T");
    if (!found) return found.error();
    const Slot &slot = **found;
    if (slot.dir != DataDir::kHostToController || pdu.r2tl == 0 || uint64_t{pdu.r2to} + pdu.r2tl > slot.len)
        return fail(
            make_error(DOCA_ERROR_UNEXPECTED, "R2T for CID " + std::to_string(pdu.cccid) +
                                                  " asks for bytes " + std::to_string(pdu.r2to) + ".." +
                                                  std::to_string(uint64_t{pdu.r2to} + pdu.r2tl) +
                                                  " but the command writes " + std::to_string(slot.len)));
    ++counters_.r2ts;
    return send_h2c_data(pdu.cccid, pdu.ttag, pdu.r2to, pdu.r2tl);
}

Status TcpQueue::on_term_req(const uint8_t *hdr) {
    const auto &pdu = *reinterpret_cast<const TermReq *>(hdr);
    return fail(
        make_error(DOCA_ERROR_CONNECTION_ABORTED,
                   "target terminated queue " + std::to_string(config_.qid) + ": " + describe_term_req(pdu)));
}

} // namespace skiff::nvmeof::host
