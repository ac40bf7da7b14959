// The controller-to-host side of a queue: one PDU at a time, dispatched by type. C2H data goes
// straight from the socket into the command's buffer; R2Ts are answered with H2CData at once.
#include "skiff/nvmeof/host/tcp_queue.hpp"

#include "skiff/nvmeof/crc32c.hpp"

#include <cstdio>
#include <cstring>

namespace skiff::nvmeof::host {

using namespace wire::tcp;

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
        if (Status st = sock_.recv_exact(hdr + have, sizeof(TermReq) - have, deadline); !st)
            return fail(st.error());
    }
    if (Status st = check_incoming_header(ch, params_, kMaxPlen); !st)
        return fail(
            make_error(DOCA_ERROR_UNEXPECTED,
                       "protocol error on queue " + std::to_string(config_.qid) + ": " + st.error().message));
    const bool hdgst = ch.type != kC2HTermReq && params_.header_digest;
    if (hdgst) {
        if (Status st = sock_.recv_exact(hdr + ch.hlen, kDigestLen, deadline); !st) return fail(st.error());
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
    if (Status st = sock_.recv_exact(iov, 3, pdu_deadline()); !st) return fail(st.error());
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
