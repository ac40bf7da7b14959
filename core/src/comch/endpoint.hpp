// What the server and the client have in common: a doca_ctx with send tasks, a receive callback,
// connections over SOCK_SEQPACKET sockets watched by one epoll set, and the frames between them.
// Everything runs on the progress engine's thread: execute() writes to the socket at once; a
// full socket keeps the task queued and progress retries it; received frames are turned into
// events one per progress call. No thread, no allocation after start.
#pragma once

#include "comch/limits.hpp"
#include "comch/wire.hpp"
#include "exec/context.hpp"
#include "exec/task.hpp"

#include <doca_comch.h>
#include <skiff/core/comch_trust.hpp>
#include <skiff/core/log.hpp>

#include <cstdint>
#include <string>
#include <vector>

struct doca_dev;
struct msghdr;
struct doca_comch_server;
struct doca_comch_client;

struct doca_comch_connection {
    enum class State : uint8_t { free, handshaking, connected };

    doca_comch_server *server = nullptr; // exactly one of server / client is set
    doca_comch_client *client = nullptr;
    State state = State::free;
    int fd = -1;
    skiff::core::comch::PeerCredentials peer; // SO_PEERCRED of the other end, checked when it connected
    uint32_t max_msg_size = 0;                // the smaller of both ends' limits, known after the handshake
    doca_data user_data{};
    uint64_t live[5]{};     // counters by doca_comch_counter, updated as frames pass
    uint64_t snapshot[5]{}; // as of doca_comch_connection_update_info
};

struct doca_comch_task_send : doca_task {
    doca_comch_connection *peer = nullptr;
    const void *msg = nullptr;
    uint32_t len = 0;
    doca_comch_task_send *next_queued = nullptr; // waiting for socket space
};

namespace skiff::core::comch {

class Endpoint : public doca_ctx {
  public:
    Endpoint(const char *type_name, doca_dev *dev, std::string name);
    ~Endpoint() override;

    doca_dev *dev() const { return dev_; }
    const std::string &name() const { return name_; }

    // ---- configuration (IDLE only)
    doca_error_t set_max_msg_size(uint32_t size);
    uint32_t max_msg_size() const { return max_msg_size_; }
    doca_error_t set_recv_queue_size(uint32_t size);
    uint32_t recv_queue_size() const { return recv_queue_size_; }
    doca_error_t set_send_conf(doca_comch_task_send_completion_cb_t ok,
                               doca_comch_task_send_completion_cb_t err, uint32_t num_tasks);
    doca_error_t set_recv_cb(doca_comch_event_msg_recv_cb_t cb);
    doca_error_t set_consumer_cbs(doca_comch_event_consumer_cb_t created,
                                  doca_comch_event_consumer_cb_t expired);

    // A send task for `peer` (which must be one of this ctx's connected connections).
    doca_error_t alloc_send(doca_comch_connection *peer, const void *msg, uint32_t len,
                            doca_comch_task_send **out);

    // True if conn is a connection slot of this endpoint.
    virtual bool owns(const doca_comch_connection *conn) const = 0;

  protected:
    // ---- doca_ctx hooks shared by both ends
    doca_error_t on_start() override;
    void on_stop_requested() override;
    void on_stopped() override;
    doca_error_t validate(const doca_task *task) const override;
    bool delivered_to_peer(const doca_task *task) const override;
    void execute(doca_task *task) override;
    doca_task *poll_completion() override;
    bool completions_pending() const override;
    bool deliver_event() override;
    bool events_pending() const override;

    // ---- for the server and the client
    // Opens the endpoint's socket(s): listen (server) or nothing yet (client).
    virtual doca_error_t open_transport() = 0;
    // Something on the epoll set: the listener (conn == nullptr) or a connection. True if an event
    // was delivered or work done.
    virtual bool on_readable(doca_comch_connection *conn) = 0;
    // Work to do when the epoll set is quiet (the client's connection attempts). True if done.
    virtual bool on_idle() { return false; }
    // Closes every socket of the endpoint.
    virtual void close_transport() = 0;

    // Watches fd for input, tagged with conn (nullptr: the listener).
    bool watch(int fd, doca_comch_connection *conn);
    int epoll_fd() const { return epoll_fd_; }

  public:
    // Sends one frame (header + optional payload); 0, or an errno (EAGAIN when the socket is full).
    // Public for the data path: a consumer announces itself on its connection's socket.
    static int send_frame(int fd, const FrameHeader &header, const void *payload, uint32_t len);

  protected:
    // Reads one frame into the receive buffer: its payload length (0 for handshake frames), or one
    // of the negative outcomes below.
    static constexpr int64_t kNothing = -1; // nothing to read
    static constexpr int64_t kBroken = -2;  // the peer closed or died, or sent a malformed frame
    int64_t recv_frame(doca_comch_connection *conn, FrameHeader &header);
    uint8_t *payload() { return recv_buf_.data() + sizeof(FrameHeader); }
    // Hands a data frame to the receive callback.
    void deliver_message(doca_comch_connection *conn, uint32_t len);
    // A frame other than data on a connected connection: consumer_new / consumer_expired raise the
    // new- or expired-consumer callback, export_files files the export's descriptors for an import
    // (export_files.hpp); other types are logged and ignored.
    void deliver_control_frame(doca_comch_connection *conn, const FrameHeader &header, uint32_t len);
    // Closes conn's socket, fails its queued sends with NOT_CONNECTED and frees the slot.
    void drop_connection(doca_comch_connection *conn);
    // Socket buffer sizes that hold recv_queue_size messages.
    void size_socket_buffers(int fd) const;

  private:
    void deliver_consumer_event(doca_comch_connection *conn, const FrameHeader &header);
    void take_received_fds(const msghdr &msg);
    void close_received_fds();
    void close_epoll();
    void complete(doca_comch_task_send *task, doca_error_t status);
    bool flush_queued_sends();
    void fail_queued(doca_comch_connection *conn, doca_error_t status);

    doca_dev *dev_;
    std::string name_;
    uint32_t max_msg_size_ = kMaxMsgSize;
    uint32_t recv_queue_size_ = kDefaultRecvQueueSize;
    doca_comch_event_msg_recv_cb_t recv_cb_ = nullptr;
    doca_comch_event_consumer_cb_t consumer_created_cb_ = nullptr;
    doca_comch_event_consumer_cb_t consumer_expired_cb_ = nullptr;
    TypedTaskKind<doca_comch_task_send> send_kind_{"send"};
    int epoll_fd_ = -1;
    std::vector<uint8_t> recv_buf_;
    // Descriptors that came with the last frame read (SCM_RIGHTS); only export_files keeps them.
    int received_fds_[kMaxFrameFds] = {-1, -1, -1};
    int received_fd_count_ = 0;
    // Finished sends waiting for delivery (a ring sized to the task pool) and sends waiting for
    // socket space (an intrusive FIFO, so a connection's messages keep their order).
    std::vector<doca_task *> done_;
    size_t done_head_ = 0;
    size_t done_count_ = 0;
    doca_comch_task_send *queued_head_ = nullptr;
    doca_comch_task_send *queued_tail_ = nullptr;
};

spdlog::logger &logger();

} // namespace skiff::core::comch
