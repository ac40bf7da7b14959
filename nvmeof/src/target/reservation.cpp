// Reservation rules: the access table, Register / Acquire / Release / Report, and the seqlock
// the data path reads (see reservation.hpp for why a seqlock).
#include "skiff/nvmeof/target/reservation.hpp"

#include "skiff/nvmeof/wire/command.hpp"

#include <nvme/types.h>

#include <cstring>

namespace skiff::nvmeof::target {
namespace {

uint16_t ok() {
    return 0;
}
uint16_t conflict() {
    return wire::Status::make(NVME_SCT_GENERIC, NVME_SC_RESERVATION_CONFLICT, true);
}
uint16_t invalid_field() {
    return wire::Status::make(NVME_SCT_GENERIC, NVME_SC_INVALID_FIELD, true);
}
uint16_t internal_error() {
    return wire::Status::make(NVME_SCT_GENERIC, NVME_SC_INTERNAL, false);
}

bool all_registrants(uint8_t rtype) {
    return rtype == NVME_RESERVATION_RTYPE_WEAR || rtype == NVME_RESERVATION_RTYPE_EAAR;
}
// Types whose registrants hear about a release (the registrants-only and all-registrants types).
bool registrants_notified(uint8_t rtype) {
    return rtype != NVME_RESERVATION_RTYPE_WE && rtype != NVME_RESERVATION_RTYPE_EA;
}

uint64_t word(const HostId &h, int i) {
    uint64_t v;
    std::memcpy(&v, h.data() + 8 * i, 8);
    return v;
}

} // namespace

bool reservation_allows(uint8_t rtype, ResvRole role, bool write) {
    if (rtype == 0 || role == ResvRole::kHolder) return true;
    bool registrant = role == ResvRole::kRegistrant;
    switch (rtype) {
    case NVME_RESERVATION_RTYPE_WE:
        return !write;
    case NVME_RESERVATION_RTYPE_EA:
        return false;
    case NVME_RESERVATION_RTYPE_WERO:
    case NVME_RESERVATION_RTYPE_WEAR:
        return registrant || !write;
    case NVME_RESERVATION_RTYPE_EARO:
    case NVME_RESERVATION_RTYPE_EAAR:
        return registrant;
    default:
        return true;
    }
}

Reservation::Registrant *Reservation::State::find(const HostId &h) {
    for (size_t i = 0; i < count; ++i)
        if (regs[i].host == h) return &regs[i];
    return nullptr;
}

bool Reservation::State::holds(const HostId &h) const {
    if (rtype == 0) return false;
    if (all_registrants(rtype)) {
        for (size_t i = 0; i < count; ++i)
            if (regs[i].host == h) return true;
        return false;
    }
    return holder == h;
}

void Reservation::State::remove(size_t i) {
    regs[i] = regs[--count];
    regs[count] = {};
}

bool Reservation::allows(const HostId &host, bool write) const {
    // No reservation: everyone may do everything (a reservation published concurrently orders
    // after this command).
    if (pub_type_.load(std::memory_order_acquire) == 0) return true;
    uint64_t h0 = word(host, 0), h1 = word(host, 1);
    for (;;) {
        uint32_t s1 = seq_.load(std::memory_order_acquire);
        if (s1 & 1) continue; // the writer is mid-update (a few stores under its mutex)
        uint8_t rtype = pub_type_.load(std::memory_order_relaxed);
        uint32_t n = pub_count_.load(std::memory_order_relaxed);
        uint32_t holder = pub_holder_.load(std::memory_order_relaxed);
        ResvRole role = ResvRole::kOther;
        for (uint32_t i = 0; i < n && i < kMaxRegistrants; ++i) {
            if (pub_hosts_[2 * i].load(std::memory_order_relaxed) == h0 &&
                pub_hosts_[2 * i + 1].load(std::memory_order_relaxed) == h1) {
                role = (all_registrants(rtype) || i == holder) ? ResvRole::kHolder : ResvRole::kRegistrant;
                break;
            }
        }
        std::atomic_thread_fence(std::memory_order_acquire);
        if (seq_.load(std::memory_order_relaxed) == s1) return reservation_allows(rtype, role, write);
    }
}

void Reservation::publish(const State &s) {
    uint32_t seq = seq_.load(std::memory_order_relaxed);
    seq_.store(seq + 1, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_release);
    uint32_t holder = kMaxRegistrants;
    for (size_t i = 0; i < s.count; ++i) {
        pub_hosts_[2 * i].store(word(s.regs[i].host, 0), std::memory_order_relaxed);
        pub_hosts_[2 * i + 1].store(word(s.regs[i].host, 1), std::memory_order_relaxed);
        if (s.rtype && s.regs[i].host == s.holder) holder = static_cast<uint32_t>(i);
    }
    pub_count_.store(static_cast<uint32_t>(s.count), std::memory_order_relaxed);
    pub_holder_.store(holder, std::memory_order_relaxed);
    pub_type_.store(s.rtype, std::memory_order_relaxed);
    seq_.store(seq + 2, std::memory_order_release);
}

uint16_t Reservation::commit(const State &next) {
    if ((next.ptpl || state_.ptpl) && !save(next)) return internal_error();
    state_ = next;
    publish(state_);
    return ok();
}

uint16_t Reservation::reg(const HostId &host, uint8_t rrega, bool iekey, uint8_t cptpl, uint64_t crkey,
                          uint64_t nrkey, ResvNotices &notices) {
    if (rrega > NVME_RESERVATION_RREGA_REPLACE_KEY || cptpl == 1) return invalid_field();
    if (cptpl == NVME_RESERVATION_CPTPL_PERSIST && !ptpl_supported()) return invalid_field();
    std::lock_guard lock(mu_);
    State next = state_;
    Registrant *r = next.find(host);
    switch (rrega) {
    case NVME_RESERVATION_RREGA_REGISTER_KEY:
        if (r) {
            // Registering again with the key it holds is harmless; another key is a conflict.
            if (r->key != nrkey) return conflict();
            break;
        }
        if (next.count == next.regs.size()) return internal_error();
        next.regs[next.count++] = {host, nrkey};
        ++next.generation;
        break;
    case NVME_RESERVATION_RREGA_UNREGISTER_KEY: {
        if (!r || (!iekey && r->key != crkey)) return conflict();
        bool held_alone = next.rtype && !all_registrants(next.rtype) && next.holder == host;
        uint8_t old = next.rtype;
        next.remove(static_cast<size_t>(r - next.regs.data()));
        if (held_alone) {
            // The holder's registration goes, so does its reservation.
            next.rtype = 0;
            next.holder = {};
            if (registrants_notified(old))
                for (size_t i = 0; i < next.count; ++i)
                    notices.add(next.regs[i].host, NVME_RESV_NOTIFY_RNLPT_RESERVATION_RELEASED);
        } else if (all_registrants(old) && next.count == 0) {
            next.rtype = 0; // the last holder of an all-registrants reservation left
        }
        ++next.generation;
        break;
    }
    case NVME_RESERVATION_RREGA_REPLACE_KEY:
        if (!r || (!iekey && r->key != crkey)) return conflict();
        r->key = nrkey;
        ++next.generation;
        break;
    }
    if (cptpl == NVME_RESERVATION_CPTPL_CLEAR) next.ptpl = false;
    if (cptpl == NVME_RESERVATION_CPTPL_PERSIST) next.ptpl = true;
    return commit(next);
}

uint16_t Reservation::acquire(const HostId &host, uint8_t racqa, bool iekey, uint8_t rtype, uint64_t crkey,
                              uint64_t prkey, ResvNotices &notices) {
    // IEKEY is not allowed on Acquire (specification: Invalid Field in Command).
    if (iekey || racqa > NVME_RESERVATION_RACQA_PREEMPT_AND_ABORT) return invalid_field();
    if (rtype < NVME_RESERVATION_RTYPE_WE || rtype > NVME_RESERVATION_RTYPE_EAAR) return invalid_field();
    std::lock_guard lock(mu_);
    State next = state_;
    Registrant *r = next.find(host);
    if (!r || r->key != crkey) return conflict();

    if (racqa == NVME_RESERVATION_RACQA_ACQUIRE) {
        if (next.rtype == 0) {
            next.rtype = rtype;
            next.holder = host;
            return commit(next);
        }
        return next.holds(host) && next.rtype == rtype ? ok() : conflict();
    }

    // Preempt (and abort): unregister other hosts registered with PRKEY and, when the
    // reservation itself is preempted, take it with the new type.
    auto unregister_prkey = [&](bool everyone_else) {
        size_t removed = 0;
        for (size_t i = 0; i < next.count;) {
            if (next.regs[i].host != host && (everyone_else || next.regs[i].key == prkey)) {
                notices.add(next.regs[i].host, NVME_RESV_NOTIFY_RNLPT_REGISTRATION_PREEMPTED);
                next.remove(i);
                ++removed;
            } else {
                ++i;
            }
        }
        return removed;
    };
    auto take = [&] {
        uint8_t old = next.rtype;
        HostId old_holder = next.holder;
        next.rtype = rtype;
        next.holder = host;
        // Registrants that stay hear that the reservation changed hands.
        for (size_t i = 0; i < next.count; ++i) {
            const HostId &h = next.regs[i].host;
            if (h != host && (registrants_notified(old) || h == old_holder))
                notices.add(h, NVME_RESV_NOTIFY_RNLPT_RESERVATION_PREEMPTED);
        }
    };

    bool holder_preempted;
    if (next.rtype == 0) {
        if (prkey == 0) return invalid_field();
        holder_preempted = false;
    } else if (all_registrants(next.rtype)) {
        holder_preempted = prkey == 0;
    } else {
        const Registrant *holder = next.find(next.holder);
        holder_preempted = holder && holder->key == prkey;
        if (!holder_preempted && prkey == 0) return invalid_field();
    }
    size_t removed = unregister_prkey(holder_preempted && prkey == 0);
    if (holder_preempted)
        take();
    else if (removed == 0)
        return conflict(); // nobody holds PRKEY
    if (removed) ++next.generation;
    // Preempt and Abort: commands of the preempted hosts complete as they run (every I/O here
    // finishes without waiting); their next ones meet the new reservation.
    return commit(next);
}

uint16_t Reservation::release(const HostId &host, uint8_t rrela, bool iekey, uint8_t rtype, uint64_t crkey,
                              ResvNotices &notices) {
    if (iekey || rrela > NVME_RESERVATION_RRELA_CLEAR) return invalid_field();
    std::lock_guard lock(mu_);
    State next = state_;
    Registrant *r = next.find(host);
    if (!r || r->key != crkey) return conflict();
    if (rrela == NVME_RESERVATION_RRELA_CLEAR) {
        for (size_t i = 0; i < next.count; ++i)
            if (next.regs[i].host != host)
                notices.add(next.regs[i].host, NVME_RESV_NOTIFY_RNLPT_RESERVATION_PREEMPTED);
        next.count = 0;
        next.regs = {};
        next.rtype = 0;
        next.holder = {};
        ++next.generation;
        return commit(next);
    }
    if (next.rtype == 0 || !next.holds(host)) return ok(); // nothing of ours to release
    if (rtype != next.rtype) return invalid_field();
    uint8_t old = next.rtype;
    next.rtype = 0;
    next.holder = {};
    if (registrants_notified(old))
        for (size_t i = 0; i < next.count; ++i)
            if (next.regs[i].host != host)
                notices.add(next.regs[i].host, NVME_RESV_NOTIFY_RNLPT_RESERVATION_RELEASED);
    return commit(next);
}

uint16_t Reservation::report(bool eds, uint8_t *out, uint32_t len) const {
    // Over fabrics every host identifier is 128 bits: only the extended structure can carry it.
    if (!eds) return wire::Status::make(NVME_SCT_GENERIC, NVME_SC_HOSTID_FORMAT, true);
    std::lock_guard lock(mu_);
    auto put = [&](uint32_t off, const void *src, uint32_t n) {
        if (off >= len) return;
        std::memcpy(out + off, src, std::min(n, len - off));
    };
    uint8_t header[64] = {};
    auto *st = reinterpret_cast<nvme_resv_status *>(header);
    st->gen = state_.generation;
    st->rtype = state_.rtype;
    uint16_t n = static_cast<uint16_t>(state_.count);
    std::memcpy(st->regctl, &n, 2);
    st->ptpls = state_.ptpl ? 1 : 0;
    put(0, header, sizeof(header));
    for (size_t i = 0; i < state_.count; ++i) {
        nvme_registered_ctrl_ext e{};
        e.cntlid = 0xFFFF; // dynamic controller model: the registration is the host's
        e.rcsts = state_.holds(state_.regs[i].host) ? 1 : 0;
        e.rkey = state_.regs[i].key;
        std::memcpy(e.hostid, state_.regs[i].host.data(), 16);
        put(static_cast<uint32_t>(sizeof(header) + i * sizeof(e)), &e, sizeof(e));
    }
    return ok();
}

bool Reservation::ptpl() const {
    std::lock_guard lock(mu_);
    return state_.ptpl;
}

uint16_t Reservation::set_ptpl(bool on) {
    if (on && !ptpl_supported()) return invalid_field();
    std::lock_guard lock(mu_);
    State next = state_;
    next.ptpl = on;
    return commit(next);
}

uint8_t Reservation::type() const {
    std::lock_guard lock(mu_);
    return state_.rtype;
}

uint32_t Reservation::generation() const {
    std::lock_guard lock(mu_);
    return state_.generation;
}

size_t Reservation::registrants() const {
    std::lock_guard lock(mu_);
    return state_.count;
}

} // namespace skiff::nvmeof::target
