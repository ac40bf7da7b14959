// The controller-to-host side of a queue: one receive brings many PDUs into the ring (RxStream),
// each is dispatched by type. C2H data lands in the command's buffer (copied from the ring, or
// read in place when it has not arrived yet); R2Ts queue H2CData, sent at the end of the poll.
#include "skiff/nvmeof/host/tcp_queue.hpp"

#include "skiff/nvmeof/crc32c.hpp"

#include <cstdio>
#include <cstring>

namespace skiff::nvmeof::host {

using namespace wire::tcp;

Status TcpQueue::receive_pass(bool &more) {
    more = false;
    iovec iov[RxStream::kMaxTargets];
    size_t want = 0;
    const int n = rx_.read_targets(iov, want);
    Result<size_t> got = n == 1 ? sock_.try_recv(iov[0].iov_base, iov[0].iov_len) : sock_.try_readv(iov, n);
    if (!got) return fail(got.error());
    if (*got == 0) {
        ++counters_.rx_empty_reads;
        return Status::success();
    }
    ++counters_.rx_reads;
    rx_.commit(*got);
    more = *got == want;
    for (;;) {
        switch (rx_.next()) {
        case RxStream::Event::kNeedData:
            return Status::success();
        case RxStream::Event::kHeader:
            if (Status st = on_header(rx_.header()); !st) return st;
            break;
        case RxStream::Event::kPayloadDone:
            if (Status st = on_c2h_payload_done(); !st) return st;
            break;
        }
    }
}

Status TcpQueue::take(void *dst, size_t len, Deadline deadline) {
    const size_t staged = rx_.take_staged(dst, len);
    if (staged == len) return Status::success();
    if (Status st = sock_.recv_exact(static_cast<uint8_t *>(dst) + staged, len - staged, deadline); !st)
        return st;
    ++counters_.rx_reads;
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

Status TcpQueue::on_header(const uint8_t *hdr) {
    const auto &ch = *reinterpret_cast<const CommonHeader *>(hdr);
    if (Status st = check_incoming_header(ch, params_, kMaxPlen); !st)
        return fail(
            make_error(DOCA_ERROR_UNEXPECTED,
                       "protocol error on queue " + std::to_string(config_.qid) + ": " + st.error().message));
    if (ch.type != kC2HTermReq && params_.header_digest) {
        if (Status st = check_header_digest(hdr, ch.hlen); !st) return st;
    }
    // A response capsule or an R2T is its header alone (NVMe/TCP has no response data).
    if ((ch.type == kCapsuleResp || ch.type == kR2T) && ch.plen != rx_.header_bytes())
        return fail(make_error(DOCA_ERROR_UNEXPECTED,
                               "protocol error on queue " + std::to_string(config_.qid) + ": PDU type " +
                                   std::to_string(ch.type) + " has PLEN " + std::to_string(ch.plen) +
                                   ", must be " + std::to_string(rx_.header_bytes())));
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
    // Padding, data into the command's buffer, data digest: from the ring, or read in place.
    rx_c2h_ = pdu;
    rx_.expect_payload(pdu.ch.pdo - header_len, slot.data + pdu.datao, pdu.datal, ddgst);
    return Status::success();
}

Status TcpQueue::on_c2h_payload_done() {
    const DataPdu &pdu = rx_c2h_;
    Slot &slot = slots_[pdu.cccid]; // checked in on_c2h_data; nothing completes it meanwhile
    counters_.staged_data_bytes += rx_.payload_copied();
    if (pdu.ch.flags & kFlagDdgst) {
        const uint32_t want = crc32c(slot.data + pdu.datao, pdu.datal);
        if (rx_.payload_digest() != want)
            return fail(make_error(DOCA_ERROR_UNEXPECTED,
                                   "data digest mismatch in C2HData for CID " + std::to_string(pdu.cccid) +
                                       ": got 0x" + hex(rx_.payload_digest()) + ", computed 0x" + hex(want)));
    }
    slot.received += pdu.datal;
    ++counters_.c2h_pdus;
    if (pdu.ch.pdo % ((config_.hpda + 1u) * 4u) != 0) ++counters_.c2h_misaligned;
    if (!(pdu.ch.flags & kFlagDataSuccess)) return Status::success();
    // SUCCESS stands in for a response capsule with all-zero status and result; the
    // specification allows it only on the last PDU of the transfer.
    if (!(pdu.ch.flags & kFlagDataLast))
        return fail(make_error(DOCA_ERROR_UNEXPECTED, "protocol error on queue " +
                                                          std::to_string(config_.qid) + ": C2HData for CID " +
                                                          std::to_string(pdu.cccid) +
                                                          " has SUCCESS without LAST_PDU"));
    wire::Cqe cqe{};
    cqe.cid = pdu.cccid;
    cqe.sq_id = config_.qid;
    ++counters_.c2h_success;
    complete(pdu.cccid, cqe);
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
    return queue_h2c_data(pdu.cccid, pdu.ttag, pdu.r2to, pdu.r2tl); // sent at the end of the poll
}

Status TcpQueue::on_term_req(const uint8_t *hdr) {
    const auto &pdu = *reinterpret_cast<const TermReq *>(hdr);
    return fail(
        make_error(DOCA_ERROR_CONNECTION_ABORTED,
                   "target terminated queue " + std::to_string(config_.qid) + ": " + describe_term_req(pdu)));
}

} // namespace skiff::nvmeof::host
