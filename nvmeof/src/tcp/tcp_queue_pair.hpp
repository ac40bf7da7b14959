// Internal: one NVMe/TCP connection (queue pair). Receives with one readv per socket read: the
// current stage's bytes go straight to their destination (a header into a small buffer, data
// into the request's slot buffer) and whatever follows lands in a staging buffer from which the
// next PDUs are parsed without further system calls. Sends through a batched SendQueue.
#pragma once

#include "send_queue.hpp"
#include "stall_watch.hpp"
#include "skiff/core/log.hpp"
#include "skiff/nvmeof/target/queue.hpp"
#include "skiff/nvmeof/target/target.hpp"
#include "skiff/nvmeof/tls/tls_session.hpp"
#include "skiff/nvmeof/transport/connection.hpp"
#include "tcp_request.hpp"

#include <memory>
#include <string>
#include <vector>

namespace skiff::nvmeof::tcp {

class TcpQueuePair final : public transport::Connection, public target::TransportOps {
  public:
    TcpQueuePair(int fd, std::string peer, target::Target &target, target::Port port);
    ~TcpQueuePair() override;

    // transport::Connection
    void attach(target::PollContext &ctx) override { queue_.attach(ctx); }
    int fd() const override { return fd_; }
    const std::string &peer() const override { return peer_; }
    void on_readable() override;
    bool polls_without_events() const override { return true; }
    bool poll_receive() override {
        rx_got_ = false;
        on_readable();
        return rx_got_;
    }
    void on_writable() override {
        if (channel_ != Channel::kReady) return on_readable(); // the handshake waits to send
        flush();
    }
    bool wants_write() const override { return !sendq_.empty() || handshake_wants_write_; }
    bool progress() override;
    void poll(uint64_t now_ms) override;
    // Requests whose backend I/O is in flight keep the connection (and their buffers) alive.
    bool finished() const override { return finished_ && queue_.io_in_flight() == 0; }
    void close(const char *why) override { finish(why); }

    // target::TransportOps
    void queue_response(target::Request &req) override;
    const char *peer_name() const override { return peer_.c_str(); }
    // Reads from zero_copy_read_min up are sent straight from a RAM namespace (HeldView): the copy
    // into the request's buffer is a third of the poll group's time on 128 KiB reads. Smaller
    // reads keep the copy: it is cheap, and their views would lengthen the list every write scans.
    // With a data digest, the digest is taken when the response is queued and the bytes must not
    // change after that, so such connections always copy.
    uint32_t read_view_min_bytes() const override { return ddgst_ ? 0 : limits_.tcp_zero_copy_read_min; }
    const tls::PskIdentity *tls_identity() const override { return tls_ ? &tls_->peer() : nullptr; }

  private:
    enum class RecvState : uint8_t { kCommonHeader, kPduHeader, kPad, kData, kDataDigest, kStopped };

    // Before the first PDU on a listener with a secure channel: a TLS ClientHello or (optional
    // only) a plain ICReq, then the handshake (tcp_queue_pair_channel.cpp).
    enum class Channel : uint8_t { kDetect, kHandshake, kReady };
    bool establish(); // true once PDUs may flow
    bool detect_first_byte();
    bool run_handshake();
    ssize_t read_socket(iovec *iov, int iovcnt); // plain or through TLS

    // Receive stages.
    void expect(RecvState state, uint8_t *dst, uint32_t len);
    bool receive();       // fills the current stage; false when the socket has nothing more now
    bool receive_exact(); // before ICReq: only the current stage's bytes, no staging buffer
    void step();          // the current stage's bytes are all here
    void on_common_header();
    void on_pdu_header();
    void on_data_done();
    void expect_payload(TcpRequest *req, uint8_t *dst, uint32_t len);
    void next_pdu() { expect(RecvState::kCommonHeader, rx_hdr_, sizeof(wire::tcp::CommonHeader)); }

    // PDU handlers.
    void handle_icreq();
    void handle_capsule();
    void handle_h2c_data();
    uint16_t check_sgl(TcpRequest &req, uint32_t in_capsule_len);
    uint32_t in_capsule_limit() const;

    // Request transitions.
    TcpRequest *alloc_request();
    void free_request(TcpRequest &req);
    void after_host_data(TcpRequest &req); // all host data (or none) is here: R2T or execute
    void send_r2t(TcpRequest &req);
    void send_c2h_data(TcpRequest &req, bool success_flag, const uint8_t *data);
    void hold_view(TcpRequest &req, target::IoChannel *channel, const uint8_t *bytes);
    static void materialize_view(target::HeldView &view);
    // A queued C2HData item whose data is still its request's held view.
    static bool holds_view(const SendItem &it) { return it.kind == SendItem::kData && it.req->view.bytes; }
    void release_view(SendItem &it);
    void release_views(); // the connection ended: nothing queued will be sent
    void send_response(TcpRequest &req);
    void set_state(TcpRequest &req, TcpRequestState state);

    // Connection level.
    bool allocate_queue(); // at ICReq: request slots, their buffers, the staging buffer
    bool stalled(uint64_t now_ms);
    bool mid_pdu() const;
    void fatal(uint16_t fes, uint32_t fei, const char *what);
    void send_control(const void *data, size_t len);
    void flush();
    void finish(const char *why);
    void put_header_digest(uint8_t *pdu, uint32_t hlen) const;

    // Looked up once: the registry lookup takes a lock, which the data path must not.
    std::shared_ptr<spdlog::logger> log_ = skiff::log::get("tcp");
    int fd_;
    std::string peer_;
    target::Target &target_;
    target::Queue queue_;
    const target::Limits limits_;

    // TLS (nullptr: plain NVMe/TCP).
    Channel channel_ = Channel::kReady;
    std::unique_ptr<tls::TlsSession> tls_;
    bool handshake_wants_write_ = false;

    // Negotiated at ICReq.
    bool ic_done_ = false;
    bool hdgst_ = false, ddgst_ = false;
    uint32_t c2h_align_ = 4; // (HPDA + 1) * 4

    // Receive state: the current stage reads `rx_left_` more bytes into `rx_ptr_`.
    RecvState rx_state_ = RecvState::kCommonHeader;
    uint8_t *rx_ptr_ = nullptr;
    uint32_t rx_left_ = 0;
    alignas(8) uint8_t rx_hdr_[256];
    uint8_t rx_pad_[256];
    uint32_t rx_ddgst_ = 0;
    uint32_t rx_header_len_ = 0; // HLEN + header digest of the current PDU
    uint32_t rx_pad_len_ = 0;
    uint32_t rx_data_len_ = 0;
    TcpRequest *rx_req_ = nullptr; // whose data is arriving
    uint8_t *rx_data_ = nullptr;
    // Bytes read past the current stage (the next PDUs), consumed before the socket is read
    // again. Payload found here is copied to its slot: only bytes that arrived in the same read
    // as an earlier PDU; a payload still on the socket is read straight into its slot.
    static constexpr uint32_t kStagingBytes = 32 * 1024;
    static constexpr uint32_t kAdminInCapsuleData = 8192; // NVMe/TCP: the admin queue's, fixed
    static constexpr size_t kPreQueueSendItems = 2;       // ICResp or a C2HTermReq
    std::unique_ptr<uint8_t[]> staging_;
    uint32_t staged_pos_ = 0, staged_end_ = 0;
    bool rx_drained_ = false; // the last read emptied the socket (reset per on_readable call)
    bool rx_got_ = false;     // bytes arrived (poll_receive)
    uint64_t rx_reads_ = 0;   // reads that brought bytes: the stall timer's sign of life
    StallWatch stall_;

    // Requests and their data buffers (one mapping, max_transfer bytes per slot; ASan builds put a
    // poisoned gap after each, slot_redzones.hpp). Allocated at ICReq with the staging buffer and
    // the send ring (allocate_queue): an accepted connection that never becomes a queue costs only
    // this object.
    std::vector<TcpRequest> reqs_;
    std::vector<uint16_t> free_;
    uint8_t *buffers_ = nullptr;
    size_t buffers_len_ = 0;

    SendQueue sendq_;
    alignas(8) uint8_t ctrl_pdu_[2][sizeof(wire::tcp::TermReq) + 128 + 128];
    int ctrl_pdu_next_ = 0;
    bool responses_queued_ = false; // queued since the last flush
    bool close_when_sent_ = false;
    bool finished_ = false;
    const char *close_reason_ = "";
};

} // namespace skiff::nvmeof::tcp
