// The metrics endpoint: a small HTTP/1.x server on its own thread that answers GET /metrics
// with what `render` returns (the Prometheus text format), 404 for other paths, 405 for other
// methods, 400 for a malformed request. It never touches the data path: render reads counters
// the poll groups write (target_metrics.hpp). What a client can cost is bounded: the request head's
// size, the connections served at once, and the time a request may take to arrive.
#pragma once

#include "skiff/core/status.hpp"
#include "skiff/nvmeof/transport/transport.hpp"

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <thread>
#include <vector>

namespace skiff::dataplane::metrics {

struct MetricsServerOptions {
    size_t max_head_bytes = 8192; // a larger request head gets 431 and the connection closes
    size_t max_connections = 4;   // more at once are answered 503 and closed at accept
    int read_timeout_ms = 5000;   // a head not complete by then gets 408; also the send timeout
};

class MetricsServer {
  public:
    using Render = std::function<std::string()>;

    MetricsServer(nvmeof::transport::ListenAddress address, Render render, MetricsServerOptions options = {});
    ~MetricsServer();
    MetricsServer(const MetricsServer &) = delete;
    MetricsServer &operator=(const MetricsServer &) = delete;

    // Binds and listens (the error names the address and the errno text), then starts the thread.
    Status start();
    void stop();
    // The bound port (port 0 resolved).
    uint16_t port() const { return port_; }
    const nvmeof::transport::ListenAddress &address() const { return address_; }

  private:
    struct Client {
        int fd = -1;
        std::string received;
        uint64_t deadline_ms = 0;
        bool draining = false; // answered; reading what is left until the peer closes
    };

    void run();
    void accept_clients();
    // Returns false once the client is finished with (the caller closes it).
    bool serve(Client &c);
    void answer(Client &c, const std::string &response);
    void expire(uint64_t now_ms);

    nvmeof::transport::ListenAddress address_;
    Render render_;
    MetricsServerOptions options_;
    int listen_fd_ = -1;
    int wake_fd_ = -1;
    uint16_t port_ = 0;
    std::vector<Client> clients_; // the server thread's own
    std::atomic<bool> stop_{false};
    std::thread thread_;
};

} // namespace skiff::dataplane::metrics
