// The host's end of one NVMe/TCP connection in a fuzz harness: a correct host. It sends
// well-formed PDUs (ICReq, command capsules with in-capsule data, H2CData answering each R2T) with
// the digests the ICReq negotiated, and parses every PDU the target sends, checking each against
// the protocol (SKIFF_FUZZ_CHECK): ICResp, CapsuleResp, C2HData (including the SUCCESS flag), R2T
// and C2HTermReq. It keeps the commands in flight by CID, so a completion for an unknown CID or a
// second one for the same command is caught where it arrives.
#pragma once

#include "fuzz_input.hpp"
#include "skiff/nvmeof/crc32c.hpp"
#include "skiff/nvmeof/wire/tcp_pdu.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <span>
#include <vector>

namespace skiff::fuzz {

namespace tcpw = nvmeof::wire::tcp;

class TcpHost {
  public:
    // A command in flight, as the host tracks it.
    struct Command {
        nvmeof::wire::Sqe sqe{};
        uint32_t len = 0;          // bytes the SGL describes
        bool in_capsule = false;   // SGL: in-capsule data block (else TCP transport data block)
        std::vector<uint8_t> data; // the host's data buffer (len bytes): sent by H2CData, C2HData lands here
        uint32_t r2t_asked = 0;    // bytes the target asked for by R2T so far
        bool may_wait = false;     // the harness lets it stay unanswered (see the harness header)
        bool forgiven = false;     // in flight when the host reset the controller: may wait for good
        uint64_t seq = 0;          // submission order on this connection
    };
    // Called for each completion: the CQE (for the SUCCESS flag, a CQE made from the C2HData PDU).
    using OnCompletion = std::function<void(const Command &, const nvmeof::wire::Cqe &)>;

    TcpHost(int fd, uint16_t qid, OnCompletion on_completion)
        : fd_(fd), qid_(qid), on_completion_(std::move(on_completion)) {}
    ~TcpHost() { ::close(fd_); }
    TcpHost(const TcpHost &) = delete;
    TcpHost &operator=(const TcpHost &) = delete;

    void send_icreq(bool hdgst, bool ddgst, uint8_t hpda) {
        tcpw::IcReq ic{};
        ic.ch = {tcpw::kIcReq, 0, sizeof(ic), 0, sizeof(ic)};
        ic.hpda = hpda;
        ic.dgst = static_cast<uint8_t>((hdgst ? tcpw::kDgstHeader : 0) | (ddgst ? tcpw::kDgstData : 0));
        ic.maxr2t = 0;
        hpda_ = hpda;
        asked_dgst_ = ic.dgst;
        append(&ic, sizeof(ic));
    }
    bool ic_done() const { return ic_done_; }
    bool hdgst() const { return hdgst_; }
    bool ddgst() const { return ddgst_; }
    uint32_t maxh2cdata() const { return maxh2cdata_; }
    // The host asked for SQ flow control to be disabled (Connect CATTR): C2HData may then carry SUCCESS.
    void set_sq_flow_control_disabled(bool v) { sqfc_disabled_ = v; }

    // Sends one command capsule; `len` bytes of host data (in-capsule, or sent on R2T), of which
    // `data` gives the first (the rest are zeroes). The caller picks a CID not in flight.
    Command &submit(nvmeof::wire::Sqe sqe, bool in_capsule, uint32_t len, std::span<const uint8_t> data) {
        SKIFF_FUZZ_CHECK(!in_flight_.count(sqe.cid));
        sqe.dptr = {};
        sqe.dptr.id = in_capsule ? nvmeof::wire::kSglIdInCapsule : nvmeof::wire::kSglIdTcpTransport;
        sqe.dptr.length = len;
        Command &c = in_flight_[sqe.cid];
        c.sqe = sqe;
        c.len = len;
        c.in_capsule = in_capsule;
        c.data.assign(len, 0);
        if (!data.empty() && len) std::memcpy(c.data.data(), data.data(), std::min<size_t>(data.size(), len));
        c.seq = ++seq_;
        send_pdu(tcpw::kCapsuleCmd, &sqe, sizeof(sqe),
                 in_capsule ? std::span<const uint8_t>(c.data) : std::span<const uint8_t>());
        return c;
    }

    // Sends what the socket takes, then reads and handles every whole PDU the target sent.
    void pump() {
        send_pending();
        receive();
        send_pending();
    }

    // Closes the host's sending side: the target sees EOF.
    void hang_up() { ::shutdown(fd_, SHUT_WR); }

    bool closed() const { return closed_; } // the target closed the connection (EOF or error)
    bool term_req() const { return term_req_; }
    uint16_t term_fes() const { return term_fes_; }
    std::map<uint16_t, Command> &in_flight() { return in_flight_; }
    const std::map<uint16_t, Command> &in_flight() const { return in_flight_; }
    uint64_t last_seq() const { return seq_; }

  private:
    void append(const void *p, size_t n) {
        auto b = static_cast<const uint8_t *>(p);
        out_.insert(out_.end(), b, b + n);
    }

    // One PDU with the negotiated digests: header (+ digest), pad to CPDA, data (+ digest).
    void send_pdu(uint8_t type, const void *rest, uint32_t rest_len, std::span<const uint8_t> data,
                  uint8_t extra_flags = 0) {
        uint32_t hlen = sizeof(tcpw::CommonHeader) + rest_len;
        uint32_t hd = hdgst_ ? tcpw::kDigestLen : 0, dd = ddgst_ && !data.empty() ? tcpw::kDigestLen : 0;
        uint32_t align = (cpda_ + 1u) * 4u;
        uint32_t pdo = data.empty() ? 0 : (hlen + hd + align - 1) / align * align;
        uint32_t plen = data.empty() ? hlen + hd : pdo + uint32_t(data.size()) + dd;
        uint8_t flags =
            static_cast<uint8_t>(extra_flags | (hd ? tcpw::kFlagHdgst : 0) | (dd ? tcpw::kFlagDdgst : 0));
        tcpw::CommonHeader ch{type, flags, static_cast<uint8_t>(hlen), static_cast<uint8_t>(pdo), plen};
        size_t start = out_.size();
        append(&ch, sizeof(ch));
        append(rest, rest_len);
        if (hd) {
            uint32_t d = nvmeof::crc32c(out_.data() + start, hlen);
            append(&d, sizeof(d));
        }
        if (data.empty()) return;
        out_.resize(out_.size() + (pdo - hlen - hd), 0);
        append(data.data(), data.size());
        if (dd) {
            uint32_t d = nvmeof::crc32c(data.data(), data.size());
            append(&d, sizeof(d));
        }
    }

    void send_pending() {
        while (out_pos_ < out_.size() && !closed_) {
            ssize_t n =
                ::send(fd_, out_.data() + out_pos_, out_.size() - out_pos_, MSG_DONTWAIT | MSG_NOSIGNAL);
            if (n > 0) {
                out_pos_ += static_cast<size_t>(n);
                continue;
            }
            if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) break;
            closed_ = true; // the target went away
        }
        if (out_pos_ == out_.size()) out_.clear(), out_pos_ = 0;
    }

    void receive() {
        uint8_t buf[65536];
        for (;;) {
            ssize_t n = ::recv(fd_, buf, sizeof(buf), MSG_DONTWAIT);
            if (n > 0) {
                rx_.insert(rx_.end(), buf, buf + n);
                continue;
            }
            if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) closed_ = true;
            break;
        }
        size_t pos = 0;
        while (rx_.size() - pos >= sizeof(tcpw::CommonHeader)) {
            tcpw::CommonHeader ch;
            std::memcpy(&ch, rx_.data() + pos, sizeof(ch));
            check_common_header(ch);
            if (rx_.size() - pos < ch.plen) break;
            handle_pdu(ch, rx_.data() + pos);
            pos += ch.plen;
        }
        rx_.erase(rx_.begin(), rx_.begin() + static_cast<ptrdiff_t>(pos));
    }

    void check_common_header(const tcpw::CommonHeader &ch) {
        bool controller_type = ch.type == tcpw::kIcResp || ch.type == tcpw::kC2HTermReq ||
                               ch.type == tcpw::kCapsuleResp || ch.type == tcpw::kC2HData ||
                               ch.type == tcpw::kR2T;
        SKIFF_FUZZ_CHECK(controller_type);
        SKIFF_FUZZ_CHECK(ch.hlen == tcpw::expected_hlen(ch.type));
        SKIFF_FUZZ_CHECK(ch.plen >= ch.hlen);
        // Before ICResp only ICResp or a C2HTermReq; ICResp once.
        SKIFF_FUZZ_CHECK(ic_done_ != (ch.type == tcpw::kIcResp) || ch.type == tcpw::kC2HTermReq);
        SKIFF_FUZZ_CHECK(ch.plen <= ch.hlen + 2 * tcpw::kDigestLen + 128 + (16u << 20)); // sane bound
    }

    // The header digest of a PDU other than ICResp / C2HTermReq, and its length after the digest.
    uint32_t check_header_digest(const tcpw::CommonHeader &ch, const uint8_t *pdu) {
        SKIFF_FUZZ_CHECK(bool(ch.flags & tcpw::kFlagHdgst) == hdgst_);
        if (!hdgst_) return ch.hlen;
        SKIFF_FUZZ_CHECK(ch.plen >= uint32_t(ch.hlen) + tcpw::kDigestLen);
        uint32_t d;
        std::memcpy(&d, pdu + ch.hlen, 4);
        SKIFF_FUZZ_CHECK(d == nvmeof::crc32c(pdu, ch.hlen));
        return ch.hlen + tcpw::kDigestLen;
    }

    void handle_pdu(const tcpw::CommonHeader &ch, const uint8_t *pdu) {
        switch (ch.type) {
        case tcpw::kIcResp:
            return handle_icresp(pdu);
        case tcpw::kC2HTermReq: {
            tcpw::TermReq t;
            std::memcpy(&t, pdu, sizeof(t));
            term_req_ = true;
            term_fes_ = t.fes;
            return;
        }
        case tcpw::kCapsuleResp: {
            uint32_t end = check_header_digest(ch, pdu);
            SKIFF_FUZZ_CHECK(ch.plen == end && ch.pdo == 0);
            nvmeof::wire::Cqe cqe;
            std::memcpy(&cqe, pdu + sizeof(tcpw::CommonHeader), sizeof(cqe));
            return complete(cqe);
        }
        case tcpw::kC2HData:
            return handle_c2h_data(ch, pdu);
        case tcpw::kR2T:
            return handle_r2t(ch, pdu);
        }
    }

    void handle_icresp(const uint8_t *pdu) {
        tcpw::IcResp r;
        std::memcpy(&r, pdu, sizeof(r));
        SKIFF_FUZZ_CHECK(r.ch.plen == sizeof(r) && r.pfv == 0);
        SKIFF_FUZZ_CHECK(r.cpda <= 31);
        SKIFF_FUZZ_CHECK((r.dgst & ~asked_dgst_) == 0); // only digests the host asked for
        SKIFF_FUZZ_CHECK(r.maxh2cdata >= 4096 && r.maxh2cdata % 4 == 0);
        hdgst_ = r.dgst & tcpw::kDgstHeader;
        ddgst_ = r.dgst & tcpw::kDgstData;
        cpda_ = r.cpda;
        maxh2cdata_ = r.maxh2cdata;
        ic_done_ = true;
    }

    Command &in_flight_command(uint16_t cid) {
        auto it = in_flight_.find(cid);
        if (it == in_flight_.end())
            std::fprintf(stderr, "queue %u: the target named CID %u, which is not in flight\n", qid_, cid);
        SKIFF_FUZZ_CHECK(it != in_flight_.end());
        return it->second;
    }

    void complete(const nvmeof::wire::Cqe &cqe) {
        Command &c = in_flight_command(cqe.cid);
        SKIFF_FUZZ_CHECK(cqe.sq_id == qid_);
        Command done = std::move(c);
        in_flight_.erase(cqe.cid);
        on_completion_(done, cqe);
    }

    void handle_c2h_data(const tcpw::CommonHeader &ch, const uint8_t *pdu) {
        uint32_t hdr_end = check_header_digest(ch, pdu);
        tcpw::DataPdu d;
        std::memcpy(&d, pdu, sizeof(d));
        uint32_t dd = ddgst_ ? tcpw::kDigestLen : 0;
        SKIFF_FUZZ_CHECK(bool(ch.flags & tcpw::kFlagDdgst) == ddgst_);
        SKIFF_FUZZ_CHECK(ch.pdo >= hdr_end && ch.pdo % ((hpda_ + 1u) * 4u) == 0); // the host's HPDA
        SKIFF_FUZZ_CHECK(ch.plen >= ch.pdo + dd && d.datal == ch.plen - ch.pdo - dd);
        Command &c = in_flight_command(d.cccid);
        SKIFF_FUZZ_CHECK(!c.in_capsule);
        SKIFF_FUZZ_CHECK(uint64_t(d.datao) + d.datal <= c.len); // inside the host's buffer
        const uint8_t *data = pdu + ch.pdo;
        if (dd) {
            uint32_t got;
            std::memcpy(&got, data + d.datal, 4);
            SKIFF_FUZZ_CHECK(got == nvmeof::crc32c(data, d.datal));
        }
        if (d.datal) std::memcpy(c.data.data() + d.datao, data, d.datal);
        bool last = ch.flags & tcpw::kFlagDataLast, success = ch.flags & tcpw::kFlagDataSuccess;
        SKIFF_FUZZ_CHECK(!success || last);           // SUCCESS only on the last C2HData
        SKIFF_FUZZ_CHECK(!success || sqfc_disabled_); // and only when SQ flow control is off
        if (!success) return;
        nvmeof::wire::Cqe cqe{};
        cqe.cid = d.cccid;
        cqe.sq_id = qid_;
        complete(cqe);
    }

    void handle_r2t(const tcpw::CommonHeader &ch, const uint8_t *pdu) {
        uint32_t end = check_header_digest(ch, pdu);
        SKIFF_FUZZ_CHECK(ch.plen == end && ch.pdo == 0);
        tcpw::R2T r;
        std::memcpy(&r, pdu, sizeof(r));
        Command &c = in_flight_command(r.cccid);
        SKIFF_FUZZ_CHECK(!c.in_capsule);
        SKIFF_FUZZ_CHECK(r.r2tl > 0 && r.r2to == c.r2t_asked && uint64_t(r.r2to) + r.r2tl <= c.len);
        c.r2t_asked += r.r2tl;
        // H2CData PDUs of at most MAXH2CDATA bytes each, LAST on the final one.
        for (uint32_t off = r.r2to, end_off = r.r2to + r.r2tl; off < end_off;) {
            uint32_t n = std::min(end_off - off, maxh2cdata_);
            tcpw::DataPdu h{};
            h.cccid = r.cccid;
            h.ttag = r.ttag;
            h.datao = off;
            h.datal = n;
            off += n;
            send_pdu(tcpw::kH2CData, reinterpret_cast<const uint8_t *>(&h) + sizeof(tcpw::CommonHeader),
                     sizeof(h) - sizeof(tcpw::CommonHeader), {c.data.data() + h.datao, n},
                     off == end_off ? tcpw::kFlagDataLast : 0);
        }
    }

    int fd_;
    uint16_t qid_;
    OnCompletion on_completion_;
    std::vector<uint8_t> out_;
    size_t out_pos_ = 0;
    std::vector<uint8_t> rx_;
    uint8_t hpda_ = 0, cpda_ = 0, asked_dgst_ = 0;
    bool ic_done_ = false, hdgst_ = false, ddgst_ = false, sqfc_disabled_ = false;
    uint32_t maxh2cdata_ = 0;
    bool closed_ = false, term_req_ = false;
    uint16_t term_fes_ = 0;
    std::map<uint16_t, Command> in_flight_;
    uint64_t seq_ = 0;
};

} // namespace skiff::fuzz
