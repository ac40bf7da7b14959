#include "comch/client.hpp"

#include "comch/limits.hpp"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

using skiff::core::comch::FrameHeader;
using skiff::core::comch::FrameType;
using skiff::core::comch::logger;
using State = doca_comch_connection::State;

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
    conn_.state = State::free;
    conn_.fd = -1;
    conn_.user_data = doca_data{};
    std::memset(conn_.live, 0, sizeof conn_.live);
    std::memset(conn_.snapshot, 0, sizeof conn_.snapshot);
    next_attempt_ = {};
    waiting_logged_ = false;
    return DOCA_SUCCESS; // the connection is made by progress
}

void doca_comch_client::close_transport() {
    if (conn_.state != State::free || conn_.fd >= 0) drop_connection(&conn_);
}

bool doca_comch_client::on_idle() {
    if (state() != DOCA_CTX_STATE_STARTING || conn_.state != State::free) return false;
    auto now = std::chrono::steady_clock::now();
    if (now < next_attempt_) return false;
    next_attempt_ = now + std::chrono::milliseconds(skiff::core::comch::kConnectRetryMs);
    return try_connect();
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
    FrameHeader hello;
    hello.type = FrameType::hello;
    hello.max_msg_size = max_msg_size();
    conn_.fd = fd;
    conn_.state = State::handshaking;
    if (send_frame(fd, hello, nullptr, 0) != 0 || !watch(fd, &conn_)) drop_connection(&conn_);
    return true;
}

bool doca_comch_client::on_readable(doca_comch_connection *conn) {
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
            logger().debug("comch client '{}': connected (max message {} bytes)", name(), conn_.max_msg_size);
            become_running();
        } else if (header.type == FrameType::refuse) {
            logger().error("comch client '{}': the server refused the connection ({})", name(),
                           header.reason == 1 ? "it has its maximum number of clients" : "unknown handshake");
            drop_connection(&conn_);
            request_fatal_stop();
        }
        return true;
    }
    if (header.type == FrameType::data) deliver_message(conn, static_cast<uint32_t>(len));
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
