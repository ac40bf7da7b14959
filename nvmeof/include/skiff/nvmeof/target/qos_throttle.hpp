// One queue's side of QoS: its tokens of each limited namespace (and of its host's budget on
// it), and the FIFO of requests that found too few. A request over the limit is queued here,
// never failed; the queue's poll group retries the FIFO when the tokens are due
// (PollContext::wake_at lets the group sleep until then instead of spinning).
//
// Everything here belongs to the queue's thread: the FIFO is intrusive (Request::next_throttled),
// the tokens are plain integers, and the shared buckets are touched once per chunk of tokens.
// Requests of one namespace leave in the order they came; a limited namespace never holds up
// another one's requests on the same queue.
#pragma once

#include "skiff/nvmeof/target/qos_bucket.hpp"
#include "skiff/nvmeof/target/qos_limits.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>

namespace skiff::nvmeof::target {

struct Request;
class QosBudget;

class QosThrottle {
  public:
    // Called for a request on a namespace whose QoS is active: true when it may run now (its
    // tokens are spent), false when it was queued (`now_ns`: the current time).
    bool admit(Request &req, const std::string &hostnqn, uint64_t now_ns);

    bool has_waiting() const { return head_ != nullptr; }
    // The earliest time a queued request may go; meaningful while has_waiting().
    uint64_t next_try_ns() const { return next_try_ns_; }
    // Takes every queued request whose tokens are back, in order, and returns the first of them
    // (chained through next_throttled); nullptr when none is due yet.
    Request *resume(const std::string &hostnqn, uint64_t now_ns);
    // Empties the FIFO and returns what it held (chained through next_throttled).
    Request *take_all();

  private:
    // One namespace this queue sends to with QoS on.
    struct Lane {
        uint64_t ns_uid = 0; // 0: free
        uint64_t generation = 0;
        QosBudget *host = nullptr; // this queue's host's budget on the namespace, if it has one
        std::array<QosLocalTokens, kQosBuckets> ns_tokens{}, host_tokens{};
        uint32_t waiting = 0;    // its requests in the FIFO
        uint64_t blocked_on = 0; // the resume() pass that found it short
    };
    static constexpr size_t kLanes = 8;

    Lane *lane_for(const Request &req, const std::string &hostnqn);
    bool take_tokens(Lane &lane, const Request &req, uint64_t now_ns);
    void push(Request &req, Lane *lane, uint64_t now_ns);
    void later(uint64_t at_ns) { next_try_ns_ = std::min(next_try_ns_, at_ns); }

    std::array<Lane, kLanes> lanes_{};
    Request *head_ = nullptr, *tail_ = nullptr;
    uint64_t next_try_ns_ = UINT64_MAX;
    uint64_t pass_ = 0;
};

} // namespace skiff::nvmeof::target
