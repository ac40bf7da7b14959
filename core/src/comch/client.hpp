// doca_comch_client: the host-side end. Start leaves it STARTING; progress connects to the socket
// of (its own PCI address, server name), retrying every kConnectRetryMs while no server listens,
// and the ctx becomes RUNNING once the server welcomed it. The retries are ticks of a timerfd in
// the ctx's epoll set, so an application sleeping on the PE's notification handle retries too. A server that
// goes away (stops, dies, disconnects us) stops the client ctx: in-flight sends fail, then IDLE; start again
// to reconnect. The directory is checked at start and the server's uid at each connection
// (peer_policy.hpp): the client never sends to a socket someone else bound.
#pragma once

#include "comch/endpoint.hpp"
#include "comch/peer_policy.hpp"

struct doca_comch_client final : skiff::core::comch::Endpoint {
  public:
    doca_comch_client(doca_dev *dev, std::string name, std::string path);

    // RUNNING only: the one connection.
    doca_error_t connection(doca_comch_connection **out) const;
    bool owns(const doca_comch_connection *conn) const override { return conn == &conn_; }

  protected:
    bool starts_asynchronously() const override { return true; }
    doca_error_t open_transport() override;
    bool on_readable(doca_comch_connection *conn) override;
    void close_transport() override;

  private:
    bool try_connect();
    void server_gone(const char *why);
    void set_retry_timer(bool on);

    std::string path_;
    doca_comch_connection conn_;
    int retry_fd_ = -1; // timerfd: one tick per kConnectRetryMs while STARTING
    bool waiting_logged_ = false;
    skiff::core::comch::PeerPolicy policy_; // who may be the server; read from the environment at start
    bool untrusted_logged_ = false;
};
