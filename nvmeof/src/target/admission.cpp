#include "skiff/nvmeof/target/admission.hpp"

#include "skiff/core/log.hpp"
#include "skiff/nvmeof/transport/ip_address.hpp"

#include <ctime>

namespace skiff::nvmeof::target {
namespace {

constexpr uint64_t kRefusalLogPeriodMs = 1000;

uint64_t monotonic_ms() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000u + static_cast<uint64_t>(ts.tv_nsec) / 1000000u;
}

} // namespace

ConnectionTicket &ConnectionTicket::operator=(ConnectionTicket &&o) noexcept {
    if (this != &o) {
        reset();
        owner_ = o.owner_;
        host_ = std::move(o.host_);
        o.owner_ = nullptr;
    }
    return *this;
}

void ConnectionTicket::reset() {
    if (!owner_) return;
    owner_->release_connection(host_);
    owner_ = nullptr;
}

QueueTicket &QueueTicket::operator=(QueueTicket &&o) noexcept {
    if (this != &o) {
        reset();
        owner_ = o.owner_;
        hostnqn_ = std::move(o.hostnqn_);
        o.owner_ = nullptr;
    }
    return *this;
}

void QueueTicket::reset() {
    if (!owner_) return;
    owner_->release_queue(hostnqn_);
    owner_ = nullptr;
}

std::string Admission::host_of(const std::string &peer) {
    auto parts = transport::split_host_port(peer);
    return parts ? parts->host : peer;
}

ConnectionTicket Admission::admit_connection(const std::string &peer) {
    std::string host = host_of(peer);
    std::lock_guard lock(mu_);
    if (limits_.max_connections && connections_ >= limits_.max_connections) {
        ++refused_connections_;
        log_refusal("the target's connection limit (max_connections)", peer, limits_.max_connections);
        return {};
    }
    uint64_t &mine = per_host_[host];
    if (limits_.max_connections_per_host && mine >= limits_.max_connections_per_host) {
        ++refused_connections_;
        if (mine == 0) per_host_.erase(host);
        log_refusal("this address's connection limit (max_connections_per_host)", peer,
                    limits_.max_connections_per_host);
        return {};
    }
    ++mine;
    ++connections_;
    return ConnectionTicket(this, std::move(host));
}

void Admission::release_connection(const std::string &host) {
    std::lock_guard lock(mu_);
    --connections_;
    auto it = per_host_.find(host);
    if (it != per_host_.end() && --it->second == 0) per_host_.erase(it);
}

// Called with mu_ held. The first refusal logs at once; later ones at most once a period, with
// how many were refused in between.
void Admission::log_refusal(const char *reason, const std::string &peer, uint32_t limit) {
    uint64_t now = monotonic_ms();
    if (last_refusal_log_ms_ != 0 && now - last_refusal_log_ms_ < kRefusalLogPeriodMs) {
        ++refusals_unlogged_;
        return;
    }
    auto log = skiff::log::get("target");
    if (refusals_unlogged_)
        log->warn("connection from {} refused: {} of {} reached; closed after accept ({} more refused "
                  "in the last {} ms)",
                  peer, reason, limit, refusals_unlogged_, now - last_refusal_log_ms_);
    else
        log->warn("connection from {} refused: {} of {} reached; closed after accept", peer, reason, limit);
    last_refusal_log_ms_ = now;
    refusals_unlogged_ = 0;
}

bool Admission::has_queue_room(const std::string &hostnqn, const char *peer) {
    auto it = queues_.find(hostnqn);
    uint64_t mine = it == queues_.end() ? 0 : it->second;
    if (!limits_.max_queues_per_host || mine < limits_.max_queues_per_host) return true;
    ++refused_queues_;
    skiff::log::get("nvmeof")->warn("connect from {} refused: host {} already has {} queue(s), the "
                                    "limit (max_queues_per_host)",
                                    peer, hostnqn.empty() ? "(empty host NQN)" : hostnqn,
                                    limits_.max_queues_per_host);
    return false;
}

QueueTicket Admission::take_queue(const std::string &hostnqn, const char *peer) {
    std::lock_guard lock(mu_);
    if (!has_queue_room(hostnqn, peer)) return {};
    ++queues_[hostnqn];
    return QueueTicket(this, hostnqn);
}

bool Admission::queue_room(const std::string &hostnqn, const char *peer) {
    std::lock_guard lock(mu_);
    return has_queue_room(hostnqn, peer);
}

void Admission::release_queue(const std::string &hostnqn) {
    std::lock_guard lock(mu_);
    auto it = queues_.find(hostnqn);
    if (it != queues_.end() && --it->second == 0) queues_.erase(it);
}

Admission::Counts Admission::counts() const {
    std::lock_guard lock(mu_);
    Counts c;
    c.connections = connections_;
    c.connections_per_host.assign(per_host_.begin(), per_host_.end());
    c.queues_per_host.assign(queues_.begin(), queues_.end());
    c.refused_connections = refused_connections_;
    c.refused_queues = refused_queues_;
    return c;
}

} // namespace skiff::nvmeof::target
