#include "comch/consumer.hpp"

#include "comch/endpoint.hpp"
#include "comch/runtime_dir.hpp"
#include "comch/socket_path.hpp"
#include "exec/progress_engine.hpp"
#include "mem/buf.hpp"
#include "mem/mmap.hpp"

#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

using skiff::core::comch::DataPathHeader;
using skiff::core::comch::FrameHeader;
using skiff::core::comch::FrameType;
using skiff::core::comch::logger;
namespace comch = skiff::core::comch;

doca_comch_consumer::doca_comch_consumer(doca_comch_connection *conn, doca_mmap *mmap)
    : doca_ctx("comch_consumer"), conn_(conn), mmap_(mmap), id_(comch::next_data_path_id()) {
    register_task_kind(&recv_kind_);
}

doca_comch_consumer::~doca_comch_consumer() {
    close_socket();
}

doca_error_t doca_comch_consumer::set_imm_data_len(uint32_t len) {
    if (state() != DOCA_CTX_STATE_IDLE) return DOCA_ERROR_BAD_STATE;
    if (len > comch::kMaxImmDataLen) {
        logger().error("comch consumer {}: immediate data length {} is above the maximum {} "
                       "(doca_comch_consumer_cap_get_max_imm_data_len)",
                       id_, len, comch::kMaxImmDataLen);
        return DOCA_ERROR_INVALID_VALUE;
    }
    imm_data_len_ = len;
    return DOCA_SUCCESS;
}

doca_error_t doca_comch_consumer::set_recv_conf(doca_comch_consumer_task_post_recv_completion_cb_t ok,
                                                doca_comch_consumer_task_post_recv_completion_cb_t err,
                                                uint32_t num_tasks) {
    if (state() != DOCA_CTX_STATE_IDLE) return DOCA_ERROR_BAD_STATE;
    if (ok == nullptr || err == nullptr || num_tasks == 0 || num_tasks > comch::kMaxDataPathTasks) {
        logger().error("comch consumer: post_recv conf needs both callbacks and 1..{} tasks (got {})",
                       comch::kMaxDataPathTasks, num_tasks);
        return DOCA_ERROR_INVALID_VALUE;
    }
    recv_kind_.configure(ok, err, num_tasks);
    return DOCA_SUCCESS;
}

doca_error_t doca_comch_consumer::alloc_recv(doca_buf *buf, doca_comch_consumer_task_post_recv **out) {
    if (buf == nullptr || out == nullptr) return DOCA_ERROR_INVALID_VALUE;
    if (buf->mmap != mmap_) {
        logger().error("comch consumer {}: the receive buffer is not in the consumer's mmap", id_);
        return DOCA_ERROR_INVALID_VALUE;
    }
    doca_task *task = nullptr;
    if (doca_error_t err = allocate(recv_kind_, &task, doca_data{}); err != DOCA_SUCCESS) return err;
    auto *recv = static_cast<doca_comch_consumer_task_post_recv *>(task);
    recv->buf = buf;
    recv->producer_id = 0;
    recv->imm_len = 0;
    recv->next_posted = nullptr;
    *out = recv;
    return DOCA_SUCCESS;
}

// ---- lifecycle

doca_error_t doca_comch_consumer::on_start() {
    if (conn_->state != doca_comch_connection::State::connected) {
        logger().error("comch consumer {}: its comch connection is not connected any more", id_);
        return DOCA_ERROR_NOT_CONNECTED;
    }
    if (skiff::Status s = comch::ensure_socket_dir(); !s) {
        logger().error("comch consumer {}: {}", id_, s.error().message);
        return s.error().code;
    }
    path_ = comch::consumer_socket_path(::getpid(), id_);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (path_.empty() || path_.size() >= sizeof addr.sun_path) {
        logger().error("comch consumer {}: SKIFF_COMCH_DIR is too long for a socket path", id_);
        return DOCA_ERROR_INVALID_VALUE;
    }
    std::memcpy(addr.sun_path, path_.c_str(), path_.size() + 1);
    fd_ = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd_ < 0) {
        logger().error("comch consumer {}: socket: {}", id_, std::strerror(errno));
        return DOCA_ERROR_OPERATING_SYSTEM;
    }
    ::unlink(path_.c_str()); // left by a dead process that had our pid
    if (::bind(fd_, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0) {
        logger().error("comch consumer {}: bind {}: {}", id_, path_, std::strerror(errno));
        close_socket();
        return DOCA_ERROR_OPERATING_SYSTEM;
    }
    comch::restrict_socket_file(path_, comch::socket_dir());
    // A datagram arriving wakes an application sleeping on the PE's notification handle.
    if (pe() != nullptr && pe()->watch(fd_) != DOCA_SUCCESS) {
        close_socket();
        return DOCA_ERROR_OPERATING_SYSTEM;
    }
    announced_ = false;
    posted_head_ = posted_tail_ = done_head_ = done_tail_ = nullptr;
    return DOCA_SUCCESS;
}

// Tells the peer (its server or client ctx) that this consumer came or went. False when the
// connection's socket is full for now (try again later).
bool doca_comch_consumer::announce(bool created) {
    FrameHeader header;
    header.type = created ? FrameType::consumer_new : FrameType::consumer_expired;
    header.max_msg_size = id_;
    int err = comch::Endpoint::send_frame(conn_->fd, header, nullptr, 0);
    if (err == EAGAIN) return false;
    if (err != 0 && created) {
        logger().error("comch consumer {}: cannot announce it on the connection: {}", id_,
                       std::strerror(err));
        request_fatal_stop();
    }
    return true;
}

void doca_comch_consumer::on_stop_requested() {
    if (announced_ && conn_->state == doca_comch_connection::State::connected) announce(false);
    announced_ = false;
    close_socket();
    while (posted_head_ != nullptr) { // posted buffers will never be filled now
        doca_comch_consumer_task_post_recv *task = posted_head_;
        posted_head_ = task->next_posted;
        finish(task, DOCA_ERROR_SHUTDOWN);
    }
    posted_tail_ = nullptr;
}

void doca_comch_consumer::on_stopped() {
    close_socket();
}

void doca_comch_consumer::close_socket() {
    if (fd_ < 0) return;
    if (pe() != nullptr) pe()->unwatch(fd_);
    ::close(fd_);
    ::unlink(path_.c_str());
    fd_ = -1;
}

// ---- tasks

doca_error_t doca_comch_consumer::validate(const doca_task *task) const {
    const auto *recv = static_cast<const doca_comch_consumer_task_post_recv *>(task);
    if (recv->buf == nullptr || recv->buf->mmap != mmap_) return DOCA_ERROR_INVALID_VALUE;
    return DOCA_SUCCESS;
}

void doca_comch_consumer::execute(doca_task *task) {
    auto *recv = static_cast<doca_comch_consumer_task_post_recv *>(task);
    recv->next_posted = nullptr;
    if (posted_tail_ != nullptr)
        posted_tail_->next_posted = recv;
    else
        posted_head_ = recv;
    posted_tail_ = recv;
}

void doca_comch_consumer::finish(doca_comch_consumer_task_post_recv *task, doca_error_t status) {
    task->status = status;
    task->next_posted = nullptr;
    if (done_tail_ != nullptr)
        done_tail_->next_posted = task;
    else
        done_head_ = task;
    done_tail_ = task;
}

doca_task *doca_comch_consumer::poll_completion() {
    doca_comch_consumer_task_post_recv *task = done_head_;
    if (task == nullptr) return nullptr;
    done_head_ = task->next_posted;
    if (done_head_ == nullptr) done_tail_ = nullptr;
    task->next_posted = nullptr;
    return task;
}

bool doca_comch_consumer::completions_pending() const {
    return done_head_ != nullptr;
}

// ---- events: the announcement while STARTING, then one receive per call

bool doca_comch_consumer::deliver_event() {
    if (state() == DOCA_CTX_STATE_STARTING) {
        if (announced_ || !announce(true)) return false;
        announced_ = true;
        become_running();
        return true;
    }
    if (state() != DOCA_CTX_STATE_RUNNING || posted_head_ == nullptr || fd_ < 0) return false;
    return receive_one();
}

bool doca_comch_consumer::events_pending() const {
    if (state() == DOCA_CTX_STATE_STARTING) return !announced_;
    if (posted_head_ == nullptr || fd_ < 0) return false;
    char probe;
    return ::recv(fd_, &probe, sizeof probe, MSG_PEEK | MSG_DONTWAIT) >= 0;
}

// The oldest waiting datagram lands straight in the oldest posted buffer, after its data.
bool doca_comch_consumer::receive_one() {
    doca_comch_consumer_task_post_recv *task = posted_head_;
    doca_buf *buf = task->buf;
    uint8_t *dst = buf->data + buf->data_len;
    size_t room = static_cast<size_t>(buf->head + buf->len - dst);
    DataPathHeader header;
    iovec iov[2] = {{&header, sizeof header}, {dst, room}};
    msghdr msg{};
    msg.msg_iov = iov;
    msg.msg_iovlen = 2;
    ssize_t n;
    do {
        n = ::recvmsg(fd_, &msg, MSG_DONTWAIT);
    } while (n < 0 && errno == EINTR);
    if (n < 0) return false; // nothing waiting
    if (static_cast<size_t>(n) < sizeof header || header.magic != comch::kDataPathMagic) {
        logger().warn("comch consumer {}: malformed datagram of {} bytes dropped", id_, n);
        return true;
    }
    posted_head_ = task->next_posted;
    if (posted_head_ == nullptr) posted_tail_ = nullptr;
    if (msg.msg_flags & MSG_TRUNC) {
        logger().error("comch consumer {}: a message from producer {} is larger than the posted buffer's {} "
                       "free bytes; the message is dropped and the receive fails",
                       id_, header.producer_id, room);
        finish(task, DOCA_ERROR_INVALID_VALUE);
        return true;
    }
    if (header.imm_len > imm_data_len_) {
        logger().error(
            "comch consumer {}: {} bytes of immediate data from producer {}, the consumer takes {} "
            "(doca_comch_consumer_set_imm_data_len); the message is dropped and the receive fails",
            id_, header.imm_len, header.producer_id, imm_data_len_);
        finish(task, DOCA_ERROR_INVALID_VALUE);
        return true;
    }
    buf->data_len += static_cast<size_t>(n) - sizeof header;
    task->producer_id = header.producer_id;
    task->imm_len = header.imm_len;
    std::memcpy(task->imm, header.imm, header.imm_len);
    finish(task, DOCA_SUCCESS);
    return true;
}
