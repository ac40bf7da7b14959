#include "tcp_queue_pair.hpp"

#include "slot_redzones.hpp"
#include "skiff/core/log.hpp"
#include "skiff/nvmeof/crc32c.hpp"
#include "skiff/nvmeof/transport/buffer_areas.hpp"
#include "skiff/nvmeof/wire/data_direction.hpp"

#include <nvme/types.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>
#include <utility>

namespace skiff::nvmeof::tcp {

using namespace wire::tcp;
using target::DataDir;

namespace {

constexpr uint8_t kZeroPad[128] = {};
constexpr uint8_t kTransientTransportError = 0x22;

uint32_t load_digest(const uint8_t *p) {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
}

} // namespace

const char *to_string(TcpRequestState state) {
    switch (state) {
    case TcpRequestState::kFree:
        return "free";
    case TcpRequestState::kReceivingInCapsule:
        return "receiving-in-capsule-data";
    case TcpRequestState::kWaitingH2C:
        return "waiting-h2c-data";
    case TcpRequestState::kReceivingH2C:
        return "receiving-h2c-data";
    case TcpRequestState::kExecuting:
        return "executing";
    case TcpRequestState::kSending:
        return "sending";
    }
    return "?";
}

TcpQueuePair::TcpQueuePair(int fd, std::string peer, target::Target &target, target::Port port)
    : fd_(fd), peer_(std::move(peer)), target_(target), queue_(target, std::move(port), *this),
      limits_(target.limits()), stall_(limits_.stall_timeout_ms), sendq_(kPreQueueSendItems) {
    if (queue_.port().secure_channel != target::SecureChannel::kNone) channel_ = Channel::kDetect;
    next_pdu();
}

// The queue's memory, once the peer has shown it speaks NVMe/TCP (a valid ICReq): request slots,
// their data buffers in one lazily backed mapping (untouched slots cost nothing), the staging
// buffer and the send ring sized for a full queue. Before this, reads go straight into the
// header buffer and the small send ring holds at most the ICResp or a C2HTermReq.
bool TcpQueuePair::allocate_queue() {
    // The connection becomes an admin or an I/O queue at Connect: slots for the deeper of the two.
    reqs_ = std::vector<TcpRequest>(std::max(limits_.max_queue_depth, limits_.max_admin_queue_depth));
    const size_t stride = limits_.max_transfer + slot_redzones::kGap;
    buffers_len_ = static_cast<size_t>(reqs_.size()) * stride;
    void *p = mmap(nullptr, buffers_len_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    if (p == MAP_FAILED) {
        log_->error("{}: cannot map {} bytes of request buffers: {}", peer_, buffers_len_,
                    std::strerror(errno));
        reqs_.clear();
        return false;
    }
    buffers_ = static_cast<uint8_t *>(p);
    staging_.reset(new uint8_t[kStagingBytes]); // not zeroed: only bytes read into it are used
    sendq_ = SendQueue(reqs_.size() * 3u + 8);
    transport::buffer_areas::add(buffers_, buffers_len_); // DMA backends may target these slots
    free_.reserve(reqs_.size());
    for (size_t i = reqs_.size(); i-- > 0;) {
        reqs_[i].ttag = static_cast<uint16_t>(i);
        reqs_[i].buf = reqs_[i].slot_buf = buffers_ + i * stride;
        reqs_[i].buf_cap = reqs_[i].slot_cap = limits_.max_transfer;
        slot_redzones::poison(reqs_[i].buf + limits_.max_transfer);
        free_.push_back(static_cast<uint16_t>(i));
    }
    return true;
}

TcpQueuePair::~TcpQueuePair() {
    finish("connection destroyed");
    for (auto &req : reqs_) queue_.release(req); // requests that never completed

    ::close(fd_);
    if (buffers_) {
        transport::buffer_areas::remove(buffers_);
        for (auto &req : reqs_) slot_redzones::unpoison(req.slot_buf + req.slot_cap);
        munmap(buffers_, buffers_len_);
    }
}

// ---------------------------------------------------------------------------------------------
// Receiving

void TcpQueuePair::expect(RecvState state, uint8_t *dst, uint32_t len) {
    rx_state_ = state;
    rx_ptr_ = dst;
    rx_left_ = len;
}

void TcpQueuePair::on_readable() {
    if (channel_ != Channel::kReady && !establish()) return;
    rx_drained_ = false;
    // Bounded work per call so one busy connection cannot starve the others in the group.
    for (int budget = 512; budget > 0 && rx_state_ != RecvState::kStopped && !finished_; --budget) {
        if (rx_left_ == 0) {
            step();
            continue;
        }
        if (!receive()) break;
        if (rx_left_ == 0) step();
    }
    flush();
}

// Feeds the current stage: from the staging buffer when it holds bytes, else with one read
// that also brings what follows into the staging buffer (so one system call serves many PDUs).
// Returns false once the socket is drained (a short read, EAGAIN) or the connection ended.
bool TcpQueuePair::receive() {
    if (staged_pos_ < staged_end_) {
        uint32_t n = std::min(rx_left_, staged_end_ - staged_pos_);
        std::memcpy(rx_ptr_, staging_.get() + staged_pos_, n);
        staged_pos_ += n;
        rx_ptr_ += n;
        rx_left_ -= n;
        return true;
    }
    if (rx_drained_) return false;
    // Before ICReq there is no staging buffer (allocate_queue): read exactly the stage's bytes.
    if (!staging_) return receive_exact();
    // Headers are small: read them through the staging buffer with a plain recv (cheaper than
    // recvmsg, which matters most for the empty reads of a busy-polling group). A payload is
    // read in place, the staging buffer taking what follows it.
    bool in_place = rx_state_ == RecvState::kData;
    iovec iov[2] = {{rx_ptr_, in_place ? rx_left_ : 0}, {staging_.get(), kStagingBytes}};
    ssize_t n = in_place ? read_socket(iov, 2) : read_socket(&iov[1], 1);
    if (n == 0) {
        finish("peer closed the connection");
        return false;
    }
    if (n < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return false;
        if (tls_ && errno == EIO)
            log_->warn("{}: {}", peer_, tls_->error());
        else
            log_->info("{}: receive failed: {}", peer_, std::strerror(errno));
        finish("receive error");
        return false;
    }
    size_t got = static_cast<size_t>(n);
    rx_got_ = true;
    ++rx_reads_;
    uint32_t direct = static_cast<uint32_t>(std::min<size_t>(got, iov[0].iov_len));
    rx_ptr_ += direct;
    rx_left_ -= direct;
    staged_pos_ = 0;
    staged_end_ = static_cast<uint32_t>(got - direct);
    // A read that did not fill both parts emptied the socket: parse what came, but do not ask
    // again in this call (the poll group comes back when more arrives).
    rx_drained_ = got < iov[0].iov_len + iov[1].iov_len;
    return true;
}

bool TcpQueuePair::receive_exact() {
    iovec iov{rx_ptr_, rx_left_};
    ssize_t n = read_socket(&iov, 1);
    if (n == 0) {
        finish("peer closed the connection");
        return false;
    }
    if (n < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return false;
        if (tls_ && errno == EIO)
            log_->warn("{}: {}", peer_, tls_->error());
        else
            log_->info("{}: receive failed: {}", peer_, std::strerror(errno));
        finish("receive error");
        return false;
    }
    rx_got_ = true;
    ++rx_reads_;
    rx_ptr_ += n;
    rx_left_ -= static_cast<uint32_t>(n);
    rx_drained_ = rx_left_ != 0; // a short read emptied the socket
    return true;
}

void TcpQueuePair::step() {
    switch (rx_state_) {
    case RecvState::kCommonHeader:
        on_common_header();
        break;
    case RecvState::kPduHeader:
        on_pdu_header();
        break;
    case RecvState::kPad:
        expect(RecvState::kData, rx_data_, rx_data_len_);
        break;
    case RecvState::kData:
        if (ddgst_)
            expect(RecvState::kDataDigest, reinterpret_cast<uint8_t *>(&rx_ddgst_), kDigestLen);
        else
            on_data_done();
        break;
    case RecvState::kDataDigest:
        if (crc32c(rx_data_, rx_data_len_) != rx_ddgst_) {
            log_->warn("{}: data digest mismatch on command {}", peer_, uint16_t(rx_req_->cmd.cid));
            rx_req_->digest_error = true;
        }
        on_data_done();
        break;
    case RecvState::kStopped:
        break;
    }
}

// Validates the 8-byte common header against the PDU type and the negotiated digests.
void TcpQueuePair::on_common_header() {
    const auto &ch = *reinterpret_cast<const CommonHeader *>(rx_hdr_);
    constexpr uint32_t kFeiFlags = offsetof(CommonHeader, flags), kFeiHlen = offsetof(CommonHeader, hlen),
                       kFeiPdo = offsetof(CommonHeader, pdo), kFeiPlen = offsetof(CommonHeader, plen);
    bool host_type =
        ch.type == kIcReq || ch.type == kH2CTermReq || ch.type == kCapsuleCmd || ch.type == kH2CData;
    if (!host_type)
        return fatal(kFesInvalidHeaderField, offsetof(CommonHeader, type), "PDU type a host may not send");
    if (!ic_done_ && ch.type != kIcReq) return fatal(kFesPduSequenceError, 0, "first PDU is not ICReq");
    if (ic_done_ && ch.type == kIcReq) return fatal(kFesPduSequenceError, 0, "second ICReq");
    if (ch.hlen != expected_hlen(ch.type))
        return fatal(kFesInvalidHeaderField, kFeiHlen, "HLEN does not match the PDU type");

    rx_header_len_ = ch.hlen;
    rx_pad_len_ = rx_data_len_ = 0;
    if (ch.type == kIcReq) {
        if (ch.plen != sizeof(IcReq)) return fatal(kFesInvalidHeaderField, kFeiPlen, "ICReq PLEN is not 128");
    } else if (ch.type == kH2CTermReq) {
        if (ch.plen < sizeof(TermReq) || ch.plen > sizeof(TermReq) + kTermReqMaxData)
            return fatal(kFesInvalidHeaderField, kFeiPlen, "H2CTermReq PLEN out of range");
    } else {
        if (bool(ch.flags & kFlagHdgst) != hdgst_)
            return fatal(kFesInvalidHeaderField, kFeiFlags,
                         "HDGSTF does not match the negotiated header digest");
        if (hdgst_) rx_header_len_ += kDigestLen;
        if (ch.plen < rx_header_len_)
            return fatal(kFesInvalidHeaderField, kFeiPlen, "PLEN shorter than the header");
        if (ch.plen > rx_header_len_) {
            uint32_t dd = ddgst_ ? kDigestLen : 0;
            if (bool(ch.flags & kFlagDdgst) != ddgst_)
                return fatal(kFesInvalidHeaderField, kFeiFlags,
                             "DDGSTF does not match the negotiated data digest");
            if (ch.pdo < rx_header_len_ || ch.pdo - rx_header_len_ > sizeof(rx_pad_))
                return fatal(kFesInvalidHeaderField, kFeiPdo, "PDO outside the PDU");
            if (ch.plen < ch.pdo + dd)
                return fatal(kFesInvalidHeaderField, kFeiPlen, "PLEN shorter than PDO");
            rx_pad_len_ = ch.pdo - rx_header_len_;
            rx_data_len_ = ch.plen - ch.pdo - dd;
            uint32_t limit = ch.type == kCapsuleCmd ? in_capsule_limit() : limits_.max_transfer;
            if (rx_data_len_ > limit)
                return fatal(kFesDataLimitExceeded, kFeiPlen,
                             "PDU data exceeds the in-capsule or MAXH2CDATA limit");
        }
    }
    uint32_t rest = (ch.type == kH2CTermReq ? ch.plen : rx_header_len_) - sizeof(CommonHeader);
    expect(RecvState::kPduHeader, rx_hdr_ + sizeof(CommonHeader), rest);
    if (rest == 0) step();
}

void TcpQueuePair::on_pdu_header() {
    const auto &ch = *reinterpret_cast<const CommonHeader *>(rx_hdr_);
    if (ch.type != kIcReq && ch.type != kH2CTermReq && hdgst_) {
        if (crc32c(rx_hdr_, ch.hlen) != load_digest(rx_hdr_ + ch.hlen))
            return fatal(kFesHeaderDigestError, 0, "header digest mismatch");
    }
    switch (ch.type) {
    case kIcReq:
        return handle_icreq();
    case kCapsuleCmd:
        return handle_capsule();
    case kH2CData:
        return handle_h2c_data();
    case kH2CTermReq: {
        const auto &term = *reinterpret_cast<const TermReq *>(rx_hdr_);
        // Copies: FEI sits at byte 10 of the PDU (unaligned), and the logger takes its arguments by
        // reference.
        uint16_t fes = term.fes;
        uint32_t fei = term.fei;
        log_->warn("{}: host terminated the connection (H2CTermReq FES {:#x}, FEI {})", peer_, fes, fei);
        rx_state_ = RecvState::kStopped;
        return finish("host sent H2CTermReq");
    }
    }
}

// Reads `len` payload bytes (after the PDU's pad) into dst for req.
void TcpQueuePair::expect_payload(TcpRequest *req, uint8_t *dst, uint32_t len) {
    rx_req_ = req;
    rx_data_ = dst;
    rx_data_len_ = len;
    expect(RecvState::kPad, rx_pad_, rx_pad_len_);
    if (rx_pad_len_ == 0) step();
}

void TcpQueuePair::on_data_done() {
    TcpRequest &req = *rx_req_;
    rx_req_ = nullptr;
    next_pdu();
    if (req.state == TcpRequestState::kReceivingInCapsule) return after_host_data(req);
    // H2CData payload.
    req.h2c_received += rx_data_len_;
    if (req.h2c_received < req.data_len) return set_state(req, TcpRequestState::kWaitingH2C);
    after_host_data(req);
}

// ---------------------------------------------------------------------------------------------
// PDU handlers

void TcpQueuePair::handle_icreq() {
    const auto &ic = *reinterpret_cast<const IcReq *>(rx_hdr_);
    if (ic.pfv != 0)
        return fatal(kFesUnsupportedParameter, offsetof(IcReq, pfv), "unsupported PDU format version");
    if (ic.hpda > 31) return fatal(kFesInvalidHeaderField, offsetof(IcReq, hpda), "HPDA above 31");
    if (!allocate_queue()) return finish("cannot allocate the queue");
    hdgst_ = ic.dgst & kDgstHeader;
    ddgst_ = ic.dgst & kDgstData;
    c2h_align_ = (ic.hpda + 1u) * 4u;
    ic_done_ = true;

    IcResp resp{};
    resp.ch = {kIcResp, 0, sizeof(IcResp), 0, sizeof(IcResp)};
    resp.pfv = 0;
    resp.cpda = 0; // any data offset is fine for us
    resp.dgst = ic.dgst & (kDgstHeader | kDgstData);
    resp.maxh2cdata = limits_.max_transfer;
    send_control(&resp, sizeof(resp));
    log_->debug("{}: ICReq: hpda {} digests hd={} dd={} maxr2t {}", peer_, ic.hpda, hdgst_, ddgst_,
                ic.maxr2t + 1);
    next_pdu();
}

// NVMe/TCP gives the admin queue 8 KiB of in-capsule data whatever IOCCSZ says (a Linux host
// sends its admin Connect's 1 KiB in the capsule); I/O queues get IOCCSZ. Before Connect the
// queue may become either, so the admin size applies. Never more than a request buffer holds.
uint32_t TcpQueuePair::in_capsule_limit() const {
    if (queue_.connected() && queue_.qid() != 0) return target::in_capsule_limit(limits_);
    return std::min(std::max(limits_.in_capsule_data, kAdminInCapsuleData), limits_.max_transfer);
}

// Transport-level SGL checks: in-capsule (data block, offset) or transport data block.
uint16_t TcpQueuePair::check_sgl(TcpRequest &req, uint32_t in_capsule_len) {
    using wire::Status;
    const wire::SglDescriptor &sgl = req.cmd.dptr;
    if ((req.cmd.flags & wire::kPsdtMask) != wire::kPsdtSgl)
        return Status::make(NVME_SCT_GENERIC, NVME_SC_INVALID_FIELD, true);
    if (sgl.id == wire::kSglIdInCapsule) {
        if (sgl.addr != 0) return Status::make(NVME_SCT_GENERIC, NVME_SC_SGL_INVALID_OFFSET, true);
        if (sgl.length != in_capsule_len)
            return Status::make(NVME_SCT_GENERIC, NVME_SC_SGL_INVALID_DATA, true);
        // Data sent to the host never sits in the capsule (as nvmet answers it: Invalid Field).
        if (sgl.length != 0 && !wire::moves_data_to_controller(req.cmd))
            return Status::make(NVME_SCT_GENERIC, NVME_SC_INVALID_FIELD, true);
    } else if (sgl.id == wire::kSglIdTcpTransport) {
        if (in_capsule_len != 0 || sgl.length > limits_.max_transfer)
            return Status::make(NVME_SCT_GENERIC, NVME_SC_SGL_INVALID_DATA, true);
    } else {
        return Status::make(NVME_SCT_GENERIC, NVME_SC_SGL_INVALID_TYPE, true);
    }
    req.data_len = sgl.length;
    return 0;
}

void TcpQueuePair::handle_capsule() {
    TcpRequest *req = alloc_request();
    if (!req) return fatal(kFesPduSequenceError, 0, "more commands outstanding than the queue depth");
    uint32_t in_capsule = rx_data_len_;
    // The data lands in the request's buffer: never more than it holds, whatever the limits say.
    if (in_capsule > req->buf_cap) {
        free_request(*req);
        return fatal(kFesDataLimitExceeded, offsetof(CommonHeader, plen),
                     "in-capsule data larger than the request buffer");
    }
    std::memcpy(&req->cmd, rx_hdr_ + sizeof(CommonHeader), sizeof(wire::Sqe));
    uint16_t sgl_status = check_sgl(*req, in_capsule);
    if (sgl_status) {
        queue_.fail_before_prepare(*req, sgl_status);
        req->prepared = false;
    } else {
        req->prepared = queue_.prepare(*req);
    }
    if (in_capsule) {
        set_state(*req, TcpRequestState::kReceivingInCapsule);
        return expect_payload(req, req->buf, in_capsule);
    }
    next_pdu();
    after_host_data(*req);
}

void TcpQueuePair::handle_h2c_data() {
    const auto &h2c = *reinterpret_cast<const DataPdu *>(rx_hdr_);
    if (h2c.ttag >= reqs_.size() || reqs_[h2c.ttag].state != TcpRequestState::kWaitingH2C)
        return fatal(kFesInvalidHeaderField, offsetof(DataPdu, ttag), "H2CData for an unknown transfer tag");
    TcpRequest &req = reqs_[h2c.ttag];
    if (h2c.cccid != req.cmd.cid)
        return fatal(kFesInvalidHeaderField, offsetof(DataPdu, cccid), "H2CData CCCID mismatch");
    if (h2c.datal != rx_data_len_)
        return fatal(kFesInvalidHeaderField, offsetof(DataPdu, datal), "H2CData DATAL does not match PLEN");
    if (h2c.datao != req.h2c_received || h2c.datao + uint64_t(h2c.datal) > req.data_len)
        return fatal(kFesDataOutOfRange, offsetof(DataPdu, datao), "H2CData outside the requested range");
    set_state(req, TcpRequestState::kReceivingH2C);
    expect_payload(&req, req.buf + h2c.datao, h2c.datal);
}

// ---------------------------------------------------------------------------------------------
// Request transitions

TcpRequest *TcpQueuePair::alloc_request() {
    if (free_.empty()) return nullptr;
    TcpRequest &req = reqs_[free_.back()];
    free_.pop_back();
    req.reset();
    req.prepared = false;
    req.digest_error = false;
    req.h2c_received = 0;
    return &req;
}

void TcpQueuePair::free_request(TcpRequest &req) {
    set_state(req, TcpRequestState::kFree);
    free_.push_back(req.ttag);
}

void TcpQueuePair::set_state(TcpRequest &req, TcpRequestState state) {
    if (log_->should_log(spdlog::level::trace))
        log_->trace("{}: cid {} {} -> {}", peer_, uint16_t(req.cmd.cid), to_string(req.state),
                    to_string(state));
    req.state = state;
}

void TcpQueuePair::after_host_data(TcpRequest &req) {
    if (!req.prepared) return queue_.complete(req);
    if (req.digest_error) {
        req.fail(NVME_SCT_GENERIC, kTransientTransportError, false);
        return queue_.complete(req);
    }
    if (req.dir == DataDir::kHostToCtrl && req.h2c_received < req.data_len &&
        req.cmd.dptr.id == wire::kSglIdTcpTransport)
        return send_r2t(req);
    set_state(req, TcpRequestState::kExecuting);
    queue_.execute(req);
}

void TcpQueuePair::put_header_digest(uint8_t *pdu, uint32_t hlen) const {
    if (!hdgst_) return;
    uint32_t d = crc32c(pdu, hlen);
    std::memcpy(pdu + hlen, &d, 4);
}

void TcpQueuePair::send_r2t(TcpRequest &req) {
    set_state(req, TcpRequestState::kWaitingH2C);
    auto &r2t = *reinterpret_cast<R2T *>(req.r2t_pdu);
    uint8_t hd = hdgst_ ? kDigestLen : 0;
    r2t = {};
    r2t.ch = {kR2T, static_cast<uint8_t>(hdgst_ ? kFlagHdgst : 0), sizeof(R2T), 0,
              uint32_t(sizeof(R2T) + hd)};
    r2t.cccid = req.cmd.cid;
    r2t.ttag = req.ttag;
    r2t.r2to = 0;
    r2t.r2tl = req.data_len; // one R2T covers the command: data_len <= MAXH2CDATA
    put_header_digest(req.r2t_pdu, sizeof(R2T));
    SendItem *it = sendq_.reserve();
    it->iov[0] = {req.r2t_pdu, sizeof(R2T) + hd};
    it->iovcnt = 1;
    it->kind = SendItem::kR2T;
    it->req = &req;
    sendq_.commit();
}

void TcpQueuePair::queue_response(target::Request &r) {
    auto &req = static_cast<TcpRequest &>(r);
    // A read's data left in the device's memory (valid until we return unless we hold it).
    const uint8_t *view = std::exchange(req.io.view, nullptr);
    target::IoChannel *view_channel = std::exchange(req.io.view_channel, nullptr);
    // A backend I/O that completes after the connection ended: nobody to answer.
    if (finished_) return free_request(req);
    set_state(req, TcpRequestState::kSending);
    responses_queued_ = true; // sent by the next flush (asynchronous completions: progress())
    bool data = req.dir == DataDir::kCtrlToHost && !req.failed() && req.data_len > 0;
    // The SUCCESS optimisation: the C2HData PDU alone completes the command.
    bool success_flag = data && queue_.sq_flow_control_disabled() && req.cqe.result == 0;
    if (data && view) hold_view(req, view_channel, view);
    if (data) send_c2h_data(req, success_flag, view ? view : req.buf);
    if (!success_flag) send_response(req);
}

// ---------------------------------------------------------------------------------------------
// Reads sent from a RAM namespace's memory (target::HeldView): held from the response until the
// C2HData item is on the wire (flush), copied into the slot's buffer if a write on this poll group
// is about to change those bytes first (materialize_view), let go when the connection ends.

void TcpQueuePair::hold_view(TcpRequest &req, target::IoChannel *channel, const uint8_t *bytes) {
    target::HeldView &v = req.view;
    v.bytes = bytes;
    v.offset = req.io.offset;
    v.len = req.data_len;
    v.materialize = materialize_view;
    v.owner = &req;
    channel->hold_view(v);
}

void TcpQueuePair::materialize_view(target::HeldView &v) {
    auto &req = *static_cast<TcpRequest *>(v.owner);
    std::memcpy(req.buf, v.bytes, v.len);
    // Same offsets in the item: a partly sent item resumes where it stopped.
    SendItem &it = *req.data_item;
    for (int k = 0; k < it.iovcnt; ++k)
        if (it.iov[k].iov_base == v.bytes) it.iov[k].iov_base = req.buf;
    v.bytes = nullptr;
}

void TcpQueuePair::release_view(SendItem &it) {
    target::HeldView &v = it.req->view;
    if (v.channel) v.channel->release_view(v);
    v.bytes = nullptr;
}

void TcpQueuePair::release_views() {
    sendq_.for_each_queued([this](SendItem &it) {
        if (holds_view(it)) release_view(it);
    });
}

void TcpQueuePair::send_c2h_data(TcpRequest &req, bool success_flag, const uint8_t *data) {
    uint8_t hd = hdgst_ ? kDigestLen : 0, dd = ddgst_ ? kDigestLen : 0;
    uint32_t hdr_end = sizeof(DataPdu) + hd;
    uint32_t pdo = (hdr_end + c2h_align_ - 1) / c2h_align_ * c2h_align_;
    uint8_t flags = kFlagDataLast | (success_flag ? kFlagDataSuccess : 0) | (hdgst_ ? kFlagHdgst : 0) |
                    (ddgst_ ? kFlagDdgst : 0);
    auto &pdu = *reinterpret_cast<DataPdu *>(req.c2h_pdu);
    pdu = {};
    pdu.ch = {kC2HData, flags, sizeof(DataPdu), static_cast<uint8_t>(pdo), pdo + req.data_len + dd};
    pdu.cccid = req.cmd.cid;
    pdu.datao = 0;
    pdu.datal = req.data_len;
    put_header_digest(req.c2h_pdu, sizeof(DataPdu));
    SendItem *it = sendq_.reserve();
    int n = 0;
    it->iov[n++] = {req.c2h_pdu, hdr_end};
    if (pdo > hdr_end) it->iov[n++] = {const_cast<uint8_t *>(kZeroPad), pdo - hdr_end};
    it->iov[n++] = {const_cast<uint8_t *>(data), req.data_len};
    if (ddgst_) {
        req.ddgst = crc32c(data, req.data_len);
        it->iov[n++] = {&req.ddgst, dd};
    }
    it->iovcnt = static_cast<uint8_t>(n);
    it->kind = SendItem::kData;
    it->req = &req;
    it->frees_request = success_flag;
    req.data_item = it;
    sendq_.commit();
}

void TcpQueuePair::send_response(TcpRequest &req) {
    uint8_t hd = hdgst_ ? kDigestLen : 0;
    auto &resp = *reinterpret_cast<CapsuleResp *>(req.resp_pdu);
    resp.ch = {kCapsuleResp, static_cast<uint8_t>(hdgst_ ? kFlagHdgst : 0), sizeof(CapsuleResp), 0,
               uint32_t(sizeof(CapsuleResp) + hd)};
    resp.cqe = req.cqe;
    put_header_digest(req.resp_pdu, sizeof(CapsuleResp));
    SendItem *it = sendq_.reserve();
    it->iov[0] = {req.resp_pdu, sizeof(CapsuleResp) + hd};
    it->iovcnt = 1;
    it->kind = SendItem::kResponse;
    it->req = &req;
    it->frees_request = true;
    sendq_.commit();
}

// ---------------------------------------------------------------------------------------------
// Connection level

void TcpQueuePair::send_control(const void *data, size_t len) {
    uint8_t *buf = ctrl_pdu_[ctrl_pdu_next_];
    ctrl_pdu_next_ ^= 1;
    std::memcpy(buf, data, len);
    SendItem *it = sendq_.reserve();
    if (!it) return;
    it->iov[0] = {buf, len};
    it->iovcnt = 1;
    it->kind = SendItem::kControl;
    sendq_.commit();
}

// A protocol violation: C2HTermReq echoing the offending header, then close this connection.
void TcpQueuePair::fatal(uint16_t fes, uint32_t fei, const char *what) {
    log_->warn("{}: fatal transport error: {} (FES {:#04x}, FEI {}); closing the connection", peer_, what,
               fes, fei);
    const auto &ch = *reinterpret_cast<const CommonHeader *>(rx_hdr_);
    // Protocol errors are found while a header is being read into rx_hdr_: echo what arrived
    // of it (at most 128 bytes), without its digest.
    uint32_t received = static_cast<uint32_t>(rx_ptr_ - rx_hdr_);
    uint32_t echo =
        std::min<uint32_t>({received, std::max<uint32_t>(ch.hlen, sizeof(CommonHeader)), kTermReqMaxData});
    uint8_t pdu[sizeof(TermReq) + kTermReqMaxData] = {};
    auto &term = *reinterpret_cast<TermReq *>(pdu);
    term.ch = {kC2HTermReq, 0, sizeof(TermReq), 0, uint32_t(sizeof(TermReq) + echo)};
    term.fes = fes;
    term.fei = fei;
    std::memcpy(pdu + sizeof(TermReq), rx_hdr_, echo);
    send_control(pdu, sizeof(TermReq) + echo);
    rx_state_ = RecvState::kStopped;
    close_when_sent_ = true;
    close_reason_ = what;
}

void TcpQueuePair::flush() {
    if (finished_) return;
    responses_queued_ = false;
    bool ok = sendq_.flush(fd_, tls_.get(), [this](SendItem &it) {
        if (holds_view(it)) release_view(it);
        if (it.frees_request) free_request(*it.req);
    });
    if (!ok) {
        if (tls_ && errno == EIO) log_->warn("{}: {}", peer_, tls_->error());
        return finish("send failed");
    }
    if (sendq_.empty() && close_when_sent_) return finish(close_reason_);
    if (sendq_.empty() && queue_.disconnect_requested()) return finish(queue_.disconnect_reason());
}

bool TcpQueuePair::progress() {
    // Records OpenSSL already took off the socket raise no readiness event: read them here.
    if (tls_ && !finished_ && channel_ == Channel::kReady && tls_->has_pending()) {
        on_readable();
        return true;
    }
    if (finished_) return false;
    // I/O over a QoS limit whose tokens are due runs now (its responses go out below).
    const bool resumed = queue_.has_throttled() && queue_.run_throttled();
    if (!queue_.has_deferred() && !responses_queued_) return resumed;
    if (queue_.has_deferred()) queue_.run_deferred();
    flush();
    return true;
}

void TcpQueuePair::poll(uint64_t now_ms) {
    if (finished_) return;
    if (stalled(now_ms)) return;
    if (!queue_.poll(now_ms)) return finish("association torn down");
    flush();
}

void TcpQueuePair::finish(const char *why) {
    if (finished_) return;
    finished_ = true;
    release_views();
    rx_state_ = RecvState::kStopped;
    if (queue_.connected())
        queue_.disconnect(why);
    else
        log_->debug("{}: connection closed before Connect: {}", peer_, why);
    ::shutdown(fd_, SHUT_RDWR);
}

} // namespace skiff::nvmeof::tcp
