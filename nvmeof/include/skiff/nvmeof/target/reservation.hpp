// NVMe Reservations of one namespace (NVMe Base Specification, "Reservations"): who is
// registered with which key, who holds which type of reservation, and the access rule every
// I/O is checked against. Registrations belong to hosts (Connect's 128-bit HOSTID), so every
// controller of one host shares its host's registration.
//
// Threads. Controllers of one namespace run on different poll groups (and DPA threads), and the
// access check runs on every I/O, so it may take no lock. The rare reservation commands
// serialize on a per-namespace mutex and publish the outcome into a fixed-size seqlock
// (sequence odd while the single writer rewrites it, readers retry when it moved). Chosen over
// an RCU-style snapshot pointer because the published state is small and bounded (type, holder,
// at most kMaxRegistrants host ids): a seqlock needs no allocation and no reclamation, so nothing
// has to wait out a grace period on every poll group and DPA execution unit. While no
// reservation is held (the common case) the check is one acquire load of the type.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>

namespace skiff::nvmeof::target {

using HostId = std::array<uint8_t, 16>;

// Registered hosts per namespace; a Register beyond it fails (Internal Error, no state change).
constexpr size_t kMaxRegistrants = 32;

// Who the commanding host is to the reservation.
enum class ResvRole : uint8_t { kHolder, kRegistrant, kOther };

// The specification's table "Command Behavior in the Presence of a Reservation": may a host in
// `role` read (write = false) or write under a reservation of `rtype` (1..6; 0 = none)? For the
// all-registrants types every registrant is a holder.
bool reservation_allows(uint8_t rtype, ResvRole role, bool write);

// Hosts to tell about a change: Reservation Notification log page types (nvme_resv_notify_rnlpt).
struct ResvNotices {
    struct Notice {
        HostId host;
        uint8_t rnlpt;
    };
    std::array<Notice, kMaxRegistrants> list{};
    size_t count = 0;
    void add(const HostId &host, uint8_t rnlpt) {
        if (count < list.size()) list[count++] = {host, rnlpt};
    }
};

class Reservation {
  public:
    // Data path, lock-free: may this host read (write = false) or write now?
    bool allows(const HostId &host, bool write) const;

    // Reservation Register / Acquire / Release (CDW10 fields and the command's data, decoded).
    // Each returns the completion status (wire::Status layout, 0 = success) and fills `notices`
    // with the other hosts that must hear about it.
    uint16_t reg(const HostId &host, uint8_t rrega, bool iekey, uint8_t cptpl, uint64_t crkey, uint64_t nrkey,
                 ResvNotices &notices);
    uint16_t acquire(const HostId &host, uint8_t racqa, bool iekey, uint8_t rtype, uint64_t crkey,
                     uint64_t prkey, ResvNotices &notices);
    uint16_t release(const HostId &host, uint8_t rrela, bool iekey, uint8_t rtype, uint64_t crkey,
                     ResvNotices &notices);
    // Reservation Report: the Reservation Status (extended when eds) into out[0, len); the rest
    // of the window is left as it was (the caller zeroes it). Returns the status.
    uint16_t report(bool eds, uint8_t *out, uint32_t len) const;

    // Persist Through Power Loss (reservation_store.cpp). `path` empty: PTPL unsupported.
    // Loads the state a previous run left there (when it was written with PTPL on); returns an
    // error message naming the file and what is wrong, empty on success.
    std::string attach_store(const std::string &path);
    bool ptpl_supported() const { return !store_path_.empty(); }
    bool ptpl() const;
    // Set Features Reservation Persistence (83h): returns the status.
    uint16_t set_ptpl(bool on);

    // Introspection for tests and logs.
    uint8_t type() const;
    uint32_t generation() const;
    size_t registrants() const;

  private:
    struct Registrant {
        HostId host{};
        uint64_t key = 0;
    };
    struct State {
        std::array<Registrant, kMaxRegistrants> regs{};
        size_t count = 0;
        uint8_t rtype = 0; // 0: no reservation
        HostId holder{};   // meaningful for the single-holder types
        uint32_t generation = 0;
        bool ptpl = false;

        Registrant *find(const HostId &h);
        bool holds(const HostId &h) const; // holder, or any registrant for the all-registrants types
        void remove(size_t i);
    };

    // Takes `next` as the state: persists it first when PTPL is (or was) on; on a write failure
    // nothing changes and the command fails with Internal Error. Caller holds mu_.
    uint16_t commit(const State &next);
    void publish(const State &s);
    bool save(const State &s) const; // reservation_store.cpp

    mutable std::mutex mu_;
    State state_;
    std::string store_path_;

    // The published copy the data path reads (seqlock; written under mu_ only).
    std::atomic<uint32_t> seq_{0};
    std::atomic<uint8_t> pub_type_{0};
    std::atomic<uint32_t> pub_count_{0};
    std::atomic<uint32_t> pub_holder_{0}; // index into pub_hosts_ of the holder (single-holder types)
    std::array<std::atomic<uint64_t>, 2 * kMaxRegistrants> pub_hosts_{};
};

} // namespace skiff::nvmeof::target
