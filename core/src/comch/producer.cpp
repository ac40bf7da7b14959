#include "comch/producer.hpp"

#include "comch/endpoint.hpp"
#include "mem/buf.hpp"

#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

using skiff::core::comch::DataPathHeader;
using skiff::core::comch::logger;
namespace comch = skiff::core::comch;

doca_comch_producer::doca_comch_producer(doca_comch_connection *conn)
    : doca_ctx("comch_producer"), conn_(conn), id_(comch::next_data_path_id()) {
    register_task_kind(&send_kind_);
}

doca_error_t doca_comch_producer::set_send_conf(doca_comch_producer_task_send_completion_cb_t ok,
                                                doca_comch_producer_task_send_completion_cb_t err,
                                                uint32_t num_tasks) {
    if (state() != DOCA_CTX_STATE_IDLE) return DOCA_ERROR_BAD_STATE;
    if (ok == nullptr || err == nullptr || num_tasks == 0 || num_tasks > comch::kMaxDataPathTasks) {
        logger().error("comch producer: send conf needs both callbacks and 1..{} tasks (got {})",
                       comch::kMaxDataPathTasks, num_tasks);
        return DOCA_ERROR_INVALID_VALUE;
    }
    send_kind_.configure(ok, err, num_tasks);
    return DOCA_SUCCESS;
}

doca_error_t doca_comch_producer::alloc_send(const doca_buf *buf, const uint8_t *imm, uint32_t imm_len,
                                             uint32_t consumer_id, doca_comch_producer_task_send **out) {
    if (buf == nullptr || out == nullptr || (imm == nullptr && imm_len != 0)) return DOCA_ERROR_INVALID_VALUE;
    if (imm_len > comch::kMaxImmDataLen) {
        logger().error("comch producer {}: {} bytes of immediate data, at most {} "
                       "(doca_comch_consumer_cap_get_max_imm_data_len)",
                       id_, imm_len, comch::kMaxImmDataLen);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (buf->data_len > comch::kMaxDataPathBufSize) {
        logger().error(
            "comch producer {}: a buffer of {} bytes, at most {} (doca_comch_producer_cap_get_max_buf_size)",
            id_, buf->data_len, comch::kMaxDataPathBufSize);
        return DOCA_ERROR_INVALID_VALUE;
    }
    doca_task *task = nullptr;
    if (doca_error_t err = allocate(send_kind_, &task, doca_data{}); err != DOCA_SUCCESS) return err;
    auto *send = static_cast<doca_comch_producer_task_send *>(task);
    send->buf = buf;
    send->consumer_id = consumer_id;
    send->imm_len = imm_len;
    if (imm_len != 0) std::memcpy(send->imm, imm, imm_len);
    send->next = nullptr;
    *out = send;
    return DOCA_SUCCESS;
}

// ---- lifecycle

doca_error_t doca_comch_producer::on_start() {
    if (conn_->state != doca_comch_connection::State::connected) {
        logger().error("comch producer {}: its comch connection is not connected any more", id_);
        return DOCA_ERROR_NOT_CONNECTED;
    }
    // The consumers on the other end live in the peer process: its pid names their sockets.
    ucred cred{};
    socklen_t len = sizeof cred;
    if (::getsockopt(conn_->fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 || cred.pid <= 0) {
        logger().error("comch producer {}: cannot learn the peer process of the connection: {}", id_,
                       std::strerror(errno));
        return DOCA_ERROR_OPERATING_SYSTEM;
    }
    peer_pid_ = cred.pid;
    fd_ = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd_ < 0) {
        logger().error("comch producer {}: socket: {}", id_, std::strerror(errno));
        return DOCA_ERROR_OPERATING_SYSTEM;
    }
    // Room for the largest datagram and a few more in flight (the kernel caps it at wmem_max).
    int bytes = static_cast<int>(4 * (comch::kMaxDataPathBufSize + sizeof(DataPathHeader)));
    ::setsockopt(fd_, SOL_SOCKET, SO_SNDBUF, &bytes, sizeof bytes);
    waiting_head_ = waiting_tail_ = done_head_ = done_tail_ = nullptr;
    return DOCA_SUCCESS;
}

void doca_comch_producer::on_stopped() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
}

// ---- tasks

doca_error_t doca_comch_producer::validate(const doca_task *task) const {
    const auto *send = static_cast<const doca_comch_producer_task_send *>(task);
    if (send->buf == nullptr || send->buf->data_len > comch::kMaxDataPathBufSize ||
        send->imm_len > comch::kMaxImmDataLen)
        return DOCA_ERROR_INVALID_VALUE;
    return DOCA_SUCCESS;
}

bool doca_comch_producer::try_send(doca_comch_producer_task_send *send) {
    if (conn_->state != doca_comch_connection::State::connected) {
        send->status = DOCA_ERROR_NOT_CONNECTED;
        return true;
    }
    std::string path = comch::consumer_socket_path(peer_pid_, send->consumer_id);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::memcpy(addr.sun_path, path.c_str(), std::min(path.size() + 1, sizeof addr.sun_path - 1));
    DataPathHeader header;
    header.producer_id = id_;
    header.imm_len = send->imm_len;
    std::memcpy(header.imm, send->imm, send->imm_len);
    iovec iov[2] = {{&header, sizeof header}, {send->buf->data, send->buf->data_len}};
    msghdr msg{};
    msg.msg_name = &addr;
    msg.msg_namelen = sizeof addr;
    msg.msg_iov = iov;
    msg.msg_iovlen = 2;
    ssize_t n;
    do {
        n = ::sendmsg(fd_, &msg, MSG_DONTWAIT | MSG_NOSIGNAL);
    } while (n < 0 && errno == EINTR);
    if (n >= 0) {
        send->status = DOCA_SUCCESS;
    } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
        return false;
    } else if (errno == ENOENT || errno == ECONNREFUSED) {
        logger().error("comch producer {}: no consumer {} on the other end of the connection", id_,
                       send->consumer_id);
        send->status = DOCA_ERROR_NOT_FOUND;
    } else {
        logger().error("comch producer {}: send to consumer {}: {}", id_, send->consumer_id,
                       std::strerror(errno));
        send->status = DOCA_ERROR_IO_FAILED;
    }
    return true;
}

void doca_comch_producer::finish(doca_comch_producer_task_send *send) {
    send->next = nullptr;
    if (done_tail_ != nullptr)
        done_tail_->next = send;
    else
        done_head_ = send;
    done_tail_ = send;
}

void doca_comch_producer::execute(doca_task *task) {
    auto *send = static_cast<doca_comch_producer_task_send *>(task);
    send->next = nullptr;
    // Behind sends already waiting, so that a consumer sees the sends in submission order.
    if (waiting_head_ == nullptr && try_send(send)) {
        finish(send);
        return;
    }
    if (waiting_tail_ != nullptr)
        waiting_tail_->next = send;
    else
        waiting_head_ = send;
    waiting_tail_ = send;
}

// Sends that waited for room in their consumer's queue, in order; true if any went.
bool doca_comch_producer::retry_waiting() {
    bool progressed = false;
    while (waiting_head_ != nullptr && try_send(waiting_head_)) {
        doca_comch_producer_task_send *send = waiting_head_;
        waiting_head_ = send->next;
        if (waiting_head_ == nullptr) waiting_tail_ = nullptr;
        finish(send);
        progressed = true;
    }
    return progressed;
}

void doca_comch_producer::on_stop_requested() {
    while (waiting_head_ != nullptr) { // never sent: flushed by the stop
        doca_comch_producer_task_send *send = waiting_head_;
        waiting_head_ = send->next;
        send->status = DOCA_ERROR_SHUTDOWN;
        finish(send);
    }
    waiting_tail_ = nullptr;
}

doca_task *doca_comch_producer::poll_completion() {
    if (done_head_ == nullptr && waiting_head_ != nullptr) retry_waiting();
    doca_comch_producer_task_send *task = done_head_;
    if (task == nullptr) return nullptr;
    done_head_ = task->next;
    if (done_head_ == nullptr) done_tail_ = nullptr;
    task->next = nullptr;
    return task;
}

bool doca_comch_producer::completions_pending() const {
    return done_head_ != nullptr || waiting_head_ != nullptr; // a waiting send is retried by progress
}
