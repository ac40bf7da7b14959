#include "skiff/nvmeof/target/controller.hpp"
#include "ana.hpp"

#include <algorithm>

#include "skiff/core/log.hpp"
#include "skiff/nvmeof/target/queue.hpp"
#include "skiff/nvmeof/target/request.hpp"

namespace skiff::nvmeof::target {

Controller::Controller(uint16_t cntlid, std::shared_ptr<Subsystem> subsystem, std::string hostnqn,
                       std::array<uint8_t, 16> hostid, uint32_t kato_ms, uint16_t port_id,
                       const Limits &limits)
    : cntlid_(cntlid), subsystem_(std::move(subsystem)), hostnqn_(std::move(hostnqn)), hostid_(hostid),
      port_id_(port_id), ana_(&subsystem_->port_ana(port_id)), limits_(limits), kato_ms_(kato_ms),
      io_queues_(limits.max_io_queues) {
    // First, so that the host's hidden namespaces are set before anything reads them (every
    // member is constructed by now; the body only fills in values).
    subsystem_->attach_controller(this);
    // Namespaces present at association time are not "changed".
    ns_generation_seen_ = subsystem_->namespace_generation();
    for (uint32_t nsid = 1; nsid <= kMaxNamespaces; ++nsid)
        if (const Namespace *ns = find_namespace(nsid)) {
            active_ns_.set(nsid - 1);
            ns_attr_seen_[nsid - 1] = ns->attr_generation();
        }
    // Likewise ANA states as they are now: the host reads them at connect.
    ana_changes_seen_ = detail::ana_change_count(*this);
}

Controller::~Controller() {
    subsystem_->detach_controller(this);
}

uint64_t Controller::cap() const {
    uint64_t mqes = static_cast<uint64_t>(limits_.max_queue_depth - 1);
    uint64_t cqr = 1ull << 16;        // contiguous queues required
    uint64_t to = 15ull << 24;        // ready timeout: 7.5 s in 500 ms units
    uint64_t css_nvm = 1ull << 37;    // NVM command set
    return mqes | cqr | to | css_nvm; // MPSMIN = MPSMAX = 0 (4 KiB)
}

void Controller::write_cc(uint32_t value) {
    uint32_t old = cc_;
    cc_ = value;
    uint32_t csts = csts_.load();
    bool en = value & kCcEnable, was_en = old & kCcEnable;
    uint32_t shn = (value >> kCcShnShift) & 0x3;
    if (en && !was_en) {
        csts |= kCstsReady;
        csts &= ~(0x3u << kCstsShstShift);
    } else if (!en && was_en) {
        csts &= ~kCstsReady;
    }
    if (shn && !((old >> kCcShnShift) & 0x3)) {
        // Nothing is cached: a shutdown completes at once.
        csts = (csts & ~(0x3u << kCstsShstShift)) | kCstsShstComplete;
    } else if (!shn) {
        csts &= ~(0x3u << kCstsShstShift);
    }
    csts_.store(csts, std::memory_order_release);
}

bool Controller::keep_alive_expired(uint64_t now_ms) const {
    uint32_t kato = kato_ms();
    if (kato == 0) return false;
    uint64_t last = last_activity_ms_.load(std::memory_order_relaxed);
    return now_ms > last && now_ms - last > kato;
}

void Controller::kill(const char *why) {
    if (dead_.exchange(true)) return;
    csts_.fetch_or(kCstsFatal);
    skiff::log::get("nvmeof")->info("controller {} of {} (host {}) torn down: {}", cntlid_, subsystem_->nqn(),
                                    hostnqn_, why);
}

bool Controller::claim_qid(uint16_t qid) {
    if (qid == 0 || qid > kMaxQid) return false;
    return !qid_in_use_[qid].exchange(true);
}

void Controller::release_qid(uint16_t qid) {
    if (qid > 0 && qid <= kMaxQid) qid_in_use_[qid].store(false);
}

void Controller::attach_queue(Queue *q) {
    std::lock_guard lock(queues_mu_);
    for (auto &slot : queues_)
        if (!slot) {
            slot = q;
            return;
        }
}

void Controller::detach_queue(Queue *q) {
    std::lock_guard lock(queues_mu_);
    for (auto &slot : queues_)
        if (slot == q) {
            slot = nullptr;
            subsystem_->retired_io().add(q->io_counters().totals());
        }
}

IoTotals Controller::io_totals() const {
    IoTotals sum = subsystem_->retired_io().totals();
    std::lock_guard lock(queues_mu_);
    for (Queue *q : queues_)
        if (q) sum += q->io_counters().totals();
    return sum;
}

std::vector<Controller::QueueStats> Controller::queue_stats() const {
    std::lock_guard lock(queues_mu_);
    std::vector<QueueStats> out;
    for (Queue *q : queues_)
        if (q) out.push_back({q->qid(), q->depth(), q->io_counters().totals(), q->commands_in_flight()});
    std::sort(out.begin(), out.end(), [](auto &a, auto &b) { return a.qid < b.qid; });
    return out;
}

bool Controller::park_aer(Request &req) {
    if (aer_count_ >= limits_.aer_limit || aer_count_ >= aers_.size()) return false;
    aers_[aer_count_++] = &req;
    return true;
}

Request *Controller::take_aer() {
    if (aer_count_ == 0) return nullptr;
    Request *req = aers_[0];
    for (size_t i = 1; i < aer_count_; ++i) aers_[i - 1] = aers_[i];
    --aer_count_;
    return req;
}

bool Controller::collect_namespace_changes() {
    uint64_t gen = subsystem_->namespace_generation();
    if (gen != ns_generation_seen_) {
        ns_generation_seen_ = gen;
        // A namespace that appeared or went away for this host (added, removed, shown, hidden),
        // or is still there with other attributes (a new size), is changed. 1024 nsids, once per
        // change of the subsystem, on the admin queue's timer.
        for (uint32_t nsid = 1; nsid <= kMaxNamespaces; ++nsid) {
            const uint32_t i = nsid - 1;
            const Namespace *ns = find_namespace(nsid);
            bool changed = bool(ns) != active_ns_[i];
            if (ns) {
                changed |= active_ns_[i] && ns->attr_generation() != ns_attr_seen_[i];
                ns_attr_seen_[i] = ns->attr_generation();
            }
            active_ns_[i] = bool(ns);
            // Every nsid fits: the page has room for all 1024, so it never overflows to FFFFFFFFh.
            if (changed) changed_.set(i);
        }
    }
    constexpr uint32_t kAecNamespaceAttr = 1u << 8;
    return changed_.any() && !ns_event_masked_ && (async_event_config & kAecNamespaceAttr);
}

size_t Controller::read_changed_namespaces(uint32_t *out, size_t max, bool retain) {
    size_t n = 0;
    for (uint32_t i = 0; i < kMaxNamespaces && n < max; ++i)
        if (changed_[i]) out[n++] = i + 1;
    if (!retain) {
        changed_.reset();
        ns_event_masked_ = false;
    }
    return n;
}

void Controller::set_resv_mask(uint32_t nsid, uint8_t mask) {
    if (nsid >= 1 && nsid <= kMaxNamespaces) resv_masks_[nsid - 1].store(mask, std::memory_order_relaxed);
}

uint8_t Controller::resv_mask(uint32_t nsid) const {
    if (nsid < 1 || nsid > kMaxNamespaces) return 0;
    return resv_masks_[nsid - 1].load(std::memory_order_relaxed);
}

void Controller::post_reservation_notice(uint32_t nsid, uint8_t rnlpt) {
    if (resv_mask(nsid) & (1u << rnlpt)) return;
    std::lock_guard lock(resv_mu_);
    // The count goes up by one per notice and skips 0; a notice pushed out by a full queue
    // shows as a gap in the counts the host reads.
    if (++resv_log_count_ == 0) resv_log_count_ = 1;
    if (resv_count_ == kMaxResvNotices) {
        resv_head_ = (resv_head_ + 1) % kMaxResvNotices;
        --resv_count_;
    }
    resv_notices_[(resv_head_ + resv_count_++) % kMaxResvNotices] = {resv_log_count_, rnlpt, nsid};
    resv_pending_.store(true, std::memory_order_release);
}

bool Controller::collect_reservation_event() {
    return !resv_event_masked_ && resv_pending_.load(std::memory_order_acquire);
}

Controller::ResvNotice Controller::take_reservation_notice(size_t &remaining, bool retain) {
    std::lock_guard lock(resv_mu_);
    ResvNotice n{};
    if (resv_count_) {
        n = resv_notices_[resv_head_];
        resv_head_ = (resv_head_ + 1) % kMaxResvNotices;
        --resv_count_;
    }
    remaining = resv_count_;
    if (!retain) {
        resv_event_masked_ = false;
        resv_pending_.store(resv_count_ > 0, std::memory_order_release);
    }
    return n;
}

} // namespace skiff::nvmeof::target
