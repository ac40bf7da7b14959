// The secure channel of an NVMe/TCP connection (TP 8011): on a listener with `secure_channel`
// optional or required, the first byte tells a TLS ClientHello (a handshake record, 0x16) from
// a plain ICReq (PDU type 0); a TLS 1.3 PSK handshake follows, after which the PDU stream
// runs through the session. Everything here happens before the first PDU: no request is in
// flight, so a failure just closes this connection.
#include "tcp_queue_pair.hpp"

#include <cerrno>
#include <cstring>
#include <sys/socket.h>

namespace skiff::nvmeof::tcp {
namespace {
constexpr uint8_t kTlsHandshakeRecord = 0x16;
}

bool TcpQueuePair::establish() {
    if (finished_) return false;
    if (channel_ == Channel::kDetect && !detect_first_byte()) return false;
    if (channel_ == Channel::kHandshake && !run_handshake()) return false;
    return channel_ == Channel::kReady;
}

bool TcpQueuePair::detect_first_byte() {
    uint8_t first = 0;
    ssize_t n = ::recv(fd_, &first, 1, MSG_PEEK | MSG_DONTWAIT);
    if (n == 0) {
        finish("peer closed the connection before the first PDU");
        return false;
    }
    if (n < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return false;
        log_->info("{}: receive failed: {}", peer_, std::strerror(errno));
        finish("receive error");
        return false;
    }
    auto sc = queue_.port().secure_channel;
    if (first != kTlsHandshakeRecord) {
        if (sc == target::SecureChannel::kOptional) {
            log_->debug("{}: plain NVMe/TCP on a listener where TLS is optional", peer_);
            channel_ = Channel::kReady;
            return true;
        }
        log_->warn("{}: refused: the listener requires TLS (secure_channel required) but the host sent {} "
                   "(first byte {:#04x}); closing the connection",
                   peer_,
                   first == wire::tcp::kIcReq ? "a plain ICReq" : "neither a TLS ClientHello nor an ICReq",
                   first);
        finish("TLS required");
        return false;
    }
    auto session = tls::TlsSession::accept(fd_, target_.tls_psks());
    if (!session) {
        log_->error("{}: {}", peer_, session.error().message);
        finish("cannot start TLS");
        return false;
    }
    tls_ = std::move(session).value();
    channel_ = Channel::kHandshake;
    return true;
}

bool TcpQueuePair::run_handshake() {
    handshake_wants_write_ = false;
    switch (tls_->handshake()) {
    case tls::TlsSession::Step::kWantRead:
        return false;
    case tls::TlsSession::Step::kWantWrite:
        handshake_wants_write_ = true;
        return false;
    case tls::TlsSession::Step::kFailed:
        log_->warn("{}: TLS handshake refused: {}{}; closing the connection", peer_, tls_->error(),
                   tls_->identity().empty() ? "" : " (identity '" + tls_->identity() + "')");
        finish("TLS handshake failed");
        return false;
    case tls::TlsSession::Step::kDone:
        break;
    }
    // The PSK's layout is named only when it is the legacy one: an operator then knows the host
    // runs an nvme-cli that a later upgrade changes (both keep working here).
    log_->info("{}: TLS 1.3 established: identity '{}', {}, record layer {}{}", peer_, tls_->identity(),
               tls_->cipher(), tls_->record_layer(),
               tls_->psk_derivation() == tls::PskDerivation::kNvmeCliLegacy
                   ? std::string(", TLS PSK derived as ") + tls::derivation_name(tls_->psk_derivation()) +
                         " does"
                   : std::string());
    channel_ = Channel::kReady;
    return true;
}

// One receive into the iovecs: a plain recv/recvmsg, or the session's decrypted bytes. Same
// contract as recvmsg (bytes, 0 at end of stream, -1 with errno).
ssize_t TcpQueuePair::read_socket(iovec *iov, int iovcnt) {
    if (tls_) return tls_->readv(iov, iovcnt);
    if (iovcnt == 1) return ::recv(fd_, iov[0].iov_base, iov[0].iov_len, MSG_DONTWAIT);
    msghdr msg{};
    msg.msg_iov = iov;
    msg.msg_iovlen = static_cast<size_t>(iovcnt);
    return ::recvmsg(fd_, &msg, MSG_DONTWAIT);
}

} // namespace skiff::nvmeof::tcp
