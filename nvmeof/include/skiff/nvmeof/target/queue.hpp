// The target side of one queue pair (admin or I/O), independent of the transport. The
// transport owns the connection and the preallocated requests; it hands each command here:
//
//   transport fills req.cmd and req.data_len (from the SGL) -> prepare(req)    (parse)
//   if prepare() succeeded and the command carries host data -> transport fetches it
//   -> execute(req) -> backend I/O (maybe asynchronous) -> complete(req)
//   -> transport_.queue_response(req)
//
// Completions always go through TransportOps::queue_response(), possibly later (a parked
// Asynchronous Event Request completes when an event fires).
#pragma once

#include "skiff/nvmeof/target/admission.hpp"
#include "skiff/nvmeof/target/controller.hpp"
#include "skiff/nvmeof/target/io_counters.hpp"
#include "skiff/nvmeof/target/namespace_io_metrics.hpp"
#include "skiff/nvmeof/target/poll_context.hpp"
#include "skiff/nvmeof/target/port.hpp"
#include "skiff/nvmeof/target/qos_throttle.hpp"
#include "skiff/nvmeof/target/request.hpp"
#include "skiff/nvmeof/tls/psk.hpp"

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>

namespace skiff::nvmeof::target {

class Target;
class AuthSession;
class SubsystemIoMetrics;

// What the command layer needs from a transport (one table per transport, as nvmet's
// nvmet_fabrics_ops).
class TransportOps {
  public:
    virtual ~TransportOps() = default;
    // Sends the data (for kCtrlToHost on success) and the completion of req, then frees it.
    virtual void queue_response(Request &req) = 0;
    // A human readable peer name for logs ("127.0.0.1:53422").
    virtual const char *peer_name() const = 0;
    // The queue id the transport bound this connection to before any command (NVMe/RDMA: the
    // QID of the RDMA-CM private data); a Connect naming another QID fails. nullopt: none (TCP).
    virtual std::optional<uint16_t> bound_qid() const { return std::nullopt; }
    // The largest transfer this connection can move (bytes); 0: the target's limit. An admin
    // Connect gives its controller the smaller of the two as MDTS.
    virtual uint32_t max_transfer() const { return 0; }
    // Reads of at least this many bytes may complete with their data as a view of the device's
    // memory (BackendIo::view) instead of a copy in req.buf; queue_response() then holds the
    // view (HeldView) until the bytes are sent, or copies them before it returns. 0: never.
    virtual uint32_t read_view_min_bytes() const { return 0; }
    // NVMe/TCP over TLS: the PSK identity the handshake accepted. A Connect must name its host
    // NQN (and, outside discovery, its subsystem NQN): a key admits only the host it was
    // configured for. nullptr: no TLS on this connection.
    virtual const tls::PskIdentity *tls_identity() const { return nullptr; }
};

class Queue {
  public:
    Queue(Target &target, Port port, TransportOps &transport);
    ~Queue();
    Queue(const Queue &) = delete;
    Queue &operator=(const Queue &) = delete;

    // Parses req (validating it and choosing its handler). Returns false when the command
    // already failed (req's status is set): the transport then only drains in-capsule data
    // and calls complete(). data_len must hold the SGL length.
    bool prepare(Request &req);
    // For a command the transport fails before prepare() (its SGL is not one the transport
    // takes): it still took a submission queue slot (SQHD moves) and is traffic that restarts
    // the Keep Alive timer. Sets req's status; the transport then calls complete().
    void fail_before_prepare(Request &req, uint16_t status);
    // Runs a prepared command whose data (if any) is in req.buf. It may complete later, from
    // a backend completion on this queue's poll group thread.
    void execute(Request &req);
    // Finishes req: leaves the namespace's I/O gate if req entered it, fills the CQE identity
    // fields and hands it to the transport.
    void complete(Request &req);
    // Drops what req holds (its namespace pin) without completing it: transports call this for
    // requests still in flight when the connection is destroyed. complete() does it too.
    void release(Request &req);

    // The poll group that drives this queue (its loop, progress engine and backend channels).
    // The transport calls attach() on the group's thread when the group takes the connection
    // over; until then (and in unit tests) the queue uses PollContext::inline_context().
    void attach(PollContext &ctx) { ctx_ = &ctx; }
    PollContext &context() const { return *ctx_; }
    const ChannelParams &channel_params() const { return channel_params_; }
    // Backend I/O started for this queue's requests and not yet completed. The transport must
    // keep the requests (and their buffers) alive until this is 0.
    uint32_t io_in_flight() const { return io_in_flight_; }
    void io_started() { ++io_in_flight_; }
    void io_finished() { --io_in_flight_; }
    // Requests that found their namespace's I/O gate closed (a Compare and Write was running)
    // wait here; the transport retries them every loop iteration.
    void defer(Request &req);
    bool has_deferred() const { return deferred_head_ != nullptr; }
    void run_deferred();

    // Requests over their namespace's QoS limit wait here (queued, not failed). The transport
    // calls run_throttled() from its progress() every loop pass while has_throttled(): it is
    // cheap until the tokens are due, runs what may go, and true when it ran any. Meanwhile it
    // tells the poll group when to look again (PollContext::wake_at), so the group may sleep.
    bool has_throttled() const { return qos_.has_waiting(); }
    bool run_throttled();

    // Convenience for transports: prepare + execute for commands without host data.
    void submit(Request &req);

    // Called by the owning poll group about every 100 ms and on demand: delivers async
    // events, enforces keep-alive. Returns false when the queue must close.
    bool poll(uint64_t now_ms);
    // Called by the transport when the connection goes away (or on shutdown).
    void disconnect(const char *why);
    // Fabrics Disconnect: the host deletes this I/O queue. The connection stays open until the
    // host closes it, so every command the host sent on it is still answered: those held here
    // (deferred behind a Compare and Write, a fused first half without its partner) end with
    // Command Aborted due to SQ Deletion, backend I/O in flight completes as usual, and commands
    // sent after the Disconnect find no queue (Command Sequence Error, as before Connect).
    void delete_by_host();

    uint16_t qid() const { return qid_; }
    bool connected() const { return ctrl_ != nullptr; }
    bool disconnect_requested() const { return disconnect_requested_; }
    Controller *controller() const { return ctrl_.get(); }
    Target &target() const { return target_; }
    const Port &port() const { return port_; }
    uint16_t depth() const { return sqsize_ + 1u; }
    bool sq_flow_control_disabled() const { return sqflow_disabled_; }
    uint64_t now_ms() const { return now_ms_; }
    TransportOps &transport() const { return transport_; }

    // Fabrics Connect and Disconnect reach into the queue's identity.
    void bind(std::shared_ptr<Controller> ctrl, uint16_t qid, uint16_t sqsize, bool sqflow_disabled);
    // The transport closes the connection once the responses queued so far are sent.
    void request_disconnect(const char *why = "host sent Disconnect") {
        disconnect_requested_ = true;
        disconnect_reason_ = why;
    }
    const char *disconnect_reason() const { return disconnect_reason_; }

    // In-band authentication (auth_cmd.cpp): a queue whose controller has DH-HMAC-CHAP secrets
    // starts unauthenticated and serves only Authentication Send/Receive until it succeeds, or
    // until Limits::auth_timeout_ms after its Connect, when poll() closes it.
    bool authenticated() const { return authenticated_; }
    void set_authenticated() { authenticated_ = true; }
    // Monotonic ms by which the queue must have authenticated; 0: no deadline.
    uint64_t auth_deadline_ms() const { return auth_deadline_ms_; }
    // The queue's place in its host's max_queues_per_host count, taken once the host is known
    // to be who it claims (admission.hpp); given back at disconnect.
    void hold_quota(QueueTicket ticket) { quota_ = std::move(ticket); }
    bool holds_quota() const { return static_cast<bool>(quota_); }
    AuthSession *auth_session() const { return auth_.get(); }
    // The session lives as long as the queue: it remembers the last transaction id and sequence
    // number, so a replayed re-authentication is refused.
    void start_auth_session(std::unique_ptr<AuthSession> session);

    // Metrics on: commands received and not yet answered (single writer, any reader).
    uint32_t commands_in_flight() const { return commands_in_flight_.load(std::memory_order_relaxed); }

    IoCounters &io_counters() { return counters_; }
    const IoCounters &io_counters() const { return counters_; }

    // Fused Compare and Write bookkeeping.
    Request *fused_first = nullptr;

  private:
    void admit(Request &req);
    // Metrics (Target::metrics_enabled, queue_metrics.cpp): an I/O queue's block, attached to
    // its subsystem at Connect and folded into the subsystem's totals when the queue goes.
    void start_metrics();
    void stop_metrics();
    void record_metrics(Request &req);
    void drop_deferred();
    void abort_held_requests();
    // QoS (queue_qos.cpp): false when req was queued by its namespace's limits.
    bool qos_admit(Request &req);
    void record_throttled(Request &req, uint64_t now_ns);

    Target &target_;
    Port port_;
    TransportOps &transport_;
    std::shared_ptr<Controller> ctrl_;
    uint16_t qid_ = 0;
    uint16_t sqsize_ = 31;
    uint16_t sq_head_ = 0;
    bool sqflow_disabled_ = false;
    bool disconnect_requested_ = false;
    bool authenticated_ = true;
    uint64_t auth_deadline_ms_ = 0;
    QueueTicket quota_;
    const char *disconnect_reason_ = "";
    std::unique_ptr<AuthSession> auth_;
    uint64_t now_ms_ = 0;
    IoCounters counters_;
    std::unique_ptr<QueueIoMetrics> metrics_;          // null: metrics off, or not an I/O queue
    std::shared_ptr<SubsystemIoMetrics> metrics_sink_; // where metrics_ is attached
    std::atomic<uint32_t> commands_in_flight_{0};
    PollContext *ctx_ = &PollContext::inline_context();
    ChannelParams channel_params_;
    uint32_t io_in_flight_ = 0;
    Request *deferred_head_ = nullptr, *deferred_tail_ = nullptr;
    QosThrottle qos_;
};

} // namespace skiff::nvmeof::target
