// The NVMe/TCP session: skiff's initiator library (nvmeof/src/host) connects the admin queue,
// enables the controller, reads Identify Namespace and connects one TCP connection per I/O queue.
#include "session.hpp"

#include "skiff/nvmeof/host/commands.hpp"
#include "skiff/nvmeof/auth/secret_file.hpp"
#include "skiff/nvmeof/host/controller.hpp"
#include "skiff/nvmeof/transport/ip_address.hpp"

#include <cstdio>
#include <fstream>
#include <nvme/types.h>

namespace skiff::perf {
namespace {

using namespace skiff::nvmeof::host;

class TcpIoQueue final : public IoQueue {
  public:
    TcpIoQueue(TcpQueue &q, uint32_t nsid) : q_(q), nsid_(nsid) {}

    Status submit(const IoCommand *cmds, uint32_t count) override {
        for (uint32_t i = 0; i < count; ++i) {
            const IoCommand &c = cmds[i];
            const auto sqe = c.write ? cmd::write(nsid_, c.lba, c.nlb) : cmd::read(nsid_, c.lba, c.nlb);
            // All but the last wait in the queue's send batch: one sendmsg for the lot.
            Result<uint16_t> cid =
                q_.submit(sqe, c.write ? DataDir::kHostToController : DataDir::kControllerToHost, c.data,
                          c.len, c.tag, i + 1 < count);
            if (!cid) return cid.error();
        }
        return Status::success();
    }
    Result<uint32_t> poll(IoCompletion *out, uint32_t max) override {
        Result<uint32_t> n = q_.poll(std::chrono::milliseconds(0));
        if (!n) return n.error();
        uint32_t got = 0;
        Completion c;
        while (got < max && q_.pop_completion(c)) out[got++] = {c.tag, c.status()};
        return got;
    }
    TransportCalls calls() const override {
        const QueueCounters &n = q_.counters();
        return {n.tx_sends, n.rx_reads, n.rx_empty_reads};
    }

  private:
    TcpQueue &q_;
    uint32_t nsid_;
};

class TcpSession final : public Session {
  public:
    TcpSession(std::unique_ptr<Controller> ctrl, NamespaceGeometry geo, uint32_t nsid)
        : ctrl_(std::move(ctrl)), geo_(geo) {
        for (size_t i = 0; i < ctrl_->io_queue_count(); ++i)
            queues_.push_back(std::make_unique<TcpIoQueue>(ctrl_->io_queue(i), nsid));
    }
    const NamespaceGeometry &geometry() const override { return geo_; }
    size_t queue_count() const override { return queues_.size(); }
    IoQueue &queue(size_t i) override { return *queues_.at(i); }
    std::string describe() const override {
        const auto &o = ctrl_->options();
        return "tcp " + nvmeof::transport::host_port(o.addr, o.port) + " " + o.subnqn + " (controller " +
               std::to_string(ctrl_->cntlid()) + ", " +
               trim_field(ctrl_->identity().mn, sizeof(ctrl_->identity().mn)) + ")";
    }
    Status shutdown() override { return ctrl_->shutdown(); }

  private:
    std::unique_ptr<Controller> ctrl_;
    NamespaceGeometry geo_;
    std::vector<std::unique_ptr<TcpIoQueue>> queues_;
};

} // namespace

Result<std::unique_ptr<Session>> connect_tcp_session(const PerfOptions &o) {
    ConnectOptions c;
    c.addr = o.addr;
    c.port = o.port;
    c.subnqn = o.nqn;
    if (!o.hostnqn.empty()) c.host.hostnqn = o.hostnqn;
    c.dhchap.secret = o.dhchap_secret;
    c.dhchap.ctrl_secret = o.dhchap_ctrl_secret;
    c.dhchap.concat = o.concat;
    c.io_queues = o.queues;
    c.io_queue_size = static_cast<uint16_t>(o.qd + 1); // at most size - 1 outstanding
    c.header_digest = o.header_digest;
    c.data_digest = o.data_digest;
    if (o.tls) {
        auto key = skiff::nvmeof::auth::read_secret_file(o.psk_file);
        if (!key) return make_error(DOCA_ERROR_INVALID_VALUE, "--psk-file: " + key.error().message);
        if (!key->warning.empty()) std::fprintf(stderr, "skiff-perf: warning: %s\n", key->warning.c_str());
        auto psk = skiff::nvmeof::tls::parse_interchange(key->text);
        if (!psk)
            return make_error(DOCA_ERROR_INVALID_VALUE,
                              "--psk-file " + o.psk_file + ": " + psk.error().message);
        c.tls_psk = std::move(*psk);
    }
    // Without SQ flow control the controller need not report SQ head pointers, and may finish a
    // successful read with its C2HData PDU (SUCCESS flag) instead of an extra response capsule.
    c.disable_sq_flow_control = !o.sq_flow_control;
    Result<std::unique_ptr<Controller>> ctrl = Controller::connect(c);
    if (!ctrl) return ctrl.error();
    if ((*ctrl)->io_queue_count() < o.queues)
        return make_error(DOCA_ERROR_NOT_SUPPORTED,
                          "the controller granted " + std::to_string((*ctrl)->io_queue_count()) +
                              " I/O queues, --queues asks for " + std::to_string(o.queues));
    Result<nvme_id_ns> ns = (*ctrl)->identify_namespace(o.nsid);
    if (!ns) return ns.error();
    if (ns->nsze == 0)
        return make_error(DOCA_ERROR_NOT_FOUND,
                          "namespace " + std::to_string(o.nsid) + " is not active on " + o.nqn);
    NamespaceGeometry geo;
    geo.block_size = 1u << ns->lbaf[ns->flbas & 0xF].ds;
    geo.blocks = ns->nsze;
    geo.max_transfer = (*ctrl)->max_transfer_bytes();
    return std::unique_ptr<Session>(new TcpSession(std::move(ctrl.value()), geo, o.nsid));
}

Result<std::unique_ptr<Session>> connect_session(const PerfOptions &o) {
    if (o.transport == "tcp") return connect_tcp_session(o);
    return make_error(DOCA_ERROR_NOT_SUPPORTED, "--transport " + o.transport + ": not available; use tcp");
}

} // namespace skiff::perf
