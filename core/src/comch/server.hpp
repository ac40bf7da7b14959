// doca_comch_server: the DPU-side end. Listens on the socket of (representor PCI address, name),
// accepts up to kMaxClients clients, and reports each one that connects or goes away through
// the connection status callbacks. Starts synchronously (RUNNING at once). A client whose uid the
// peer policy does not admit (SO_PEERCRED, peer_policy.hpp) is refused before its handshake.
#pragma once

#include "comch/endpoint.hpp"
#include "comch/peer_policy.hpp"

#include <memory>

struct doca_dev_rep;

struct doca_comch_server final : skiff::core::comch::Endpoint {
  public:
    doca_comch_server(doca_dev *dev, doca_dev_rep *rep, std::string name, std::string path);

    doca_dev_rep *rep() const { return rep_; }
    doca_error_t set_connection_cbs(doca_comch_event_connection_status_changed_cb_t on_connect,
                                    doca_comch_event_connection_status_changed_cb_t on_disconnect);
    doca_error_t disconnect(doca_comch_connection *conn);
    bool owns(const doca_comch_connection *conn) const override;

  protected:
    doca_error_t open_transport() override;
    bool on_readable(doca_comch_connection *conn) override;
    void close_transport() override;

  private:
    bool accept_one();
    void refuse(int fd, skiff::core::comch::RefuseReason reason);
    bool handshake(doca_comch_connection *conn, const skiff::core::comch::FrameHeader &hello);
    void lose(doca_comch_connection *conn);
    doca_comch_connection *free_slot();

    doca_dev_rep *rep_;
    std::string path_;
    int listen_fd_ = -1;
    bool bound_ = false;                    // path_ is our socket (removed at stop)
    skiff::core::comch::PeerPolicy policy_; // read from the environment at start
    doca_comch_event_connection_status_changed_cb_t on_connect_ = nullptr;
    doca_comch_event_connection_status_changed_cb_t on_disconnect_ = nullptr;
    std::unique_ptr<doca_comch_connection[]> conns_; // kMaxClients slots, built at start
};
