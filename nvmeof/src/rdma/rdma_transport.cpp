#include "skiff/nvmeof/rdma/rdma_transport.hpp"

#include "dpa_runtime.hpp"
#include "skiff/core/dpa_quiescence.hpp"
#include "rdma_queue_pair.hpp"
#include "rdma_srq.hpp"
#include "skiff/core/log.hpp"
#include "skiff/nvmeof/rdma/cm_private_data.hpp"
#include "skiff/nvmeof/transport/ip_address.hpp"

#include <arpa/inet.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace skiff::nvmeof::rdma {

namespace {

// "ADDR:PORT" ("[ADDR]:PORT" for IPv6) of the host behind a connect request.
std::string peer_of(rdma_cm_id *id) {
    return transport::describe_socket_address(rdma_get_peer_addr(id));
}

bool any_rdma_device() {
    int n = 0;
    ibv_device **list = ibv_get_device_list(&n);
    if (list) ibv_free_device_list(list);
    return list && n > 0;
}

} // namespace

RdmaTransport::RdmaTransport(transport::DataPathOptions datapath)
    : srqs_(std::make_unique<SrqPool>()), datapath_(datapath) {}

RdmaTransport::~RdmaTransport() {
    for (auto &[fd, l] : listeners_) {
        ::close(fd);
        rdma_destroy_id(l.id);
        rdma_destroy_event_channel(l.channel);
    }
}

void RdmaTransport::append_run_sequences(std::vector<uint64_t> &out) const {
    core::dpa::append_eu_run_sequences(published_dpa_.load(std::memory_order_acquire), out);
}

Result<int> RdmaTransport::listen(const transport::ListenAddress &addr) {
    auto error = [&](const std::string &why) {
        return make_error(DOCA_ERROR_NOT_FOUND, "rdma listener " + addr.str() + ": " + why);
    };
    auto sa = transport::socket_address(addr.host, addr.port);
    if (!sa) return error("not an IPv4 or IPv6 address");
    if (!any_rdma_device())
        return error("no RDMA device on this machine (ibv_get_device_list found none; for soft-RoCE: "
                     "modprobe rdma_rxe; rdma link add rxe0 type rxe netdev <iface>)");
    if (datapath_.mode == transport::DataPathOptions::Mode::dpa && !dpa_) {
        auto rt = DpaRuntime::start(datapath_.dpa_eus);
        if (!rt) return error(rt.error().message);
        dpa_ = std::move(*rt);
        published_dpa_.store(dpa_->dpa(), std::memory_order_release);
    }
    Listener l;
    l.channel = rdma_create_event_channel();
    if (!l.channel)
        return error(std::string("cannot open the RDMA-CM event channel (/dev/infiniband/rdma_cm): ") +
                     std::strerror(errno));
    auto undo = [&](const std::string &why) {
        int e = errno;
        if (l.id) rdma_destroy_id(l.id);
        rdma_destroy_event_channel(l.channel);
        return error(why + ": " + std::strerror(e));
    };
    int flags = fcntl(l.channel->fd, F_GETFL);
    if (flags < 0 || fcntl(l.channel->fd, F_SETFL, flags | O_NONBLOCK)) return undo("O_NONBLOCK");
    if (rdma_create_id(l.channel, &l.id, nullptr, RDMA_PS_TCP)) return undo("rdma_create_id");
    // An IPv6 listener on "::" takes IPv6 connections only, as the TCP listener does.
    int one = 1;
    if (sa->family() == AF_INET6 &&
        rdma_set_option(l.id, RDMA_OPTION_ID, RDMA_OPTION_ID_AFONLY, &one, sizeof(one)))
        return undo("rdma_set_option(RDMA_OPTION_ID_AFONLY)");
    if (rdma_bind_addr(l.id, sa->get()))
        return undo("no RDMA device has address " + addr.host + " (rdma_bind_addr)");
    if (rdma_listen(l.id, 128)) return undo("rdma_listen");
    // The service closes the fd it is given; the channel keeps its own.
    int fd = dup(l.channel->fd);
    if (fd < 0) return undo("dup");
    listeners_[fd] = l;
    if (l.id->verbs)
        skiff::log::get("rdma")->info("rdma listener {} on device {}", addr.str(),
                                      ibv_get_device_name(l.id->verbs->device));
    return fd;
}

uint16_t RdmaTransport::bound_port(int listen_fd) const {
    auto it = listeners_.find(listen_fd);
    return it == listeners_.end() ? 0 : ntohs(rdma_get_src_port(it->second.id));
}

std::unique_ptr<transport::Connection> RdmaTransport::accept(int listen_fd, target::Target &target,
                                                             const target::Port &port, int group) {
    auto it = listeners_.find(listen_fd);
    if (it == listeners_.end()) return nullptr;
    auto log = skiff::log::get("rdma");
    const target::Limits &limits = target.limits();
    rdma_cm_event *ev = nullptr;
    while (rdma_get_cm_event(it->second.channel, &ev) == 0) {
        if (ev->event != RDMA_CM_EVENT_CONNECT_REQUEST) {
            log->debug("listener {}: CM event {}", port.traddr, rdma_event_str(ev->event));
            rdma_ack_cm_event(ev);
            continue;
        }
        // Copy what we need: the event (and its private data) is gone once acknowledged.
        rdma_cm_id *id = ev->id;
        rdma_conn_param host = ev->param.conn;
        uint8_t priv[64] = {};
        size_t priv_len = std::min<size_t>(host.private_data_len, sizeof(priv));
        if (host.private_data) std::memcpy(priv, host.private_data, priv_len);
        host.private_data = nullptr;
        host.private_data_len = 0;
        rdma_ack_cm_event(ev);

        std::string peer = peer_of(id);
        ibv_device_attr dev{};
        CmLimits cm{limits.max_io_queues, limits.max_admin_queue_depth, limits.max_queue_depth, 0};
        if (ibv_query_device(id->verbs, &dev) == 0)
            cm.device_max_wr = static_cast<uint32_t>(std::min(dev.max_qp_wr / 2, dev.max_cqe / 3));
        CmDecision d;
        auto reject = [&](uint16_t status, const std::string &why) {
            log->warn("{}: RDMA connect rejected (qid {}): {} (status {:#x}: {})", peer, d.qid, why, status,
                      to_string(static_cast<CmRejectStatus>(status)));
            CmReject rej = make_reject(status);
            rdma_reject(id, &rej, sizeof(rej));
        };
        // Shared receive queue: one per (poll group, device). A queue deeper than it could
        // never have all its commands posted at once, so the SRQ's depth caps the queue depth.
        std::shared_ptr<RdmaSrq> srq;
        if (limits.rdma_srq_depth != 0) {
            auto got = srqs_->get(group, id->verbs, limits.rdma_srq_depth,
                                  uint32_t(sizeof(wire::Sqe)) + target::in_capsule_limit(limits),
                                  RdmaQueuePair::recv_wr_tag());
            if (!got) {
                reject(kRejectNoResources, got.error().message);
                rdma_destroy_id(id);
                continue;
            }
            srq = std::move(got.value());
            cm.device_max_wr =
                cm.device_max_wr == 0 ? srq->depth() : std::min(cm.device_max_wr, srq->depth());
        }
        d = check_connect(priv, priv_len, host.initiator_depth, cm);
        if (!d.accepted()) {
            reject(d.status, d.why);
            rdma_destroy_id(id);
            continue;
        }
        // An SRQ's receives are shared by the poll group's queues: a queue using one stays on the
        // poll group (the configuration refuses srq_depth with the dpa data path anyway).
        auto qp = std::make_unique<RdmaQueuePair>(id, peer, target, port, srq ? nullptr : dpa_);
        if (srq) qp->use_srq(std::move(srq));
        if (auto st = qp->start(d, host); !st) {
            reject(kRejectNoResources, st.error().message);
            continue; // the queue pair destroys the id
        }
        log->debug("{}: RDMA connect accepted: qid {} depth {}", peer, d.qid, d.depth);
        return qp;
    }
    return nullptr;
}

} // namespace skiff::nvmeof::rdma
