// Internal: the hostile-client timer of a TCP connection. A connection that owes the target bytes
// (it has not completed Connect, or it stopped in the middle of a PDU) and sends nothing for
// `timeout_ms` is closed. It runs on the poll group's 100 ms clock (Connection::poll), so it
// costs the data path nothing but a counter the receive path bumps per read: no timer, thread or
// system call per connection or per I/O; a stall is noticed within one clock period of the timeout.
#pragma once

#include <cstdint>

namespace skiff::nvmeof::tcp {

class StallWatch {
  public:
    explicit StallWatch(uint32_t timeout_ms) : timeout_ms_(timeout_ms) {}

    // One clock tick. `owed`: the peer owes bytes now; `reads`: the receive path's count of
    // reads that brought bytes. True once the peer owed bytes and sent none for the timeout.
    bool expired(uint64_t now_ms, bool owed, uint64_t reads) {
        if (!started_ || !owed || reads != reads_seen_) {
            started_ = true;
            reads_seen_ = reads;
            since_ms_ = now_ms;
            return false;
        }
        return timeout_ms_ != 0 && now_ms - since_ms_ >= timeout_ms_;
    }
    // How long the peer has been silent while owing bytes (valid after expired() said so).
    uint64_t silent_ms(uint64_t now_ms) const { return now_ms - since_ms_; }

  private:
    uint32_t timeout_ms_;
    bool started_ = false;
    uint64_t reads_seen_ = 0;
    uint64_t since_ms_ = 0;
};

} // namespace skiff::nvmeof::tcp
