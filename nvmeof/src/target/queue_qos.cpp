// A queue's QoS: requests over their namespace's (or their host's) limit wait in the queue's
// throttle (qos_throttle.hpp) and run from the transport's progress() once their tokens are due.
// With metrics on, the time each waited is charged to its namespace (and so to its host).
#include "skiff/nvmeof/target/monotonic_clock.hpp"
#include "skiff/nvmeof/target/namespace.hpp"
#include "skiff/nvmeof/target/queue.hpp"

namespace skiff::nvmeof::target {

bool Queue::qos_admit(Request &req) {
    const uint64_t now = monotonic_ns();
    if (qos_.admit(req, ctrl_->hostnqn(), now)) {
        req.qos_admitted = true;
        return true;
    }
    ctx_->wake_at(qos_.next_try_ns());
    return false;
}

bool Queue::run_throttled() {
    if (!ctrl_) return false;
    const uint64_t now = monotonic_ns();
    Request *ready = qos_.resume(ctrl_->hostnqn(), now);
    if (qos_.has_waiting()) ctx_->wake_at(qos_.next_try_ns());
    if (!ready) return false;
    while (ready) {
        Request *next = ready->next_throttled;
        ready->next_throttled = nullptr;
        ready->qos_admitted = true;
        record_throttled(*ready, now);
        execute(*ready);
        ready = next;
    }
    return true;
}

void Queue::record_throttled(Request &req, uint64_t now_ns) {
    if (!metrics_ || !req.ns) return;
    metrics_->ns(req.ns->nsid()).record_throttled(now_ns - req.qos_since_ns);
}

} // namespace skiff::nvmeof::target
