#include "comch/server.hpp"

#include "comch/runtime_dir.hpp"
#include "comch/socket_path.hpp"

#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

using skiff::core::comch::FrameHeader;
using skiff::core::comch::FrameType;
using skiff::core::comch::kMaxClients;
using skiff::core::comch::logger;
using State = doca_comch_connection::State;

namespace {

sockaddr_un unix_address(const std::string &path) {
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::memcpy(addr.sun_path, path.c_str(), path.size() + 1); // length checked by socket_path()
    return addr;
}

// True when a live server answers on path (a left-over socket file of a dead one refuses).
bool someone_listens(const std::string &path) {
    int fd = ::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (fd < 0) return false;
    sockaddr_un addr = unix_address(path);
    bool alive = ::connect(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr) == 0;
    ::close(fd);
    return alive;
}

} // namespace

doca_comch_server::doca_comch_server(doca_dev *dev, doca_dev_rep *rep, std::string name, std::string path)
    : Endpoint("comch_server", dev, std::move(name)), rep_(rep), path_(std::move(path)) {}

doca_error_t
doca_comch_server::set_connection_cbs(doca_comch_event_connection_status_changed_cb_t on_connect,
                                      doca_comch_event_connection_status_changed_cb_t on_disconnect) {
    if (state() != DOCA_CTX_STATE_IDLE) return DOCA_ERROR_BAD_STATE;
    if (on_connect == nullptr || on_disconnect == nullptr) return DOCA_ERROR_INVALID_VALUE;
    on_connect_ = on_connect;
    on_disconnect_ = on_disconnect;
    return DOCA_SUCCESS;
}

bool doca_comch_server::owns(const doca_comch_connection *conn) const {
    return conns_ && conn >= &conns_[0] && conn < &conns_[kMaxClients];
}

doca_comch_connection *doca_comch_server::free_slot() {
    for (uint32_t i = 0; i < kMaxClients; ++i)
        if (conns_[i].state == State::free) return &conns_[i];
    return nullptr;
}

doca_error_t doca_comch_server::open_transport() {
    if (skiff::Status s = skiff::core::comch::ensure_socket_dir(); !s) {
        logger().error("comch server '{}': {}", name(), s.error().message);
        return s.error().code;
    }
    auto policy = skiff::core::comch::PeerPolicy::from_environment();
    if (!policy) {
        logger().error("comch server '{}': {}", name(), policy.error().message);
        return policy.error().code;
    }
    policy_ = std::move(policy.value());
    conns_ = std::make_unique<doca_comch_connection[]>(kMaxClients);
    for (uint32_t i = 0; i < kMaxClients; ++i) conns_[i].server = this;
    listen_fd_ = ::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (listen_fd_ < 0) {
        logger().error("comch server '{}': socket: {}", name(), std::strerror(errno));
        return DOCA_ERROR_OPERATING_SYSTEM;
    }
    sockaddr_un addr = unix_address(path_);
    auto bind_now = [&] { return ::bind(listen_fd_, reinterpret_cast<sockaddr *>(&addr), sizeof addr) == 0; };
    bool bound = bind_now();
    if (!bound && errno == EADDRINUSE) {
        if (someone_listens(path_)) {
            logger().error("comch server '{}': another server with this name already serves this representor "
                           "({}); stop it or choose another name",
                           name(), path_);
            return DOCA_ERROR_IN_USE;
        }
        ::unlink(path_.c_str()); // left over by a server that died
        bound = bind_now();
    }
    bound_ = bound;
    if (!bound || ::listen(listen_fd_, 64) != 0) {
        logger().error("comch server '{}': cannot listen on {}: {}", name(), path_, std::strerror(errno));
        return DOCA_ERROR_OPERATING_SYSTEM;
    }
    skiff::core::comch::restrict_socket_file(path_, skiff::core::comch::socket_dir());
    if (!watch(listen_fd_, nullptr)) return DOCA_ERROR_OPERATING_SYSTEM;
    logger().info("comch server '{}' listening ({}; clients of {})", name(), path_, policy_.describe());
    return DOCA_SUCCESS;
}

void doca_comch_server::close_transport() {
    if (listen_fd_ >= 0) {
        ::close(listen_fd_);
        // Only our own socket file: after IN_USE the one there is another server's.
        if (bound_) ::unlink(path_.c_str());
        listen_fd_ = -1;
        bound_ = false;
    }
    if (!conns_) return;
    // Our own stop: clients see the server go away; no disconnection events on this side.
    for (uint32_t i = 0; i < kMaxClients; ++i)
        if (conns_[i].state != State::free) drop_connection(&conns_[i]);
}

bool doca_comch_server::on_readable(doca_comch_connection *conn) {
    if (conn == nullptr) return accept_one();
    FrameHeader header;
    int64_t len = recv_frame(conn, header);
    if (len == kNothing) return false;
    if (len == kBroken) {
        lose(conn);
        return true;
    }
    if (conn->state == State::handshaking) return handshake(conn, header);
    if (header.type != FrameType::data) {
        deliver_control_frame(conn, header, static_cast<uint32_t>(len));
        return true;
    }
    deliver_message(conn, static_cast<uint32_t>(len));
    return true;
}

bool doca_comch_server::accept_one() {
    int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return false;
    auto peer = skiff::core::comch::socket_peer(fd);
    if (!peer || !policy_.allows(peer->uid)) {
        if (peer)
            logger().warn(
                "comch server '{}': refusing a client: pid {} runs as uid {}, which may not connect "
                "(admitted: {}; SKIFF_COMCH_PEER_UIDS admits more)",
                name(), peer->pid, peer->uid, policy_.describe());
        else
            logger().warn("comch server '{}': refusing a client: {}", name(), peer.error().message);
        refuse(fd, skiff::core::comch::RefuseReason::not_permitted);
        return true;
    }
    doca_comch_connection *conn = free_slot();
    if (conn == nullptr) {
        logger().warn(
            "comch server '{}': refusing a client: already {} connected (doca_comch_cap_get_max_clients)",
            name(), kMaxClients);
        refuse(fd, skiff::core::comch::RefuseReason::too_many_clients);
        return true;
    }
    size_socket_buffers(fd);
    conn->fd = fd;
    conn->peer = peer.value();
    conn->state = State::handshaking;
    conn->user_data = doca_data{};
    std::memset(conn->live, 0, sizeof conn->live);
    std::memset(conn->snapshot, 0, sizeof conn->snapshot);
    if (!watch(fd, conn)) drop_connection(conn);
    return true;
}

// Tells a client it is not accepted, then closes its socket.
void doca_comch_server::refuse(int fd, skiff::core::comch::RefuseReason reason) {
    FrameHeader frame;
    frame.type = FrameType::refuse;
    frame.reason = static_cast<uint8_t>(reason);
    send_frame(fd, frame, nullptr, 0);
    // What the client sent already (its hello) is read and dropped: closing with unread frames
    // would make its next read fail with ECONNRESET before it sees the refuse frame.
    char discard[sizeof(FrameHeader) + 64];
    for (int i = 0; i < 4 && ::recv(fd, discard, sizeof discard, MSG_DONTWAIT | MSG_TRUNC) > 0; ++i) {
    }
    ::close(fd);
}

// The client's hello: answer welcome, then the connection is up for the application.
bool doca_comch_server::handshake(doca_comch_connection *conn, const FrameHeader &hello) {
    if (hello.type != FrameType::hello || hello.version != skiff::core::comch::kWireVersion ||
        hello.max_msg_size == 0) {
        logger().error("comch server '{}': a client spoke an unknown handshake (version {}); dropping it",
                       name(), hello.version);
        FrameHeader refuse;
        refuse.type = FrameType::refuse;
        refuse.reason = static_cast<uint8_t>(skiff::core::comch::RefuseReason::bad_version);
        send_frame(conn->fd, refuse, nullptr, 0);
        drop_connection(conn);
        return true;
    }
    conn->max_msg_size = std::min(hello.max_msg_size, max_msg_size());
    FrameHeader welcome;
    welcome.type = FrameType::welcome;
    welcome.max_msg_size = max_msg_size();
    if (send_frame(conn->fd, welcome, nullptr, 0) != 0) {
        drop_connection(conn); // the client left during the handshake: nothing to report
        return true;
    }
    conn->state = State::connected;
    logger().debug("comch server '{}': client connected (max message {} bytes)", name(), conn->max_msg_size);
    if (on_connect_)
        on_connect_(reinterpret_cast<doca_comch_event_connection_status_changed *>(this), conn, 1);
    return true;
}

// The client closed or died: report it (connected ones only), then free the slot.
void doca_comch_server::lose(doca_comch_connection *conn) {
    bool was_connected = conn->state == State::connected;
    ::epoll_ctl(epoll_fd(), EPOLL_CTL_DEL, conn->fd, nullptr);
    ::close(conn->fd);
    conn->fd = -1;
    conn->state = State::handshaking; // not connected any more, slot not yet free
    if (was_connected) {
        logger().debug("comch server '{}': client disconnected", name());
        if (on_disconnect_)
            on_disconnect_(reinterpret_cast<doca_comch_event_connection_status_changed *>(this), conn, 1);
    }
    drop_connection(conn);
}

doca_error_t doca_comch_server::disconnect(doca_comch_connection *conn) {
    if (!owns(conn)) return DOCA_ERROR_INVALID_VALUE;
    if (conn->state != State::connected) return DOCA_ERROR_NOT_CONNECTED;
    // Shut the socket down now (the client sees the server go); the disconnection event comes
    // from progress when our side reads the end of the stream.
    ::shutdown(conn->fd, SHUT_RDWR);
    return DOCA_SUCCESS;
}
