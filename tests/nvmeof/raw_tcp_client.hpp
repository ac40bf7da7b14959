// Test helper: a minimal NVMe/TCP client that sends raw PDUs, so transport tests can send
// exactly the bytes they want (including broken ones) to a real target socket.
#pragma once

#include "skiff/nvmeof/crc32c.hpp"
#include "skiff/nvmeof/wire/tcp_pdu.hpp"

#include <nvme/types.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace skiff::test {

namespace wt = skiff::nvmeof::wire::tcp;
namespace w = skiff::nvmeof::wire;

struct Pdu {
    wt::CommonHeader ch{};
    std::vector<uint8_t> bytes; // the whole PDU, header first
    template <typename T>
    const T &as() const {
        return *reinterpret_cast<const T *>(bytes.data());
    }
};

class RawTcpClient {
  public:
    explicit RawTcpClient(uint16_t port) {
        fd_ = socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in sa{};
        sa.sin_family = AF_INET;
        sa.sin_port = htons(port);
        inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
        if (::connect(fd_, reinterpret_cast<sockaddr *>(&sa), sizeof(sa)) != 0)
            throw std::runtime_error("connect to 127.0.0.1:" + std::to_string(port) + " failed");
        int one = 1;
        setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        // A safety net so a broken target fails the test instead of hanging it.
        timeval tv{10, 0};
        setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    }
    ~RawTcpClient() { ::close(fd_); }

    void send_raw(const void *p, size_t n) {
        if (::send(fd_, p, n, MSG_NOSIGNAL) != static_cast<ssize_t>(n))
            throw std::runtime_error("send failed");
    }

    // Reads one PDU; nullopt when the target closed the connection.
    std::optional<Pdu> recv_pdu() {
        Pdu pdu;
        pdu.bytes.resize(sizeof(wt::CommonHeader));
        if (!recv_exact(pdu.bytes.data(), sizeof(wt::CommonHeader))) return std::nullopt;
        std::memcpy(&pdu.ch, pdu.bytes.data(), sizeof(pdu.ch));
        pdu.bytes.resize(pdu.ch.plen);
        if (!recv_exact(pdu.bytes.data() + 8, pdu.ch.plen - 8)) return std::nullopt;
        return pdu;
    }

    // True when the target closed the connection (reads EOF or a reset).
    bool closed_by_peer() {
        uint8_t b;
        ssize_t n = ::recv(fd_, &b, 1, 0);
        return n == 0 || (n < 0 && errno == ECONNRESET);
    }

    wt::IcResp icreq(uint8_t dgst = 0, uint8_t hpda = 0, uint16_t pfv = 0) {
        wt::IcReq req{};
        req.ch = {wt::kIcReq, 0, 128, 0, 128};
        req.pfv = pfv;
        req.hpda = hpda;
        req.dgst = dgst;
        req.maxr2t = 0;
        send_raw(&req, sizeof(req));
        auto pdu = recv_pdu();
        if (!pdu || pdu->ch.type != wt::kIcResp) throw std::runtime_error("no ICResp");
        hdgst_ = dgst & wt::kDgstHeader;
        ddgst_ = dgst & wt::kDgstData;
        hpda_align_ = (hpda + 1u) * 4u;
        return pdu->as<wt::IcResp>();
    }

    // Sends a command capsule; `data` goes in-capsule (the SGL is set to match unless
    // keep_sgl). Without data the SGL is a transport data block of `transfer_len` bytes.
    void send_command(w::Sqe sqe, const void *data = nullptr, uint32_t len = 0, uint32_t transfer_len = 0,
                      bool keep_sgl = false) {
        if (!keep_sgl) {
            sqe.flags = static_cast<uint8_t>((sqe.flags & w::kFuseMask) | w::kPsdtSgl);
            sqe.dptr = {};
            if (len) {
                sqe.dptr.id = w::kSglIdInCapsule;
                sqe.dptr.length = len;
            } else {
                sqe.dptr.id = w::kSglIdTcpTransport;
                sqe.dptr.length = transfer_len;
            }
        }
        std::vector<uint8_t> pdu(sizeof(wt::CapsuleCmd) + (hdgst_ ? 4 : 0));
        auto &cap = *reinterpret_cast<wt::CapsuleCmd *>(pdu.data());
        uint32_t hlen = static_cast<uint32_t>(pdu.size());
        cap.ch = {wt::kCapsuleCmd,
                  static_cast<uint8_t>((hdgst_ ? wt::kFlagHdgst : 0) | (len && ddgst_ ? wt::kFlagDdgst : 0)),
                  72, static_cast<uint8_t>(len ? hlen : 0), hlen + len + (len && ddgst_ ? 4 : 0)};
        cap.sqe = sqe;
        if (hdgst_) {
            uint32_t d = nvmeof::crc32c(pdu.data(), 72);
            std::memcpy(pdu.data() + 72, &d, 4);
        }
        if (len) {
            const auto *p = static_cast<const uint8_t *>(data);
            pdu.insert(pdu.end(), p, p + len);
            if (ddgst_) {
                uint32_t d = nvmeof::crc32c(data, len);
                auto *dp = reinterpret_cast<uint8_t *>(&d);
                pdu.insert(pdu.end(), dp, dp + 4);
            }
        }
        send_raw(pdu.data(), pdu.size());
    }

    void send_h2c(uint16_t cid, uint16_t ttag, uint32_t offset, const void *data, uint32_t len, bool last) {
        std::vector<uint8_t> pdu(sizeof(wt::DataPdu) + (hdgst_ ? 4 : 0));
        auto &h = *reinterpret_cast<wt::DataPdu *>(pdu.data());
        uint32_t hlen = static_cast<uint32_t>(pdu.size());
        h.ch = {wt::kH2CData,
                static_cast<uint8_t>((hdgst_ ? wt::kFlagHdgst : 0) | (ddgst_ ? wt::kFlagDdgst : 0) |
                                     (last ? wt::kFlagDataLast : 0)),
                24, static_cast<uint8_t>(hlen), hlen + len + (ddgst_ ? 4 : 0)};
        h.cccid = cid;
        h.ttag = ttag;
        h.datao = offset;
        h.datal = len;
        if (hdgst_) {
            uint32_t d = nvmeof::crc32c(pdu.data(), 24);
            std::memcpy(pdu.data() + 24, &d, 4);
        }
        const auto *p = static_cast<const uint8_t *>(data);
        pdu.insert(pdu.end(), p, p + len);
        if (ddgst_) {
            uint32_t d = nvmeof::crc32c(data, len);
            auto *dp = reinterpret_cast<uint8_t *>(&d);
            pdu.insert(pdu.end(), dp, dp + 4);
        }
        send_raw(pdu.data(), pdu.size());
    }

    // Waits for the completion of `cid`, collecting C2HData payload into `data` and answering
    // R2Ts from `write_data`. Returns the CQE (a synthetic success CQE for C2H SUCCESS).
    w::Cqe wait_completion(uint16_t cid, std::vector<uint8_t> *data = nullptr,
                           const void *write_data = nullptr) {
        for (;;) {
            auto pdu = recv_pdu();
            if (!pdu) throw std::runtime_error("connection closed while waiting for a completion");
            switch (pdu->ch.type) {
            case wt::kCapsuleResp: {
                w::Cqe cqe = pdu->as<wt::CapsuleResp>().cqe;
                if (cqe.cid == cid) return cqe;
                break;
            }
            case wt::kC2HData: {
                const auto &d = pdu->as<wt::DataPdu>();
                if (data) {
                    data->resize(std::max<size_t>(data->size(), d.datao + d.datal));
                    std::memcpy(data->data() + d.datao, pdu->bytes.data() + d.ch.pdo, d.datal);
                }
                last_c2h_pdo = d.ch.pdo;
                if (d.ch.flags & wt::kFlagDataSuccess) return w::Cqe{0, 0, 0, cid, 0};
                break;
            }
            case wt::kR2T: {
                const auto &r = pdu->as<wt::R2T>();
                last_r2t = r;
                send_h2c(r.cccid, r.ttag, r.r2to, static_cast<const uint8_t *>(write_data) + r.r2to, r.r2tl,
                         true);
                break;
            }
            default:
                throw std::runtime_error("unexpected PDU type " + std::to_string(pdu->ch.type));
            }
        }
    }

    w::Cqe fabrics_connect(uint16_t qid, uint16_t cntlid, const std::string &subnqn,
                           const std::string &hostnqn, uint16_t sqsize = 31, uint32_t kato = 0,
                           uint8_t hostid_byte = 0x11) {
        w::Sqe sqe{};
        auto &c = reinterpret_cast<w::ConnectCmd &>(sqe);
        c.opcode = w::kFabricsOpcode;
        c.cid = next_cid_++;
        c.fctype = w::kFctConnect;
        c.qid = qid;
        c.sqsize = sqsize;
        c.kato = kato;
        nvmf_connect_data data{};
        std::memset(data.hostid, hostid_byte, 16);
        data.cntlid = cntlid;
        std::strncpy(data.subsysnqn, subnqn.c_str(), sizeof(data.subsysnqn) - 1);
        std::strncpy(data.hostnqn, hostnqn.c_str(), sizeof(data.hostnqn) - 1);
        send_command(sqe, &data, sizeof(data));
        return wait_completion(c.cid);
    }

    w::Cqe property(bool set, uint32_t offset, uint64_t value = 0, uint8_t attrib = 0) {
        w::Sqe sqe{};
        auto &p = reinterpret_cast<w::PropertyCmd &>(sqe);
        p.opcode = w::kFabricsOpcode;
        p.cid = next_cid_++;
        p.fctype = set ? w::kFctPropertySet : w::kFctPropertyGet;
        p.offset = offset;
        p.value = value;
        p.attrib = attrib;
        send_command(sqe);
        return wait_completion(p.cid);
    }

    // Admin or I/O command with optional data either way.
    w::Cqe command(w::Sqe sqe, std::vector<uint8_t> *in = nullptr, uint32_t in_len = 0,
                   const void *out = nullptr, uint32_t out_len = 0, bool in_capsule = true) {
        sqe.cid = next_cid_++;
        if (out_len && in_capsule)
            send_command(sqe, out, out_len);
        else
            send_command(sqe, nullptr, 0, out_len ? out_len : in_len);
        return wait_completion(sqe.cid, in, out);
    }

    // Admin queue set up: Connect, CC.EN = 1. Returns the controller id.
    uint16_t bring_up_admin(const std::string &subnqn, const std::string &hostnqn, uint32_t kato = 0) {
        icreq();
        auto cqe = fabrics_connect(0, 0xFFFF, subnqn, hostnqn, 31, kato);
        if (cqe.status != 0) throw std::runtime_error("admin connect failed");
        if (property(true, w::kPropCc, 1 | (6 << 16) | (4 << 20)).status != 0)
            throw std::runtime_error("CC.EN failed");
        return static_cast<uint16_t>(cqe.result);
    }

    int fd() const { return fd_; }
    uint16_t next_cid() { return next_cid_++; }
    wt::R2T last_r2t{};
    uint32_t last_c2h_pdo = 0;

  private:
    bool recv_exact(uint8_t *p, size_t n) {
        while (n) {
            ssize_t r = ::recv(fd_, p, n, 0);
            if (r <= 0) return false;
            p += r;
            n -= static_cast<size_t>(r);
        }
        return true;
    }

    int fd_;
    bool hdgst_ = false, ddgst_ = false;
    uint32_t hpda_align_ = 4;
    uint16_t next_cid_ = 1;
};

} // namespace skiff::test
