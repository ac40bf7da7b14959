// One controller: the association of a host with a subsystem, created by an admin-queue
// Connect and shared by that association's queues. Register and feature state is touched only
// from the admin queue's thread; what other queues read (readiness, liveness) is atomic.
#pragma once

#include "skiff/nvmeof/target/host_auth.hpp"
#include "skiff/nvmeof/target/limits.hpp"
#include "skiff/nvmeof/target/subsystem.hpp"

#include <array>
#include <atomic>
#include <bitset>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace skiff::nvmeof::target {

struct Request;
class Queue;

constexpr uint32_t kCcEnable = 1u << 0;
constexpr uint32_t kCcShnShift = 14;
constexpr uint32_t kCstsReady = 1u << 0;
constexpr uint32_t kCstsFatal = 1u << 1;
constexpr uint32_t kCstsShstShift = 2;
constexpr uint32_t kCstsShstComplete = 2u << kCstsShstShift;

class Controller {
  public:
    Controller(uint16_t cntlid, std::shared_ptr<Subsystem> subsystem, std::string hostnqn,
               std::array<uint8_t, 16> hostid, uint32_t kato_ms, uint16_t port_id, const Limits &limits);
    ~Controller();
    Controller(const Controller &) = delete;
    Controller &operator=(const Controller &) = delete;

    uint16_t cntlid() const { return cntlid_; }
    Subsystem &subsystem() const { return *subsystem_; }
    const std::string &hostnqn() const { return hostnqn_; }
    const std::array<uint8_t, 16> &hostid() const { return hostid_; }
    uint16_t port_id() const { return port_id_; }
    // The ANA states of this controller's subsystem as seen through its port (ana.cpp).
    const PortAna &ana() const { return *ana_; }
    const Limits &limits() const { return limits_; }
    bool is_discovery() const { return subsystem_->is_discovery(); }
    // The namespace with this id as this controller's host sees it: nullptr when there is none
    // or it is hidden from the host (namespace_visibility.hpp). Lock-free: used per I/O.
    Namespace *find_namespace(uint32_t nsid) const {
        Namespace *ns = subsystem_->find_namespace(nsid); // nullptr unless nsid is in range
        return ns && !hidden_.hidden(nsid) ? ns : nullptr;
    }
    // Written by the subsystem, under its lock (namespace_visibility.cpp).
    HiddenNamespaces &hidden_namespaces() { return hidden_; }
    // The DH-HMAC-CHAP secrets this association's queues authenticate with (set at the admin
    // Connect, before any queue is bound); nullptr: no authentication required.
    void set_auth(std::shared_ptr<const HostAuth> auth) { auth_ = std::move(auth); }
    const std::shared_ptr<const HostAuth> &auth() const { return auth_; }

    // Properties (Fabrics Property Get/Set).
    uint64_t cap() const;
    uint32_t vs() const { return 0x00010400; } // NVMe 1.4
    uint32_t cc() const { return cc_; }
    uint32_t csts() const { return csts_.load(std::memory_order_acquire); }
    // Applies a CC write, running the CC.EN -> CSTS.RDY and CC.SHN -> CSTS.SHST handshakes.
    void write_cc(uint32_t value);
    bool ready() const { return csts() & kCstsReady; }

    // Features.
    uint32_t kato_ms() const { return kato_ms_.load(std::memory_order_relaxed); }
    void set_kato_ms(uint32_t ms) { kato_ms_.store(ms, std::memory_order_relaxed); }
    // Granted I/O queue count (set on the admin thread, read by I/O Connects on any group).
    uint16_t io_queues() const { return io_queues_.load(std::memory_order_acquire); }
    void set_io_queues(uint16_t n) { io_queues_.store(n, std::memory_order_release); }
    uint32_t async_event_config = 0;
    bool volatile_write_cache = true;

    // Keep-alive: any command on any queue of the association counts as traffic.
    void touch(uint64_t now_ms) { last_activity_ms_.store(now_ms, std::memory_order_relaxed); }
    bool keep_alive_expired(uint64_t now_ms) const;

    // Teardown: once dead, every queue of the association closes.
    void kill(const char *why);
    bool dead() const { return dead_.load(std::memory_order_acquire); }

    // I/O queue ids in use (an I/O Connect claims one; disconnect releases it).
    bool claim_qid(uint16_t qid);
    void release_qid(uint16_t qid);

    // The association's live queues, for I/O statistics (control plane: takes a mutex).
    void attach_queue(Queue *q);
    void detach_queue(Queue *q); // folds the queue's counts into the subsystem's totals
    // Everything this subsystem's queues ever did, live and gone.
    IoTotals io_totals() const;
    // Per live queue: id, depth, and what it did (skiff-ctl controllers).
    struct QueueStats {
        uint16_t qid;
        uint16_t depth;
        IoTotals io;
        uint32_t commands_in_flight; // 0 unless the target exports metrics
    };
    std::vector<QueueStats> queue_stats() const;

    // Asynchronous events (admin thread only). AERs are parked until an event fires.
    bool park_aer(Request &req); // false when AERL is exceeded
    Request *take_aer();         // nullptr when none is parked
    size_t parked_aers() const { return aer_count_; }

    // Namespace change tracking for log page 04h and the namespace-attribute-changed event.
    // Returns true when an event should be raised (changes seen and the event is unmasked).
    bool collect_namespace_changes();
    // Copies the changed list (nsids in increasing order, as log page 04h lists them) and, unless
    // retain, clears it and re-arms the event.
    size_t read_changed_namespaces(uint32_t *out, size_t max, bool retain);
    bool ns_event_masked() const { return ns_event_masked_; }
    void mask_ns_event() { ns_event_masked_ = true; }

    // ANA change tracking (ana.cpp): true when a namespace's ANA state changed since the last
    // event and the ANA change notice is enabled and not masked (it is masked once raised, until
    // the host reads log page 0Ch).
    bool collect_ana_changes();
    void mask_ana_event() { ana_event_masked_ = true; }
    // The host read log page 0Ch (without RAE) when the change count was `seen`: what it read is
    // no longer news, and the notice is armed again.
    void ana_log_read(uint64_t seen) {
        ana_changes_seen_ = seen;
        ana_changes_pending_ = false;
        ana_event_masked_ = false;
    }

    // Reservation notices (reservation_cmd.cpp). A reservation command on any poll group posts
    // them (to every controller of the hosts concerned), so they sit behind their own mutex; the
    // admin thread raises the event and the host reads them from log page 80h, one per read.
    struct ResvNotice {
        uint64_t count; // Log Page Count
        uint8_t rnlpt;
        uint32_t nsid;
    };
    // Set / Get Features Reservation Notification Mask (82h): bits 1..3 of CDW11.
    void set_resv_mask(uint32_t nsid, uint8_t mask);
    uint8_t resv_mask(uint32_t nsid) const;
    // Queues a notice unless its type is masked for that namespace.
    void post_reservation_notice(uint32_t nsid, uint8_t rnlpt);
    // True when notices wait and the event is not masked (masked once raised, until log 80h is
    // read without RAE).
    bool collect_reservation_event();
    void mask_resv_event() { resv_event_masked_ = true; }
    // Discovery Log Page Change events (discovery controllers; discovery_change.cpp): true when
    // the log moved past the generation the host last read, the event is enabled (Set Features
    // Asynchronous Event Configuration bit 31) and not already sent unanswered. Taking it masks
    // the event until the host reads the log without RAE.
    bool collect_discovery_change(uint64_t generation);
    void discovery_log_read(uint64_t generation, bool retain);

    // Takes the oldest notice (count 0 when there is none) and how many remain after it.
    ResvNotice take_reservation_notice(size_t &remaining, bool retain);

  private:
    static constexpr uint16_t kMaxQid = 64;
    static constexpr size_t kMaxResvNotices = 64;

    uint16_t cntlid_;
    std::shared_ptr<Subsystem> subsystem_;
    std::string hostnqn_;
    std::array<uint8_t, 16> hostid_;
    uint16_t port_id_;
    PortAna *ana_;
    Limits limits_;
    std::shared_ptr<const HostAuth> auth_;

    uint32_t cc_ = 0;
    std::atomic<uint32_t> csts_{0};
    std::atomic<uint32_t> kato_ms_;
    std::atomic<uint16_t> io_queues_;
    std::atomic<uint64_t> last_activity_ms_{0};
    std::atomic<bool> dead_{false};
    std::array<std::atomic<bool>, kMaxQid + 1> qid_in_use_{};

    mutable std::mutex queues_mu_;
    std::array<Queue *, kMaxQid + 1> queues_{};

    std::array<Request *, 16> aers_{};
    size_t aer_count_ = 0;

    HiddenNamespaces hidden_;

    // What the host was last told (collect_namespace_changes): the nsids active for it and their
    // attribute generations, and the changed ones it has not read yet (bit nsid - 1).
    uint64_t ns_generation_seen_ = 0;
    std::bitset<kMaxNamespaces> active_ns_;
    std::array<uint64_t, kMaxNamespaces> ns_attr_seen_{}; // Namespace::attr_generation() per nsid
    std::bitset<kMaxNamespaces> changed_;
    bool ns_event_masked_ = false;

    uint64_t disc_generation_seen_ = 0;
    bool disc_event_masked_ = false;

    uint64_t ana_changes_seen_ = 0;
    bool ana_changes_pending_ = false;
    bool ana_event_masked_ = false;

    std::array<std::atomic<uint8_t>, kMaxNamespaces> resv_masks_{};
    mutable std::mutex resv_mu_;
    std::array<ResvNotice, kMaxResvNotices> resv_notices_{};
    size_t resv_head_ = 0, resv_count_ = 0;
    uint64_t resv_log_count_ = 0;
    std::atomic<bool> resv_pending_{false};
    bool resv_event_masked_ = false;
};

} // namespace skiff::nvmeof::target
