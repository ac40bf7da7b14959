// One NVMe/TCP queue pair seen from the host: a TCP connection that has done the ICReq/ICResp
// exchange, plus a fixed table of command slots (CID = slot index). Commands are submitted and
// their completions polled; many can be outstanding. Nothing here allocates after connect():
// capsule headers are built in the queue's send batch (many capsules, one sendmsg), received
// PDUs are parsed in place in its receive ring (many PDUs, one recv), and C2H data is copied
// from the ring into the caller's buffer or, when it has not arrived yet, read straight into it.
//
// Not thread-safe: one thread drives a queue (the controller serialises its admin queue).
#pragma once

#include "skiff/core/status.hpp"
#include "skiff/nvmeof/host/pdu_framing.hpp"
#include "skiff/nvmeof/host/rx_stream.hpp"
#include "skiff/nvmeof/host/tcp_socket.hpp"
#include "skiff/nvmeof/tls/psk.hpp"
#include "skiff/nvmeof/host/tx_batch.hpp"
#include "skiff/nvmeof/wire/command.hpp"

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace skiff::nvmeof::host {

enum class DataDir : uint8_t { kNone, kHostToController, kControllerToHost };

struct QueueConfig {
    std::string addr = "127.0.0.1";
    uint16_t port = 4420;
    uint16_t qid = 0;
    uint16_t queue_size = 32; // SQ entries; at most queue_size - 1 commands are outstanding
    bool header_digest = false;
    bool data_digest = false;
    uint8_t hpda = 0;    // ask the controller to align C2H data at (hpda + 1) * 4
    uint32_t maxr2t = 0; // 0's based number of R2Ts the controller may have outstanding per command
    std::chrono::milliseconds timeout{10000}; // connect, and any single PDU once it has started
    // NVMe/TCP over TLS 1.3: the identity and TLS PSK to offer (tls::session_psk()); unset: plain.
    std::optional<tls::SessionPsk> tls;
};

// The outcome of one command the controller answered.
struct Completion {
    uint16_t cid = 0;
    uint64_t tag = 0; // the caller's, from submit()
    wire::Cqe cqe{};

    uint16_t status() const { return cqe.status; }
    uint8_t sct() const { return wire::Status::sct(cqe.status); }
    uint8_t sc() const { return wire::Status::sc(cqe.status); }
    bool nvme_ok() const { return (cqe.status >> 1) == 0; }
};

// What went over one queue, PDU by PDU: shows which transfer path a command took (in-capsule,
// R2T + H2CData, C2HData with SUCCESS) and whether the controller kept our alignment.
struct QueueCounters {
    uint64_t commands = 0;          // command capsules sent
    uint64_t in_capsule_writes = 0; // of those, with their data inside the capsule
    uint64_t r2ts = 0;
    uint64_t h2c_pdus = 0;
    uint64_t c2h_pdus = 0;
    uint64_t c2h_success = 0;       // commands finished by C2HData SUCCESS instead of a response capsule
    uint64_t c2h_misaligned = 0;    // C2HData whose data did not start at the HPDA alignment we asked for
    uint64_t responses = 0;         // response capsules
    uint64_t rx_reads = 0;          // receive system calls that brought bytes
    uint64_t rx_empty_reads = 0;    // receive system calls that found nothing (busy polling)
    uint64_t tx_sends = 0;          // send batches (one sendmsg each unless the socket was full)
    uint64_t staged_data_bytes = 0; // C2H data that arrived in the receive ring and was copied out
};

class TcpQueue {
  public:
    // Connects and negotiates (ICReq/ICResp). The queue then accepts commands; for NVMe it is
    // not usable until a Fabrics Connect succeeded on it (see fabrics.hpp).
    static Result<std::unique_ptr<TcpQueue>> connect(const QueueConfig &config);
    ~TcpQueue();

    uint16_t qid() const { return config_.qid; }
    const TcpParams &params() const { return params_; }
    const QueueConfig &config() const { return config_; }
    // Most commands that may be outstanding at once.
    uint32_t capacity() const { return static_cast<uint32_t>(slots_.size()); }
    uint32_t outstanding() const { return capacity() - free_count_; }

    // Host-to-controller data up to this many bytes travels inside the command capsule; larger
    // transfers wait for R2Ts. Admin queues: 8192 (every controller accepts that); I/O queues:
    // IOCCSZ * 16 - 64 from Identify Controller.
    void set_in_capsule_limit(uint32_t bytes) { in_capsule_limit_ = bytes; }
    uint32_t in_capsule_limit() const { return in_capsule_limit_; }

    // Queues one command; returns its CID. The buffer must stay valid until the command completes.
    // The queue fills in CID, PSDT and the SGL.
    // more = false sends it, with every command queued before it, in one sendmsg; more = true
    // holds it until the next submit() without more, flush() or poll().
    Result<uint16_t> submit(const wire::Sqe &sqe, DataDir dir, void *data, uint32_t len, uint64_t tag = 0,
                            bool more = false);
    // Sends whatever submit(more = true) queued.
    Status flush();

    // Sends what is queued, then handles incoming PDUs (answering R2Ts, placing C2H data) until
    // at least one command completed, or `timeout` passed (0: only what is already there, one
    // receive unless it filled the ring and nothing has completed yet). Returns how many
    // commands completed. An error means the queue is dead.
    Result<uint32_t> poll(std::chrono::milliseconds timeout);

    // The next completion of a command sent with submit(); false when there is none.
    bool pop_completion(Completion &out);

    // submit() and wait for that command (other completions are kept for pop_completion()).
    // A command that gets no answer within `timeout` fails the queue (DOCA_ERROR_TIME_OUT).
    Result<Completion> execute(const wire::Sqe &sqe, DataDir dir = DataDir::kNone, void *data = nullptr,
                               uint32_t len = 0,
                               std::chrono::milliseconds timeout = std::chrono::seconds(10));

    // A queue that hit a transport error (socket closed, TermReq, protocol violation) stays
    // failed; every later call returns that error.
    bool failed() const { return failed_; }
    const QueueCounters &counters() const { return counters_; }
    const Error &failure() const { return failure_; }
    void close();

    // Escape hatch for tests of bad input: the raw socket, bytes out, one whole PDU in.
    TcpSocket &socket() { return sock_; }
    Status send_raw(const void *data, size_t len);
    Result<std::vector<uint8_t>> recv_raw_pdu(std::chrono::milliseconds timeout);

  private:
    enum class SlotState : uint8_t { kFree, kInFlight, kDone };
    struct Slot {
        SlotState state = SlotState::kFree;
        bool sync = false; // awaited by execute(), not reported through pop_completion()
        DataDir dir = DataDir::kNone;
        uint8_t *data = nullptr;
        uint32_t len = 0;
        uint32_t received = 0; // C2H bytes placed so far
        uint64_t tag = 0;
        wire::Cqe cqe{};
    };

    explicit TcpQueue(const QueueConfig &config);
    Status handshake();

    // Receive side (tcp_queue_receive.cpp).
    // One receive (into the ring, or straight into a payload's buffer) and every PDU it completed.
    // more: the read filled all it asked for, so the socket may hold more.
    Status receive_pass(bool &more);
    Status on_header(const uint8_t *hdr);
    Status on_capsule_resp(const uint8_t *hdr);
    Status on_c2h_data(const uint8_t *hdr);
    Status on_c2h_payload_done();
    Status on_r2t(const uint8_t *hdr);
    Status on_term_req(const uint8_t *hdr);
    Status check_header_digest(const uint8_t *hdr, uint8_t hlen);
    Status take(void *dst, size_t len, Deadline deadline); // raw escape hatch: ring, then socket
    Result<Slot *> slot_for(uint16_t cid, const char *pdu_name);
    void complete(uint16_t cid, const wire::Cqe &cqe);

    // Send side: PDUs go into tx_ and leave with flush().
    Status make_room(uint32_t bytes, int iovs); // flushes when the batch is full
    void queue_data(const uint8_t *data, uint32_t len, const PduFrame &frame);
    Status queue_h2c_data(uint16_t cid, uint16_t ttag, uint32_t offset, uint32_t length);
    Status fail(Error error);
    Deadline pdu_deadline() const { return deadline_after(config_.timeout); }

    QueueConfig config_;
    TcpParams params_;
    TcpSocket sock_;
    uint32_t in_capsule_limit_ = 0;

    std::vector<Slot> slots_;
    std::vector<uint16_t> free_cids_; // stack
    uint32_t free_count_ = 0;
    std::vector<uint16_t> done_ring_; // completed async CIDs, FIFO
    uint32_t done_head_ = 0, done_count_ = 0;
    uint64_t completed_total_ = 0;

    // Receive ring: one read takes a few dozen 4 KiB reads' worth of PDUs.
    static constexpr uint32_t kRxRing = 64 * 1024;
    RxStream rx_{kRxRing};
    wire::tcp::DataPdu rx_c2h_{}; // the C2HData whose payload rx_ is placing
    TxBatch tx_;

    bool failed_ = false;
    Error failure_;
    QueueCounters counters_;
};

} // namespace skiff::nvmeof::host
