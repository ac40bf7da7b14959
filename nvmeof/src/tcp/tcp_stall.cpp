// The hostile-client timeout of a TCP connection (stall_watch.hpp): what "owes bytes" means for
// NVMe/TCP, and how a stalled connection is reported and closed.
#include "tcp_queue_pair.hpp"

namespace skiff::nvmeof::tcp {

// Between PDUs the receive path waits for a whole common header; anything else is a PDU the
// peer started and has not finished (or, stopped, a termination the peer is not reading).
bool TcpQueuePair::mid_pdu() const {
    return rx_state_ != RecvState::kCommonHeader || rx_left_ != sizeof(wire::tcp::CommonHeader);
}

bool TcpQueuePair::stalled(uint64_t now_ms) {
    // Until Connect succeeded the peer owes the handshake; after it, only the rest of a PDU. A
    // connected host that is simply idle between commands is keep-alive's business.
    bool owed = !queue_.connected() || mid_pdu();
    if (!stall_.expired(now_ms, owed, rx_reads_)) return false;
    const char *what;
    if (rx_state_ == RecvState::kStopped)
        what = "did not take the connection's termination";
    else if (channel_ == Channel::kDetect)
        what = "sent neither a TLS ClientHello nor an ICReq";
    else if (channel_ == Channel::kHandshake)
        what = "did not finish the TLS handshake";
    else if (mid_pdu())
        what = "stopped in the middle of a PDU";
    else if (!ic_done_)
        what = "sent no ICReq";
    else
        what = "sent no successful Connect";
    log_->warn("{}: peer {} for {} ms (stall timeout {} ms); closing the connection", peer_, what,
               stall_.silent_ms(now_ms), limits_.stall_timeout_ms);
    finish("stall timeout");
    return true;
}

} // namespace skiff::nvmeof::tcp
