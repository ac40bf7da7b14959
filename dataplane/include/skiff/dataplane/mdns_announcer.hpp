// The mDNS/DNS-SD announcement of skiff-target's discovery listener (NVMe-oF TP8009): one service
// of type _nvme-disc._tcp on the listener's port, TXT "nqn=nqn.2014-08.org.nvmexpress.discovery"
// and "p=tcp" (or "p=roce" for an RDMA listener), published through avahi-daemon with Avahi's
// client library. Hosts that browse for the type (nvme-stas' stafd, SPDK's mDNS discovery) find
// the target's discovery controller without being given its address.
//
// The announcement lives on Avahi's own thread; the control plane calls announce() at start and
// after every configuration change (the listener may move). avahi-daemon need not be running
// when the target starts: the announcement is made when it appears, and again after it restarts.
// A name taken by another service on the network is replaced by Avahi's alternative ("name #2").
// Built without Avahi (SKIFF_HAVE_AVAHI unset), create() fails with a message that says so.
#pragma once

#include "skiff/core/status.hpp"
#include "skiff/nvmeof/transport/transport.hpp"

#include <memory>
#include <optional>
#include <string>

namespace skiff::dataplane {

class MdnsAnnouncer {
  public:
    // The DNS-SD service type of NVMe-oF discovery controllers (TP8009).
    static constexpr const char *kServiceType = "_nvme-disc._tcp";

    // `name`: the service instance name (empty: "skiff-target on <host name>").
    static Result<std::unique_ptr<MdnsAnnouncer>> create(const std::string &name);
    virtual ~MdnsAnnouncer() = default;

    // Announces `listener` (replacing what was announced), or withdraws the announcement when
    // it is nullopt. An address other than a wildcard (0.0.0.0, ::) is announced only on the
    // interface that holds it, for its address family.
    virtual void announce(const std::optional<nvmeof::transport::ListenAddress> &listener) = 0;

    // The TXT records of a listener: {"nqn=nqn.2014-08.org.nvmexpress.discovery", "p=tcp"}.
    static std::vector<std::string> txt_records(const nvmeof::transport::ListenAddress &listener);
};

} // namespace skiff::dataplane
