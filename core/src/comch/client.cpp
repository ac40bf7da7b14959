#include "comch/client.hpp"

#include "comch/limits.hpp"
#include "comch/socket_path.hpp"

#include <spdlog/fmt/fmt.h>

#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

using skiff::core::comch::FrameHeader;
using skiff::core::comch::FrameType;
using skiff::core::comch::logger;
using State = doca_comch_connection::State;

namespace {

const char *refuse_reason(uint8_t reason) {
    switch (static_cast<skiff::core::comch::RefuseReason>(reason)) {
    case skiff::core::comch::RefuseReason::too_many_clients:
        return "it has its maximum number of clients";
    case skiff::core::comch::RefuseReason::not_permitted:
        return "this process's uid may not connect: the server admits root, its own uid and "
               "SKIFF_COMCH_PEER_UIDS";
    default:
        return "unknown handshake";
    }
}

} // namespace

doca_comch_client::doca_comch_client(doca_dev *dev, std::string name, std::string path)
    : Endpoint("comch_client", dev, std::move(name)), path_(std::move(path)) {
    conn_.client = this;
}

doca_error_t doca_comch_client::connection(doca_comch_connection **out) const {
    if (state() != DOCA_CTX_STATE_RUNNING) {
        logger().error("comch client '{}': the connection exists once the ctx is RUNNING", name());
        return DOCA_ERROR_BAD_STATE;
    }
    *out = const_cast<doca_comch_connection *>(&conn_);
    return DOCA_SUCCESS;
}

doca_error_t doca_comch_client::open_transport() {
    // The directory is checked as the server checks it: in one that another user owns or can
    // write into, the socket may be theirs.
    if (skiff::Status s = skiff::core::comch::ensure_socket_dir(); !s) {
        logger().error("comch client '{}': {}", name(), s.error().message);
        return s.error().code;
    }
    auto policy = skiff::core::comch::PeerPolicy::from_environment();
    if (!policy) {
        logger().error("comch client '{}': {}", name(), policy.error().message);
        return policy.error().code;
    }
    policy_ = std::move(policy.value());
    untrusted_logged_ = false;
    conn_.state = State::free;
    conn_.fd = -1;
    conn_.user_data = doca_data{};
    std::memset(conn_.live, 0, sizeof conn_.live);
    std::memset(conn_.snapshot, 0, sizeof conn_.snapshot);
    waiting_logged_ = false;
    // The connection is made by progress, on the ticks of the retry timer (the first at once).
    retry_fd_ = ::timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (retry_fd_ < 0) {
        logger().error("comch client '{}': timerfd_create: {}", name(), std::strerror(errno));
        return DOCA_ERROR_OPERATING_SYSTEM;
    }
    if (!watch(retry_fd_, nullptr)) return DOCA_ERROR_OPERATING_SYSTEM;
    set_retry_timer(true);
    return DOCA_SUCCESS;
}

void doca_comch_client::close_transport() {
    if (conn_.state != State::free || conn_.fd >= 0) drop_connection(&conn_);
    if (retry_fd_ >= 0) {
        ::epoll_ctl(epoll_fd(), EPOLL_CTL_DEL, retry_fd_, nullptr);
        ::close(retry_fd_);
    }
    retry_fd_ = -1;
}

void doca_comch_client::set_retry_timer(bool on) {
    itimerspec t{};
    if (on) {
        t.it_value.tv_nsec = 1; // the first attempt at once
        t.it_interval.tv_nsec = skiff::core::comch::kConnectRetryMs * 1000000L;
    }
    ::timerfd_settime(retry_fd_, 0, &t, nullptr);
}

bool doca_comch_client::try_connect() {
    int fd = ::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        logger().error("comch client '{}': socket: {}", name(), std::strerror(errno));
        request_fatal_stop();
        return true;
    }
    size_socket_buffers(fd);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::memcpy(addr.sun_path, path_.c_str(), path_.size() + 1);
    if (::connect(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0) {
        int err = errno;
        ::close(fd);
        if (!waiting_logged_) {
            logger().info("comch client '{}': no server yet at {} ({}); retrying every {} ms", name(), path_,
                          std::strerror(err), skiff::core::comch::kConnectRetryMs);
            waiting_logged_ = true;
        }
        return false;
    }
    // Whoever listens there must be a server of a user we admit: a socket bound first by someone
    // else gets nothing from us, not even the hello.
    auto server = skiff::core::comch::socket_peer(fd);
    if (!server || !policy_.allows(server->uid)) {
        if (!untrusted_logged_)
            logger().error("comch client '{}': {} is served by {}, not a user this client admits ({}); not "
                           "talking to it, retrying every {} ms",
                           name(), path_,
                           server ? fmt::format("pid {} running as uid {}", server->pid, server->uid)
                                  : server.error().message,
                           policy_.describe(), skiff::core::comch::kConnectRetryMs);
        untrusted_logged_ = true;
        ::close(fd);
        return false;
    }
    FrameHeader hello;
    hello.type = FrameType::hello;
    hello.max_msg_size = max_msg_size();
    conn_.fd = fd;
    conn_.peer = server.value();
    conn_.state = State::handshaking;
    // A server that refused us before our hello arrived has closed its end already (EPIPE), but
    // its refuse frame is still queued for us: watch the socket anyway, so on_readable reports
    // the refusal and its reason instead of a closed connection retried forever.
    const int sent = send_frame(fd, hello, nullptr, 0);
    const bool refused_early = sent == EPIPE || sent == ECONNRESET;
    if ((sent != 0 && !refused_early) || !watch(fd, &conn_)) drop_connection(&conn_);
    return true;
}

bool doca_comch_client::on_readable(doca_comch_connection *conn) {
    if (conn == nullptr) { // a tick of the retry timer
        uint64_t ticks = 0;
        if (::read(retry_fd_, &ticks, sizeof ticks) != sizeof ticks) return false;
        if (state() != DOCA_CTX_STATE_STARTING || conn_.state != State::free) return false;
        return try_connect();
    }
    FrameHeader header;
    int64_t len = recv_frame(conn, header);
    if (len == kNothing) return false;
    if (len == kBroken) {
        server_gone("the server closed the connection or went away");
        return true;
    }
    if (conn_.state == State::handshaking) {
        if (header.type == FrameType::welcome) {
            conn_.max_msg_size = std::min(header.max_msg_size, max_msg_size());
            conn_.state = State::connected;
            set_retry_timer(false);
            logger().debug("comch client '{}': connected (max message {} bytes)", name(), conn_.max_msg_size);
            become_running();
        } else if (header.type == FrameType::refuse) {
            logger().error("comch client '{}': the server refused the connection ({})", name(),
                           refuse_reason(header.reason));
            drop_connection(&conn_);
            request_fatal_stop();
        }
        return true;
    }
    if (header.type == FrameType::data)
        deliver_message(conn, static_cast<uint32_t>(len));
    else
        deliver_control_frame(conn, header, static_cast<uint32_t>(len));
    return true;
}

void doca_comch_client::server_gone(const char *why) {
    bool was_running = conn_.state == State::connected;
    drop_connection(&conn_);
    if (was_running) {
        logger().warn("comch client '{}': {}; stopping the client ctx (start it again to reconnect)", name(),
                      why);
        request_fatal_stop();
    } else {
        logger().debug("comch client '{}': {} during the handshake; retrying", name(), why);
    }
}
