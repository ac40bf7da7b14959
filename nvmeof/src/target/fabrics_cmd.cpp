// Fabrics commands: Connect, Property Get/Set, Disconnect (Authentication Send/Receive: auth_cmd.cpp).
#include "commands.hpp"
#include "skiff/core/log.hpp"
#include "skiff/nvmeof/auth/messages.hpp"
#include "skiff/nvmeof/target/target.hpp"

#include <cstddef>
#include <cstring>

namespace skiff::nvmeof::target::detail {
namespace {

using wire::ConnectCmd;
using wire::PropertyCmd;

// Connect "invalid parameters" result: IPO in bits 15:0, IATTR bit 16 set when the offset is
// into the connect data rather than the command.
void fail_connect_param(Request &req, bool in_data, uint32_t offset) {
    req.fail(NVME_SCT_CMD_SPECIFIC, NVME_SC_CONNECT_INVALID_PARAM);
    req.cqe.result = offset | (in_data ? (1u << 16) : 0u);
}

std::string nqn_field(const char *field) {
    return std::string(field, strnlen(field, NVME_NQN_LENGTH));
}

// The host NQN must be NUL terminated within its 256 bytes and well formed, or empty: SPDK's
// initiator connects with an empty host NQN by default, and nvmet and SPDK's target accept it
// where any host may connect. Whether that is allowed is the subsystem's decision (an empty NQN
// is never on a host list), made in connect_admin.
bool check_host_nqn(Request &req, const nvmf_connect_data &data, std::string &hostnqn) {
    if (strnlen(data.hostnqn, NVME_NQN_LENGTH) == NVME_NQN_LENGTH) {
        fail_connect_param(req, true, offsetof(nvmf_connect_data, hostnqn));
        return false;
    }
    hostnqn = nqn_field(data.hostnqn);
    if (hostnqn.empty()) return true;
    if (auto why = check_nqn(hostnqn); !why.empty()) {
        skiff::log::get("nvmeof")->warn("connect from {} rejected: host NQN: {}",
                                        req.queue->transport().peer_name(), why);
        fail_connect_param(req, true, offsetof(nvmf_connect_data, hostnqn));
        return false;
    }
    return true;
}

// A host with a TLS PSK must use TLS wherever TLS is offered: on a listener where it is optional,
// a plaintext Connect claiming that host (for a subsystem its key covers; for discovery, any key
// of the host) is refused, unless the listener sets allow_plaintext_psk_hosts.
bool plaintext_psk_host(const Queue &q, const std::string &hostnqn, const Subsystem &subsys) {
    const Port &port = q.port();
    if (q.transport().tls_identity() || port.secure_channel != SecureChannel::kOptional ||
        port.allow_plaintext_psk_hosts || hostnqn.empty())
        return false;
    const tls::PskStore &psks = q.target().tls_psks();
    return subsys.is_discovery() ? psks.has_host(hostnqn) : psks.find(hostnqn, subsys.nqn()).has_value();
}

// The host's queue limit (max_queues_per_host). A queue that needs no authentication takes its
// place now (into `ticket`); one that must authenticate only needs room: it takes its place once
// it authenticated (auth_cmd.cpp), so a peer that merely claims the host NQN takes nothing.
bool admit_queue(Queue &q, const std::string &hostnqn, bool must_authenticate, QueueTicket &ticket) {
    Admission &admission = q.target().admission();
    if (must_authenticate) return admission.queue_room(hostnqn, q.transport().peer_name());
    ticket = admission.take_queue(hostnqn, q.transport().peer_name());
    return static_cast<bool>(ticket);
}

void connect_admin(Request &req, const ConnectCmd &cmd, const nvmf_connect_data &data,
                   const std::string &hostnqn, std::shared_ptr<Subsystem> subsys) {
    Queue &q = *req.queue;
    auto log = skiff::log::get("nvmeof");
    if (cmd.sqsize == 0 || cmd.sqsize >= q.target().limits().max_admin_queue_depth)
        return fail_connect_param(req, false, offsetof(ConnectCmd, sqsize));
    if (data.cntlid != 0xFFFF) return fail_connect_param(req, true, offsetof(nvmf_connect_data, cntlid));
    if (!subsys->host_allowed(hostnqn)) {
        log->warn("connect from {} rejected: host {} is not allowed on {}", q.transport().peer_name(),
                  hostnqn.empty() ? "(empty host NQN)" : hostnqn, subsys->nqn());
        req.fail(NVME_SCT_CMD_SPECIFIC, NVME_SC_CONNECT_INVALID_HOST);
        return;
    }
    uint32_t kato = cmd.kato;
    if (subsys->is_discovery() && kato == 0) kato = q.target().limits().discovery_kato_ms;
    std::array<uint8_t, 16> hostid{};
    std::memcpy(hostid.data(), data.hostid, 16);
    // Discovery asks a host for DH-HMAC-CHAP too when it has a secret for it, so a peer that only
    // claims the host's NQN cannot read the host's discovery log (Target::discovery_auth).
    auto secrets = subsys->is_discovery() ? q.target().discovery_auth(hostnqn)
                                          : q.target().host_auth(hostnqn, subsys->nqn());
    // A TLS session keyed by a PSK that this host's own DH-HMAC-CHAP generated (secure channel
    // concatenation) carries that authentication: its controller does not ask for it again
    // (nvmet neither). The identity named this host and subsystem (checked before).
    if (const tls::PskIdentity *id = q.transport().tls_identity(); id && id->generated) secrets = nullptr;
    // Over the host's queue limit no controller is made: Controller Busy, the status the
    // specification gives "no controller available" (nvmet answers it when out of controller ids).
    QueueTicket ticket;
    if (!admit_queue(q, hostnqn, secrets != nullptr, ticket)) {
        req.fail(NVME_SCT_CMD_SPECIFIC, NVME_SC_CONNECT_CTRL_BUSY, true);
        return;
    }
    auto ctrl = q.target().create_controller(subsys, hostnqn, hostid, kato, q.port().id,
                                             q.transport().max_transfer());
    if (!ctrl) {
        req.fail(NVME_SCT_CMD_SPECIFIC, NVME_SC_CONNECT_CTRL_BUSY);
        return;
    }
    ctrl->set_auth(std::move(secrets));
    q.bind(ctrl, 0, cmd.sqsize, cmd.cattr & 0x04);
    q.hold_quota(std::move(ticket));
    req.cqe.result = ctrl->cntlid() | (ctrl->auth() ? auth::kConnectAuthreqAtr : 0u);
    log->info("connect: {} host {} -> {} controller {} (admin queue, kato {} ms{})",
              q.transport().peer_name(), hostnqn, subsys->nqn(), ctrl->cntlid(), kato,
              ctrl->auth() ? ", DH-HMAC-CHAP required" : "");
}

void connect_io(Request &req, const ConnectCmd &cmd, const nvmf_connect_data &data,
                const std::string &hostnqn, const Subsystem &subsys) {
    Queue &q = *req.queue;
    auto ctrl = q.target().find_controller(data.cntlid);
    if (!ctrl || ctrl->dead()) return fail_connect_param(req, true, offsetof(nvmf_connect_data, cntlid));
    if (&ctrl->subsystem() != &subsys)
        return fail_connect_param(req, true, offsetof(nvmf_connect_data, subsysnqn));
    if (ctrl->hostnqn() != hostnqn)
        return fail_connect_param(req, true, offsetof(nvmf_connect_data, hostnqn));
    // A host taken off the subsystem's list keeps no way in: its controllers are being torn
    // down (Target::enforce_host_access) and get no new queues meanwhile.
    if (!subsys.host_allowed(hostnqn)) {
        skiff::log::get("nvmeof")->warn("connect from {} rejected: host {} is no longer allowed on {} "
                                        "(I/O queue of controller {})",
                                        q.transport().peer_name(), hostnqn, subsys.nqn(), ctrl->cntlid());
        return (void)req.fail(NVME_SCT_CMD_SPECIFIC, NVME_SC_CONNECT_INVALID_HOST);
    }
    if (std::memcmp(ctrl->hostid().data(), data.hostid, 16) != 0)
        return fail_connect_param(req, true, offsetof(nvmf_connect_data, hostid));
    if (cmd.sqsize == 0 || cmd.sqsize >= q.target().limits().max_queue_depth)
        return fail_connect_param(req, false, offsetof(ConnectCmd, sqsize));
    if (!ctrl->ready()) return (void)req.fail(NVME_SCT_GENERIC, NVME_SC_CMD_SEQ_ERROR);
    if (cmd.qid > ctrl->io_queues()) return fail_connect_param(req, false, offsetof(ConnectCmd, qid));
    // Over the host's queue limit: Invalid Parameters on the QID (with DNR, as every Connect
    // failure here), as for a QID above the queues granted: this queue cannot exist now.
    QueueTicket ticket;
    if (!admit_queue(q, hostnqn, ctrl->auth() != nullptr, ticket))
        return fail_connect_param(req, false, offsetof(ConnectCmd, qid));
    if (!ctrl->claim_qid(cmd.qid)) {
        skiff::log::get("nvmeof")->warn("connect from {}: queue {} of controller {} already exists",
                                        q.transport().peer_name(), cmd.qid, ctrl->cntlid());
        return (void)req.fail(NVME_SCT_GENERIC, NVME_SC_CMD_SEQ_ERROR);
    }
    q.bind(ctrl, cmd.qid, cmd.sqsize, cmd.cattr & 0x04);
    q.hold_quota(std::move(ticket));
    req.cqe.result = ctrl->cntlid() | (ctrl->auth() ? auth::kConnectAuthreqAtr : 0u);
    skiff::log::get("nvmeof")->debug("connect: {} I/O queue {} (depth {}) of controller {}",
                                     q.transport().peer_name(), cmd.qid, cmd.sqsize + 1, ctrl->cntlid());
}

void execute_connect(Request &req) {
    const auto &cmd = wire::view_as<ConnectCmd>(req.cmd);
    nvmf_connect_data data;
    std::memcpy(&data, req.buf, sizeof(data));
    Queue &q = *req.queue;

    std::string hostnqn;
    if (!check_host_nqn(req, data, hostnqn)) return complete(req);
    std::string subnqn = nqn_field(data.subsysnqn);
    auto subsys = q.target().find_subsystem(subnqn);
    if (!subsys || !q.target().port_exposes(q.port(), *subsys)) {
        skiff::log::get("nvmeof")->warn("connect from {} rejected: no subsystem {} on port {}:{}",
                                        q.transport().peer_name(), subnqn, q.port().traddr, q.port().trsvcid);
        fail_connect_param(req, true, offsetof(nvmf_connect_data, subsysnqn));
        return complete(req);
    }
    // NVMe/RDMA names the queue twice (RDMA-CM private data, then Connect): both must agree.
    if (auto bound = q.transport().bound_qid(); bound && *bound != cmd.qid) {
        skiff::log::get("nvmeof")->warn(
            "connect from {} rejected: QID {} but the connection was made for QID {}",
            q.transport().peer_name(), cmd.qid, *bound);
        fail_connect_param(req, false, offsetof(ConnectCmd, qid));
        return complete(req);
    }
    if (const tls::PskIdentity *id = q.transport().tls_identity();
        id && (id->hostnqn != hostnqn || (id->subnqn != subnqn && !subsys->is_discovery()))) {
        skiff::log::get("nvmeof")->warn(
            "connect from {} rejected: host {} to {} over a TLS session whose PSK "
            "identity names host {} and subsystem {}",
            q.transport().peer_name(), hostnqn, subnqn, id->hostnqn, id->subnqn);
        req.fail(NVME_SCT_CMD_SPECIFIC, NVME_SC_CONNECT_INVALID_HOST);
        return complete(req);
    }
    if (plaintext_psk_host(q, hostnqn, *subsys)) {
        skiff::log::get("nvmeof")->warn(
            "connect from {} rejected: host {} has a TLS PSK and must use TLS on this listener ({}:{}, "
            "secure_channel optional); it connected in plaintext (allow_plaintext_psk_hosts is off)",
            q.transport().peer_name(), hostnqn, q.port().traddr, q.port().trsvcid);
        req.fail(NVME_SCT_CMD_SPECIFIC, NVME_SC_CONNECT_INVALID_HOST);
        return complete(req);
    }
    if (cmd.qid == 0)
        connect_admin(req, cmd, data, hostnqn, subsys);
    else
        connect_io(req, cmd, data, hostnqn, *subsys);
    complete(req);
}

void execute_property_get(Request &req) {
    const auto &cmd = wire::view_as<PropertyCmd>(req.cmd);
    Controller &ctrl = *req.queue->controller();
    bool wide = cmd.attrib & 0x7;
    switch (cmd.offset) {
    case wire::kPropCap:
        if (!wide) return (void)(req.fail(NVME_SCT_GENERIC, NVME_SC_INVALID_FIELD), complete(req));
        req.cqe.result = ctrl.cap();
        break;
    case wire::kPropVs:
        req.cqe.result = ctrl.vs();
        break;
    case wire::kPropCc:
        req.cqe.result = ctrl.cc();
        break;
    case wire::kPropCsts:
        req.cqe.result = ctrl.csts();
        break;
    default:
        req.fail(NVME_SCT_GENERIC, NVME_SC_INVALID_FIELD);
    }
    complete(req);
}

void execute_property_set(Request &req) {
    const auto &cmd = wire::view_as<PropertyCmd>(req.cmd);
    if (cmd.offset == wire::kPropCc && !(cmd.attrib & 0x7))
        req.queue->controller()->write_cc(static_cast<uint32_t>(cmd.value));
    else
        req.fail(NVME_SCT_GENERIC, NVME_SC_INVALID_FIELD);
    complete(req);
}

// Deletes the I/O queue but leaves the connection to the host (it closes it, or the stall timeout
// does if it goes silent): commands the host pipelined behind the Disconnect are still answered
// (Command Sequence Error) instead of being lost with the connection.
void execute_disconnect(Request &req) {
    Queue &q = *req.queue;
    complete(req);
    q.delete_by_host();
}

} // namespace

bool parse_fabrics(Request &req) {
    const auto &cmd = wire::view_as<wire::FabricsCmd>(req.cmd);
    Queue &q = *req.queue;
    if (cmd.fctype == wire::kFctConnect) {
        if (q.connected()) return fail(req, NVME_SCT_GENERIC, NVME_SC_CMD_SEQ_ERROR);
        const auto &connect = wire::view_as<ConnectCmd>(req.cmd);
        if (connect.recfmt != 0) return fail(req, NVME_SCT_CMD_SPECIFIC, NVME_SC_CONNECT_FORMAT);
        if (!expect_transfer(req, sizeof(nvmf_connect_data), DataDir::kHostToCtrl)) return false;
        req.execute = execute_connect;
        return true;
    }
    if (!q.connected()) return fail(req, NVME_SCT_GENERIC, NVME_SC_CMD_SEQ_ERROR);
    if (cmd.fctype == wire::kFctAuthSend) return parse_auth_send(req);
    if (cmd.fctype == wire::kFctAuthReceive) return parse_auth_receive(req);
    // Until the queue authenticated, nothing but authentication runs on it.
    if (!q.authenticated()) return fail(req, NVME_SCT_CMD_SPECIFIC, NVME_SC_AUTH_REQUIRED);
    switch (cmd.fctype) {
    case wire::kFctPropertyGet:
    case wire::kFctPropertySet:
        // Properties belong to the controller: admin queue only.
        if (q.qid() != 0) return fail(req, NVME_SCT_GENERIC, NVME_SC_INVALID_OPCODE);
        if (!expect_transfer(req, 0, DataDir::kNone)) return false;
        req.execute = cmd.fctype == wire::kFctPropertyGet ? execute_property_get : execute_property_set;
        return true;
    case wire::kFctDisconnect:
        if (q.qid() == 0) return fail(req, NVME_SCT_CMD_SPECIFIC, NVME_SC_DISCONNECT_INVALID_QTYPE);
        if (!expect_transfer(req, 0, DataDir::kNone)) return false;
        req.execute = execute_disconnect;
        return true;
    default:
        return fail(req, NVME_SCT_GENERIC, NVME_SC_INVALID_OPCODE);
    }
}

} // namespace skiff::nvmeof::target::detail
