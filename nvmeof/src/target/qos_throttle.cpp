#include "skiff/nvmeof/target/qos_throttle.hpp"

#include "skiff/nvmeof/target/namespace.hpp"
#include "skiff/nvmeof/target/qos_policy.hpp"
#include "skiff/nvmeof/target/request.hpp"

#include <nvme/types.h>

#include <algorithm>

namespace skiff::nvmeof::target {
namespace {

// A queued request is looked at again at least this often, so a limit raised or cleared live
// releases it within this time even when its old rate said to wait longer.
constexpr uint64_t kMaxWaitNs = 50'000'000;
constexpr uint8_t kNoLane = 0xFF;

// What one command costs: its direction and bytes. False for commands QoS does not count
// (Flush, reservations, ...). Commands that name blocks without moving them to or from the host
// (Write Zeroes, Verify) count the bytes they cover: the device does that work.
bool cost_of(const Request &req, QosDir &dir, uint64_t &bytes) {
    const uint64_t covered = static_cast<uint64_t>(req.cmd.nlb()) << req.ns->block_shift();
    switch (req.cmd.opcode) {
    case nvme_cmd_read:
    case nvme_cmd_compare:
        dir = QosDir::kRead;
        bytes = req.data_len;
        return true;
    case nvme_cmd_verify:
        dir = QosDir::kRead;
        bytes = covered;
        return true;
    case nvme_cmd_write:
        dir = QosDir::kWrite;
        bytes = req.data_len;
        return true;
    case nvme_cmd_write_zeroes:
        dir = QosDir::kWrite;
        bytes = covered;
        return true;
    case nvme_cmd_copy:
    case nvme_cmd_dsm:
        dir = QosDir::kWrite; // one I/O each; their bytes are not the host's transfer
        bytes = 0;
        return true;
    default:
        return false;
    }
}

// Makes sure of `need` tokens in each bucket that applies (I/Os and bytes, both for rw and for
// the command's direction); false with *wait_ns when any is short. Tokens taken meanwhile stay.
bool ensure_all(std::array<QosLocalTokens, kQosBuckets> &local, QosBudget &budget, QosDir dir, uint64_t bytes,
                uint64_t now_ns, uint64_t *wait_ns) {
    const size_t idx[4] = {qos_ios_bucket(QosDir::kRw), qos_ios_bucket(dir), qos_bytes_bucket(QosDir::kRw),
                           qos_bytes_bucket(dir)};
    const uint64_t need[4] = {1, 1, bytes, bytes};
    bool ok = true;
    for (int i = 0; i < 4; ++i) {
        uint64_t wait = 0;
        if (need[i] && !local[idx[i]].ensure(budget.bucket(idx[i]), need[i], now_ns, &wait)) {
            ok = false;
            *wait_ns = std::max(*wait_ns, wait);
        }
    }
    return ok;
}

void spend_all(std::array<QosLocalTokens, kQosBuckets> &local, QosBudget &budget, QosDir dir,
               uint64_t bytes) {
    const size_t idx[4] = {qos_ios_bucket(QosDir::kRw), qos_ios_bucket(dir), qos_bytes_bucket(QosDir::kRw),
                           qos_bytes_bucket(dir)};
    const uint64_t need[4] = {1, 1, bytes, bytes};
    for (int i = 0; i < 4; ++i) {
        // A bucket without a limit keeps no tokens: nothing to spend.
        if (budget.bucket(idx[i]).rate() && local[idx[i]].tokens >= need[i]) local[idx[i]].spend(need[i]);
    }
}

} // namespace

QosThrottle::Lane *QosThrottle::lane_for(const Request &req, const std::string &hostnqn) {
    const uint64_t uid = req.ns->uid();
    const QosPolicy &policy = req.ns->qos();
    Lane *free = nullptr;
    for (Lane &l : lanes_) {
        if (l.ns_uid == uid) {
            if (l.generation != policy.generation()) {
                // Limits changed: this host may have gained or lost a budget of its own.
                QosBudget *host = policy.host_budget(hostnqn);
                if (host != l.host) l.host_tokens = {};
                l.host = host;
                l.generation = policy.generation();
            }
            return &l;
        }
        if (!free && l.waiting == 0) free = &l;
    }
    if (!free) return nullptr;
    *free = Lane{};
    free->ns_uid = uid;
    free->generation = policy.generation();
    free->host = policy.host_budget(hostnqn);
    return free;
}

bool QosThrottle::take_tokens(Lane &lane, const Request &req, uint64_t now_ns) {
    QosDir dir;
    uint64_t bytes;
    if (!cost_of(req, dir, bytes)) return true;
    QosBudget &ns_budget = req.ns->qos().budget();
    uint64_t wait = 0;
    bool ok = ensure_all(lane.ns_tokens, ns_budget, dir, bytes, now_ns, &wait);
    if (lane.host) ok &= ensure_all(lane.host_tokens, *lane.host, dir, bytes, now_ns, &wait);
    if (!ok) {
        later(now_ns + std::min(wait, kMaxWaitNs));
        return false;
    }
    spend_all(lane.ns_tokens, ns_budget, dir, bytes);
    if (lane.host) spend_all(lane.host_tokens, *lane.host, dir, bytes);
    return true;
}

bool QosThrottle::admit(Request &req, const std::string &hostnqn, uint64_t now_ns) {
    Lane *lane = lane_for(req, hostnqn);
    // Behind requests of its namespace already waiting: in order, after them.
    if (lane && lane->waiting == 0 && take_tokens(*lane, req, now_ns)) return true;
    push(req, lane, now_ns);
    return false;
}

void QosThrottle::push(Request &req, Lane *lane, uint64_t now_ns) {
    req.next_throttled = nullptr;
    req.qos_since_ns = now_ns;
    req.qos_lane = kNoLane;
    if (lane) {
        ++lane->waiting;
        req.qos_lane = static_cast<uint8_t>(lane - lanes_.data());
    } else {
        later(now_ns + kQosChunkNs); // every lane busy with waiting requests: one frees up soon
    }
    if (tail_)
        tail_->next_throttled = &req;
    else
        head_ = &req;
    tail_ = &req;
}

Request *QosThrottle::resume(const std::string &hostnqn, uint64_t now_ns) {
    if (now_ns < next_try_ns_) return nullptr;
    next_try_ns_ = UINT64_MAX;
    ++pass_;
    Request *ready = nullptr, *ready_tail = nullptr, *prev = nullptr;
    for (Request *r = head_; r;) {
        Request *next = r->next_throttled;
        if (r->qos_lane == kNoLane) {
            if (Lane *l = lane_for(*r, hostnqn)) {
                ++l->waiting;
                r->qos_lane = static_cast<uint8_t>(l - lanes_.data());
            }
        }
        Lane *lane = r->qos_lane == kNoLane ? nullptr : &lanes_[r->qos_lane];
        bool go = lane && lane->blocked_on != pass_ && take_tokens(*lane, *r, now_ns);
        if (!go) {
            if (lane)
                lane->blocked_on = pass_; // later requests of its namespace wait behind it
            else
                later(now_ns + kQosChunkNs);
            prev = r;
            r = next;
            continue;
        }
        // Unlink r and hand it out.
        (prev ? prev->next_throttled : head_) = next;
        if (tail_ == r) tail_ = prev;
        --lane->waiting;
        r->next_throttled = nullptr;
        (ready_tail ? ready_tail->next_throttled : ready) = r;
        ready_tail = r;
        r = next;
    }
    if (head_ && next_try_ns_ == UINT64_MAX) later(now_ns + kQosChunkNs);
    return ready;
}

Request *QosThrottle::take_all() {
    Request *all = head_;
    head_ = tail_ = nullptr;
    next_try_ns_ = UINT64_MAX;
    for (Lane &l : lanes_) l.waiting = 0;
    return all;
}

} // namespace skiff::nvmeof::target
