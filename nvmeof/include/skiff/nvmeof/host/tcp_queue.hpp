// One NVMe/TCP queue pair seen from the host: a TCP connection that has done the ICReq/ICResp
// exchange, plus a fixed table of command slots (CID = slot index). Commands are submitted and
// their completions polled; many can be outstanding. Nothing here allocates after connect():
// capsule headers are built in a preallocated scratch buffer and data moves straight between
// the caller's buffer and the socket.
//
// Not thread-safe: one thread drives a queue (the controller serialises its admin queue).
#pragma once

#include "skiff/core/status.hpp"
#include "skiff/nvmeof/host/pdu_framing.hpp"
#include "skiff/nvmeof/host/tcp_socket.hpp"
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
    uint64_t staged_data_bytes = 0; // C2H data that arrived in the staging buffer and was copied out
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

    // Sends one command; returns its CID. The buffer must stay valid until the command completes.
    // The queue fills in CID, PSDT and the SGL.
    // more = true: another submit() follows at once, let the kernel batch the capsules (the last
    // submit of a batch must pass false, or its capsule waits for the kernel's cork timer).
    Result<uint16_t> submit(const wire::Sqe &sqe, DataDir dir, void *data, uint32_t len, uint64_t tag = 0,
                            bool more = false);

    // Handles incoming PDUs (answering R2Ts, placing C2H data) until at least one command
    // completed and nothing more is waiting, or `timeout` passed (0: only what is already there).
    // Returns how many commands completed. An error means the queue is dead.
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
    // Largest header a host receives after the ICResp (24 bytes) plus its digest.
    static constexpr size_t kRxHeaderMax = 24 + 4;
    Status receive_one_pdu(uint8_t *hdr, size_t have);
    // Receive staging: one non-blocking read takes as many small PDUs (responses, R2Ts, data
    // headers) as are waiting; payloads go straight into the command's buffer, except the few
    // bytes of one that arrived in the same read as its header (at most kRxStage, copied out).
    static constexpr uint32_t kRxStage = 512;
    uint32_t staged() const { return rx_tail_ - rx_head_; }
    Result<size_t> fill_stage();
    // Fills dst / the iovecs from the stage, then from the socket; with read_ahead, the socket
    // read also fills the (empty) stage with what follows, saving the next header's system call.
    Status take(void *dst, size_t len, Deadline deadline);
    Status take(iovec *iov, int iovcnt, Deadline deadline, bool read_ahead);
    Status on_capsule_resp(const uint8_t *hdr);
    Status on_c2h_data(const uint8_t *hdr);
    Status on_r2t(const uint8_t *hdr);
    Status on_term_req(const uint8_t *hdr);
    Status check_header_digest(const uint8_t *hdr, uint8_t hlen);
    Result<Slot *> slot_for(uint16_t cid, const char *pdu_name);
    void complete(uint16_t cid, const wire::Cqe &cqe);

    Status send_pdu(uint32_t header_bytes, const uint8_t *data, uint32_t data_len, const PduFrame &frame,
                    bool more = false);
    Status send_h2c_data(uint16_t cid, uint16_t ttag, uint32_t offset, uint32_t length);
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

    // Outgoing header + header digest + padding; sends are synchronous, so one is enough.
    alignas(64) uint8_t tx_[256]{};
    uint32_t tx_ddgst_ = 0;
    uint8_t rx_skip_[256]{}; // padding of incoming data PDUs lands here
    alignas(8) uint8_t rx_stage_[kRxStage]{};
    uint32_t rx_head_ = 0, rx_tail_ = 0; // unread staged bytes are [rx_head_, rx_tail_)

    bool failed_ = false;
    Error failure_;
    QueueCounters counters_;
};

} // namespace skiff::nvmeof::host
