#include "comch/endpoint.hpp"

#include "comch/export_files.hpp"
#include "exec/progress_engine.hpp"

#include <skiff/core/log.hpp>

#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace skiff::core::comch {

spdlog::logger &logger() {
    static auto log = skiff::log::get("comch");
    return *log;
}

Endpoint::Endpoint(const char *type_name, doca_dev *dev, std::string name)
    : doca_ctx(type_name), dev_(dev), name_(std::move(name)) {
    register_task_kind(&send_kind_);
}

Endpoint::~Endpoint() {
    close_epoll();
}

// The ctx's epoll set leaves the PE's notification set, then closes.
void Endpoint::close_epoll() {
    if (epoll_fd_ < 0) return;
    if (pe() != nullptr) pe()->unwatch(epoll_fd_);
    ::close(epoll_fd_);
    epoll_fd_ = -1;
}

// ---- configuration

doca_error_t Endpoint::set_max_msg_size(uint32_t size) {
    if (state() != DOCA_CTX_STATE_IDLE) return DOCA_ERROR_BAD_STATE;
    if (size == 0 || size > kMaxMsgSize) {
        logger().error("{}: max message size {} is out of range; 1..{} (doca_comch_cap_get_max_msg_size)",
                       type_name(), size, kMaxMsgSize);
        return DOCA_ERROR_INVALID_VALUE;
    }
    max_msg_size_ = size;
    return DOCA_SUCCESS;
}

doca_error_t Endpoint::set_recv_queue_size(uint32_t size) {
    if (state() != DOCA_CTX_STATE_IDLE) return DOCA_ERROR_BAD_STATE;
    if (size == 0 || size > kMaxRecvQueueSize) {
        logger().error(
            "{}: receive queue size {} is out of range; 1..{} (doca_comch_cap_get_max_recv_queue_size)",
            type_name(), size, kMaxRecvQueueSize);
        return DOCA_ERROR_INVALID_VALUE;
    }
    recv_queue_size_ = size;
    return DOCA_SUCCESS;
}

doca_error_t Endpoint::set_send_conf(doca_comch_task_send_completion_cb_t ok,
                                     doca_comch_task_send_completion_cb_t err, uint32_t num_tasks) {
    if (state() != DOCA_CTX_STATE_IDLE) return DOCA_ERROR_BAD_STATE;
    if (ok == nullptr || err == nullptr || num_tasks == 0 || num_tasks > kMaxSendTasks) {
        logger().error("{}: send task conf needs both callbacks and 1..{} tasks (got {})", type_name(),
                       kMaxSendTasks, num_tasks);
        return DOCA_ERROR_INVALID_VALUE;
    }
    send_kind_.configure(ok, err, num_tasks);
    return DOCA_SUCCESS;
}

doca_error_t Endpoint::set_recv_cb(doca_comch_event_msg_recv_cb_t cb) {
    if (state() != DOCA_CTX_STATE_IDLE) return DOCA_ERROR_BAD_STATE;
    if (cb == nullptr) return DOCA_ERROR_INVALID_VALUE;
    recv_cb_ = cb;
    return DOCA_SUCCESS;
}

doca_error_t Endpoint::set_consumer_cbs(doca_comch_event_consumer_cb_t created,
                                        doca_comch_event_consumer_cb_t expired) {
    if (state() != DOCA_CTX_STATE_IDLE) return DOCA_ERROR_BAD_STATE;
    if (created == nullptr || expired == nullptr) return DOCA_ERROR_INVALID_VALUE;
    consumer_created_cb_ = created;
    consumer_expired_cb_ = expired;
    return DOCA_SUCCESS;
}

// ---- tasks

doca_error_t Endpoint::alloc_send(doca_comch_connection *peer, const void *msg, uint32_t len,
                                  doca_comch_task_send **out) {
    if (peer == nullptr || msg == nullptr || out == nullptr || len == 0) return DOCA_ERROR_INVALID_VALUE;
    if (!owns(peer)) {
        logger().error("{}: send to a connection of another comch ctx", type_name());
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (peer->state != doca_comch_connection::State::connected) {
        logger().error("{}: send on a connection that is not connected (it went away?)", type_name());
        return DOCA_ERROR_NOT_CONNECTED;
    }
    if (len > peer->max_msg_size) {
        logger().error("{}: message of {} bytes is above the connection's max message size {}", type_name(),
                       len, peer->max_msg_size);
        return DOCA_ERROR_INVALID_VALUE;
    }
    doca_task *task = nullptr;
    if (doca_error_t err = allocate(send_kind_, &task, doca_data{}); err != DOCA_SUCCESS) return err;
    auto *send = static_cast<doca_comch_task_send *>(task);
    send->peer = peer;
    send->msg = msg;
    send->len = len;
    send->next_queued = nullptr;
    *out = send;
    return DOCA_SUCCESS;
}

doca_error_t Endpoint::validate(const doca_task *task) const {
    const auto *send = static_cast<const doca_comch_task_send *>(task);
    if (send->peer == nullptr || send->msg == nullptr || send->len == 0) return DOCA_ERROR_INVALID_VALUE;
    if (send->len > send->peer->max_msg_size) return DOCA_ERROR_INVALID_VALUE;
    return DOCA_SUCCESS;
}

// A send completes with success only once its frame is in the peer's socket: the peer has it.
bool Endpoint::delivered_to_peer(const doca_task *task) const {
    return task->kind == &send_kind_;
}

void Endpoint::execute(doca_task *task) {
    auto *send = static_cast<doca_comch_task_send *>(task);
    doca_comch_connection *peer = send->peer;
    if (peer->state != doca_comch_connection::State::connected) {
        complete(send, DOCA_ERROR_NOT_CONNECTED);
        return;
    }
    if (queued_head_ != nullptr) { // keep the order behind sends already waiting
        queued_tail_->next_queued = send;
        queued_tail_ = send;
        return;
    }
    FrameHeader header;
    int err = send_frame(peer->fd, header, send->msg, send->len);
    if (err == EAGAIN) {
        queued_head_ = queued_tail_ = send;
        return;
    }
    if (err == 0) {
        peer->live[DOCA_COMCH_COUNTER_SENT_MESSAGES] += 1;
        peer->live[DOCA_COMCH_COUNTER_SENT_BYTES] += send->len;
    }
    complete(send, err == 0 ? DOCA_SUCCESS : DOCA_ERROR_NOT_CONNECTED);
}

void Endpoint::complete(doca_comch_task_send *task, doca_error_t status) {
    task->status = status;
    done_[(done_head_ + done_count_) % done_.size()] = task; // the ring holds every task of the pool
    ++done_count_;
}

bool Endpoint::flush_queued_sends() {
    bool progressed = false;
    while (queued_head_ != nullptr) {
        doca_comch_task_send *send = queued_head_;
        doca_comch_connection *peer = send->peer;
        int err = peer->state == doca_comch_connection::State::connected
                      ? send_frame(peer->fd, FrameHeader{}, send->msg, send->len)
                      : ENOTCONN;
        if (err == EAGAIN) break;
        queued_head_ = send->next_queued;
        if (queued_head_ == nullptr) queued_tail_ = nullptr;
        send->next_queued = nullptr;
        if (err == 0) {
            peer->live[DOCA_COMCH_COUNTER_SENT_MESSAGES] += 1;
            peer->live[DOCA_COMCH_COUNTER_SENT_BYTES] += send->len;
        }
        complete(send, err == 0 ? DOCA_SUCCESS : DOCA_ERROR_NOT_CONNECTED);
        progressed = true;
    }
    return progressed;
}

// Removes conn's queued sends (order kept for the others) and completes them with `status`.
void Endpoint::fail_queued(doca_comch_connection *conn, doca_error_t status) {
    doca_comch_task_send *keep_head = nullptr, *keep_tail = nullptr;
    for (doca_comch_task_send *send = queued_head_; send != nullptr;) {
        doca_comch_task_send *next = send->next_queued;
        send->next_queued = nullptr;
        if (conn == nullptr || send->peer == conn) {
            complete(send, status);
        } else {
            if (keep_tail)
                keep_tail->next_queued = send;
            else
                keep_head = send;
            keep_tail = send;
        }
        send = next;
    }
    queued_head_ = keep_head;
    queued_tail_ = keep_tail;
}

doca_task *Endpoint::poll_completion() {
    if (done_count_ == 0 && queued_head_ != nullptr) flush_queued_sends();
    if (done_count_ == 0) return nullptr;
    doca_task *task = done_[done_head_];
    done_head_ = (done_head_ + 1) % done_.size();
    --done_count_;
    return task;
}

bool Endpoint::completions_pending() const {
    return done_count_ != 0;
}

// ---- events

bool Endpoint::deliver_event() {
    if (state() == DOCA_CTX_STATE_STOPPING || epoll_fd_ < 0) return false;
    epoll_event ev{};
    int n = ::epoll_wait(epoll_fd_, &ev, 1, 0);
    if (n == 1) return on_readable(static_cast<doca_comch_connection *>(ev.data.ptr));
    return on_idle();
}

bool Endpoint::events_pending() const {
    if (epoll_fd_ < 0) return false;
    epoll_event ev{};
    return ::epoll_wait(epoll_fd_, &ev, 1, 0) == 1; // level-triggered: the event stays ready
}

void Endpoint::deliver_message(doca_comch_connection *conn, uint32_t len) {
    conn->live[DOCA_COMCH_COUNTER_RECV_MESSAGES] += 1;
    conn->live[DOCA_COMCH_COUNTER_RECV_BYTES] += len;
    if (recv_cb_ == nullptr) {
        logger().warn("{} '{}': message of {} bytes dropped: no receive callback registered", type_name(),
                      name_, len);
        return;
    }
    recv_cb_(reinterpret_cast<doca_comch_event_msg_recv *>(this), payload(), len, conn);
}

void Endpoint::deliver_control_frame(doca_comch_connection *conn, const FrameHeader &header, uint32_t len) {
    if (header.type == FrameType::export_files) {
        // The files are the registry's now (or closed by it when refused).
        file_export(*conn, payload(), len, received_fds_, received_fd_count_);
        for (int &fd : received_fds_) fd = -1;
        received_fd_count_ = 0;
        return;
    }
    deliver_consumer_event(conn, header);
}

void Endpoint::deliver_consumer_event(doca_comch_connection *conn, const FrameHeader &header) {
    if (header.type != FrameType::consumer_new && header.type != FrameType::consumer_expired) {
        logger().warn("{} '{}': unexpected frame type {} ignored", type_name(), name_,
                      static_cast<int>(header.type));
        return;
    }
    bool created = header.type == FrameType::consumer_new;
    uint32_t id = header.max_msg_size;
    doca_comch_event_consumer_cb_t cb = created ? consumer_created_cb_ : consumer_expired_cb_;
    logger().debug("{} '{}': remote consumer {} {}", type_name(), name_, id,
                   created ? "announced" : "expired");
    if (cb != nullptr) cb(reinterpret_cast<doca_comch_event_consumer *>(this), conn, id);
}

// ---- transport helpers

bool Endpoint::watch(int fd, doca_comch_connection *conn) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.ptr = conn;
    if (::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) == 0) return true;
    logger().error("{}: epoll_ctl: {}", type_name(), std::strerror(errno));
    return false;
}

int Endpoint::send_frame(int fd, const FrameHeader &header, const void *payload, uint32_t len) {
    iovec iov[2] = {{const_cast<FrameHeader *>(&header), sizeof header}, {const_cast<void *>(payload), len}};
    msghdr msg{};
    msg.msg_iov = iov;
    msg.msg_iovlen = payload != nullptr ? 2 : 1;
    for (;;) {
        ssize_t n = ::sendmsg(fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n >= 0) return 0;
        if (errno == EINTR) continue;
        return errno == EWOULDBLOCK ? EAGAIN : errno;
    }
}

int64_t Endpoint::recv_frame(doca_comch_connection *conn, FrameHeader &header) {
    close_received_fds();
    iovec iov{recv_buf_.data(), recv_buf_.size()};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxFrameFds)];
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    // A peer that closed with frames of ours unread reports ECONNRESET once, ahead of the frames it
    // sent before closing (a server's refuse frame): read on, they are still there.
    ssize_t n;
    int resets = 0;
    do {
        n = ::recvmsg(conn->fd, &msg, MSG_DONTWAIT | MSG_TRUNC | MSG_CMSG_CLOEXEC);
    } while (n < 0 && (errno == EINTR || (errno == ECONNRESET && resets++ == 0)));
    if (n == 0) return kBroken; // end of stream: the peer closed its socket (or its process died)
    if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK ? kNothing : kBroken;
    take_received_fds(msg);
    if (static_cast<size_t>(n) < sizeof(FrameHeader) || static_cast<size_t>(n) > recv_buf_.size()) {
        logger().error(
            "{} '{}': malformed frame of {} bytes (frames carry at most {} message bytes); closing the "
            "connection",
            type_name(), name_, n, max_msg_size_);
        return kBroken;
    }
    std::memcpy(&header, recv_buf_.data(), sizeof header);
    if (header.magic != kWireMagic) {
        logger().error("{} '{}': frame without the comch magic; closing the connection", type_name(), name_);
        return kBroken;
    }
    // Only an export's files may come with a frame: descriptors on any other frame are closed now.
    if (header.type != FrameType::export_files) close_received_fds();
    return n - static_cast<int64_t>(sizeof header);
}

// Keeps the descriptors of SCM_RIGHTS messages (the kernel closed any beyond the control buffer).
void Endpoint::take_received_fds(const msghdr &msg) {
    auto *m = const_cast<msghdr *>(&msg);
    for (cmsghdr *c = CMSG_FIRSTHDR(m); c != nullptr; c = CMSG_NXTHDR(m, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
        size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t i = 0; i < count; ++i) {
            int fd = -1;
            std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
            if (received_fd_count_ < kMaxFrameFds)
                received_fds_[received_fd_count_++] = fd;
            else
                ::close(fd);
        }
    }
}

void Endpoint::close_received_fds() {
    for (int i = 0; i < received_fd_count_; ++i)
        if (received_fds_[i] >= 0) ::close(received_fds_[i]);
    for (int &fd : received_fds_) fd = -1;
    received_fd_count_ = 0;
}

void Endpoint::drop_connection(doca_comch_connection *conn) {
    forget_exports(*conn); // files it handed over and no import took yet
    if (conn->fd >= 0) {
        ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, conn->fd, nullptr);
        ::close(conn->fd);
    }
    conn->fd = -1;
    conn->state = doca_comch_connection::State::free;
    fail_queued(conn, DOCA_ERROR_NOT_CONNECTED);
}

void Endpoint::size_socket_buffers(int fd) const {
    int bytes = static_cast<int>((max_msg_size_ + sizeof(FrameHeader)) * recv_queue_size_);
    ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof bytes);
    ::setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &bytes, sizeof bytes);
}

// ---- lifecycle

doca_error_t Endpoint::on_start() {
    epoll_fd_ = ::epoll_create1(EPOLL_CLOEXEC);
    if (epoll_fd_ < 0) {
        logger().error("{}: epoll_create1: {}", type_name(), std::strerror(errno));
        return DOCA_ERROR_OPERATING_SYSTEM;
    }
    // Sockets becoming readable wake an application sleeping on the PE's notification handle.
    if (pe() != nullptr && pe()->watch(epoll_fd_) != DOCA_SUCCESS) {
        ::close(epoll_fd_);
        epoll_fd_ = -1;
        return DOCA_ERROR_OPERATING_SYSTEM;
    }
    // Frames from a peer may be as large as the channel allows (its limit may exceed ours until
    // the handshake); the buffer takes the largest.
    recv_buf_.assign(sizeof(FrameHeader) + kMaxMsgSize, 0);
    done_.assign(send_kind_.capacity() == 0 ? 1 : send_kind_.capacity(), nullptr);
    done_head_ = done_count_ = 0;
    queued_head_ = queued_tail_ = nullptr;
    doca_error_t err = open_transport();
    if (err != DOCA_SUCCESS) {
        close_transport();
        close_epoll();
    }
    return err;
}

void Endpoint::on_stop_requested() {
    fail_queued(nullptr, DOCA_ERROR_SHUTDOWN); // flushed by our stop, before the sockets close
    close_transport();
}

void Endpoint::on_stopped() {
    close_received_fds();
    close_transport();
    close_epoll();
}

} // namespace skiff::core::comch
