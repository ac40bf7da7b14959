#include "skiff/dataplane/metrics/metrics_server.hpp"

#include "skiff/core/log.hpp"
#include "skiff/dataplane/metrics/exposition.hpp"
#include "skiff/dataplane/metrics/http_request.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>

namespace skiff::dataplane::metrics {
namespace {

uint64_t now_ms() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000u + static_cast<uint64_t>(ts.tv_nsec) / 1000000u;
}

// Every response closes the connection: a scraper opens one per scrape anyway, and no state
// outlives a request.
std::string response(int code, const char *reason, const std::string &body,
                     const char *content_type = "text/plain; charset=utf-8", const char *extra = "") {
    std::string r = "HTTP/1.1 " + std::to_string(code) + " " + reason + "\r\n";
    r += std::string("Content-Type: ") + content_type + "\r\n";
    r += "Content-Length: " + std::to_string(body.size()) + "\r\n";
    r += extra;
    r += "Connection: close\r\n\r\n";
    return r + body;
}

std::string route(const RequestHead &req, const MetricsServer::Render &render) {
    if (req.method != "GET")
        return response(405, "Method Not Allowed", "only GET\n", "text/plain", "Allow: GET\r\n");
    if (req.path != "/metrics") return response(404, "Not Found", "metrics are at /metrics\n");
    return response(200, "OK", render(), kExpositionContentType);
}

Result<int> open_listener(const nvmeof::transport::ListenAddress &addr) {
    auto fail = [&](const char *what) {
        return make_error(DOCA_ERROR_IO_FAILED,
                          "metrics endpoint " + addr.str() + ": " + what + ": " + std::strerror(errno));
    };
    sockaddr_storage ss{};
    socklen_t len = 0;
    const bool v6 = addr.host.find(':') != std::string::npos;
    if (v6) {
        auto *a = reinterpret_cast<sockaddr_in6 *>(&ss);
        a->sin6_family = AF_INET6;
        a->sin6_port = htons(addr.port);
        if (inet_pton(AF_INET6, addr.host.c_str(), &a->sin6_addr) != 1)
            return make_error(DOCA_ERROR_INVALID_VALUE,
                              "metrics endpoint " + addr.str() + ": not an address");
        len = sizeof(*a);
    } else {
        auto *a = reinterpret_cast<sockaddr_in *>(&ss);
        a->sin_family = AF_INET;
        a->sin_port = htons(addr.port);
        if (inet_pton(AF_INET, addr.host.c_str(), &a->sin_addr) != 1)
            return make_error(DOCA_ERROR_INVALID_VALUE,
                              "metrics endpoint " + addr.str() + ": not an address");
        len = sizeof(*a);
    }
    int fd = ::socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return fail("socket");
    int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (v6) ::setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
    if (::bind(fd, reinterpret_cast<sockaddr *>(&ss), len) != 0 || ::listen(fd, 16) != 0) {
        auto e = fail("bind/listen");
        ::close(fd);
        return e;
    }
    return fd;
}

uint16_t bound_port(int fd) {
    sockaddr_storage ss{};
    socklen_t len = sizeof(ss);
    ::getsockname(fd, reinterpret_cast<sockaddr *>(&ss), &len);
    if (ss.ss_family == AF_INET6) return ntohs(reinterpret_cast<sockaddr_in6 *>(&ss)->sin6_port);
    return ntohs(reinterpret_cast<sockaddr_in *>(&ss)->sin_port);
}

// Sends all of data, blocking up to the socket's send timeout; a peer that does not read gives
// up its answer, not the server's time.
void send_all(int fd, std::string_view data) {
    while (!data.empty()) {
        ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;
        data.remove_prefix(static_cast<size_t>(n));
    }
}

} // namespace

MetricsServer::MetricsServer(nvmeof::transport::ListenAddress address, Render render,
                             MetricsServerOptions options)
    : address_(std::move(address)), render_(std::move(render)), options_(options) {}

MetricsServer::~MetricsServer() {
    stop();
}

Status MetricsServer::start() {
    auto fd = open_listener(address_);
    if (!fd) return fd.error();
    listen_fd_ = *fd;
    port_ = bound_port(listen_fd_);
    wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    thread_ = std::thread([this] { run(); });
    skiff::log::get("metrics")->info("metrics: serving http://{}/metrics",
                                     nvmeof::transport::host_port(address_.host, port_));
    return Status::success();
}

void MetricsServer::stop() {
    if (thread_.joinable()) {
        stop_.store(true);
        uint64_t one = 1;
        (void)!::write(wake_fd_, &one, sizeof(one));
        thread_.join();
    }
    for (auto &c : clients_) ::close(c.fd);
    clients_.clear();
    if (listen_fd_ >= 0) ::close(listen_fd_);
    if (wake_fd_ >= 0) ::close(wake_fd_);
    listen_fd_ = wake_fd_ = -1;
}

void MetricsServer::run() {
    std::vector<pollfd> fds;
    while (!stop_.load()) {
        fds.assign({{wake_fd_, POLLIN, 0}, {listen_fd_, POLLIN, 0}});
        for (auto &c : clients_) fds.push_back({c.fd, POLLIN, 0});
        if (::poll(fds.data(), fds.size(), 200) < 0 && errno != EINTR) break;
        // Clients first: fds[2 + i] is clients_[i] until clients_ changes.
        std::vector<Client> kept;
        for (size_t i = 0; i < clients_.size(); ++i) {
            Client &c = clients_[i];
            if (!(fds[2 + i].revents & (POLLIN | POLLHUP | POLLERR)) || serve(c))
                kept.push_back(std::move(c));
            else
                ::close(c.fd);
        }
        clients_ = std::move(kept);
        expire(now_ms());
        if (fds[1].revents & POLLIN) accept_clients();
    }
}

void MetricsServer::accept_clients() {
    for (;;) {
        int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0 && (errno == EMFILE || errno == ENFILE)) {
            // The connection stays in the backlog and the socket readable: pause rather than spin.
            skiff::log::get("metrics")->warn("metrics: cannot accept: {}", std::strerror(errno));
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        if (fd < 0) return; // EAGAIN, or a failure the next poll retries
        if (clients_.size() >= options_.max_connections) {
            // Best effort on a fresh socket (its buffer is empty): the peer learns why.
            send_all(fd, response(503, "Service Unavailable", "too many metrics connections\n"));
            // Whatever the peer sent already is read first: closing over unread bytes would reset
            // the connection, and the peer could lose the answer.
            char discard[1024];
            for (int i = 0; i < 8 && ::recv(fd, discard, sizeof(discard), MSG_DONTWAIT) > 0; ++i) {
            }
            ::shutdown(fd, SHUT_WR);
            ::close(fd);
            skiff::log::get("metrics")->debug("metrics: refused a connection: {} already open",
                                              clients_.size());
            continue;
        }
        clients_.push_back({fd, {}, now_ms() + static_cast<uint64_t>(options_.read_timeout_ms), false});
    }
}

// Reads what arrived; once the head is complete (or cannot be), answers. Returns false when
// the connection is done.
bool MetricsServer::serve(Client &c) {
    char buf[4096];
    // A few reads per turn: a peer that floods the socket does not keep the thread to itself
    // (more than a whole head's worth per turn either way).
    for (int reads = 0; reads < 4; ++reads) {
        ssize_t n = ::recv(c.fd, buf, sizeof(buf), 0);
        if (n == 0) return false;
        if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
        if (c.draining) continue; // what follows an answer is not read, only discarded
        c.received.append(buf, static_cast<size_t>(n));
        auto head_len = request_head_length(c.received);
        if (!head_len && c.received.size() <= options_.max_head_bytes) continue;
        if (!head_len || *head_len > options_.max_head_bytes) {
            answer(c, response(431, "Request Header Fields Too Large",
                               "request head over " + std::to_string(options_.max_head_bytes) + " bytes\n"));
            continue;
        }
        auto req = parse_request_head(std::string_view(c.received).substr(0, *head_len));
        if (!req) {
            skiff::log::get("metrics")->debug("metrics: malformed request: {}", req.error().message);
            answer(c, response(400, "Bad Request", req.error().message + "\n"));
        } else {
            answer(c, route(*req, render_));
        }
    }
    return true;
}

// Sends the whole response now (blocking up to the send timeout), then keeps the connection
// only to read and discard what the peer still sends, so closing does not reset the connection
// before the peer has read the answer.
void MetricsServer::answer(Client &c, const std::string &text) {
    timeval tv{options_.read_timeout_ms / 1000, (options_.read_timeout_ms % 1000) * 1000};
    ::setsockopt(c.fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    int flags = ::fcntl(c.fd, F_GETFL);
    ::fcntl(c.fd, F_SETFL, flags & ~O_NONBLOCK);
    send_all(c.fd, text);
    ::fcntl(c.fd, F_SETFL, flags | O_NONBLOCK);
    ::shutdown(c.fd, SHUT_WR);
    c.draining = true;
    c.received.clear();
    c.received.shrink_to_fit();
    // A peer that keeps the connection open after its answer gets a short grace, not the
    // whole read timeout.
    c.deadline_ms = std::min(c.deadline_ms, now_ms() + 1000);
}

void MetricsServer::expire(uint64_t now) {
    std::vector<Client> kept;
    for (auto &c : clients_) {
        if (now < c.deadline_ms) {
            kept.push_back(std::move(c));
            continue;
        }
        if (!c.draining)
            send_all(c.fd, response(408, "Request Timeout", "request head not received in time\n"));
        ::close(c.fd);
    }
    clients_ = std::move(kept);
}

} // namespace skiff::dataplane::metrics
