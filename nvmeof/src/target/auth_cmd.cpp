// Fabrics Authentication Send (05h) and Receive (06h): carry the DH-HMAC-CHAP messages of one
// queue to its AuthSession, mark the queue authenticated (and count it against its host's queue
// limit from then on), and close only this queue when the authentication fails (after the
// response, so the host reads AUTH_Failure1) or does not finish in time (auth_timeout_ms).
#include "skiff/nvmeof/target/auth_session.hpp"
#include "commands.hpp"
#include "skiff/core/log.hpp"
#include "skiff/nvmeof/auth/dh_group.hpp"
#include "skiff/nvmeof/auth/hash.hpp"
#include "skiff/nvmeof/auth/messages.hpp"
#include "skiff/nvmeof/target/target.hpp"
#include "skiff/nvmeof/tls/generated_psk.hpp"

#include <cstring>

namespace skiff::nvmeof::target::detail {
namespace {

using auth::AuthCmd;

void log_outcome(const Queue &q, AuthSession::Verdict v, const AuthSession &s) {
    const Controller &c = *q.controller();
    auto log = skiff::log::get("nvmeof");
    if (v == AuthSession::Verdict::kAuthenticated)
        log->info("authenticated: {} host {} -> {} controller {} queue {} (DH-HMAC-CHAP {}, {}{})",
                  q.transport().peer_name(), c.hostnqn(), c.subsystem().nqn(), c.cntlid(), q.qid(),
                  auth::hash_name(s.hash()), auth::dh_group_name(s.dh_group()),
                  s.bidirectional() ? ", bidirectional" : "");
    else if (v == AuthSession::Verdict::kClose)
        log->warn("authentication failed: {} host {} -> {} controller {} queue {}: {}; closing the queue",
                  q.transport().peer_name(), c.hostnqn(), c.subsystem().nqn(), c.cntlid(), q.qid(),
                  s.failure_reason());
}

// The host proved its identity: only now does the queue count against that host's
// max_queues_per_host (a re-authenticated queue already does). Over the limit the queue is
// closed unauthenticated.
void admit_authenticated(Queue &q) {
    if (!q.holds_quota()) {
        QueueTicket ticket =
            q.target().admission().take_queue(q.controller()->hostnqn(), q.transport().peer_name());
        if (!ticket) return q.request_disconnect("the host is at its queue limit (max_queues_per_host)");
        q.hold_quota(std::move(ticket));
    }
    q.set_authenticated();
}

// Secure channel concatenation: the PSK this authentication generated goes to the target's
// store, where the host's TLS connections find it by their identity's digest (the host
// reconnects over TLS with "NVMe1G<hh> <hostnqn> <subnqn> <digest>").
void keep_generated_psk(Queue &q, AuthSession &s) {
    if (s.secure_channel() == auth::kScNone) return;
    const Controller &c = *q.controller();
    const tls::PskHash hash = *tls::concat_hash(s.hash());
    q.target().tls_psks().put_generated(c.hostnqn(), c.subsystem().nqn(), hash, s.take_generated_psk());
    skiff::log::get("nvmeof")->info(
        "secure channel concatenation: {} host {} -> {} controller {}: TLS PSK {} from this authentication "
        "({}); the host reconnects over TLS with it",
        q.transport().peer_name(), c.hostnqn(), c.subsystem().nqn(), c.cntlid(),
        s.secure_channel() == auth::kScNewTlsPsk ? "generated" : "replaced", auth::hash_name(s.hash()));
}

void apply(Request &req, AuthSession::Verdict v) {
    Queue &q = *req.queue;
    log_outcome(q, v, *q.auth_session());
    if (v == AuthSession::Verdict::kAuthenticated) {
        keep_generated_psk(q, *q.auth_session());
        admit_authenticated(q);
    }
    if (v == AuthSession::Verdict::kClose) {
        q.controller()->subsystem().host_events().auth_failed(q.controller()->hostnqn());
        q.request_disconnect("authentication failed");
    }
}

AuthSession &session(Queue &q) {
    if (!q.auth_session()) {
        const Controller &c = *q.controller();
        auto s = std::make_unique<AuthSession>(c.auth(), c.hostnqn(), c.subsystem().nqn());
        s->set_queue(q.qid() == 0, q.transport().tls_identity() != nullptr);
        q.start_auth_session(std::move(s));
    }
    return *q.auth_session();
}

void execute_auth_send(Request &req) {
    AuthSession &s = session(*req.queue);
    apply(req, s.on_send(auth::ByteView(req.buf, req.data_len)));
    complete(req);
}

void execute_auth_receive(Request &req) {
    AuthSession &s = session(*req.queue);
    std::memset(req.buf, 0, req.data_len);
    apply(req, s.on_receive(std::span<uint8_t>(req.buf, req.data_len)));
    complete(req);
}

// SECP E9h with SPSP0 = SPSP1 = 01h is the only protocol; TL/AL must be non-zero and match the
// SGL (Invalid Field otherwise, as nvmet).
bool parse_auth(Request &req, DataDir dir) {
    const auto &cmd = wire::view_as<AuthCmd>(req.cmd);
    if (cmd.secp != auth::kSecpNvmeAuth || cmd.spsp0 != auth::kSpsp0 || cmd.spsp1 != auth::kSpsp1 ||
        cmd.length == 0)
        return fail(req, NVME_SCT_GENERIC, NVME_SC_INVALID_FIELD);
    if (!expect_transfer(req, cmd.length, dir)) return false;
    req.execute = dir == DataDir::kHostToCtrl ? execute_auth_send : execute_auth_receive;
    return true;
}

} // namespace

bool authentication_overdue(const Queue &q, uint64_t now_ms) {
    if (q.authenticated() || q.auth_deadline_ms() == 0 || now_ms < q.auth_deadline_ms()) return false;
    const Controller &c = *q.controller();
    skiff::log::get("nvmeof")->warn(
        "authentication timeout: {} host {} -> {} controller {} queue {} did not complete DH-HMAC-CHAP "
        "within {} ms of its Connect (auth_timeout_ms); closing the queue",
        q.transport().peer_name(), c.hostnqn(), c.subsystem().nqn(), c.cntlid(), q.qid(),
        q.target().limits().auth_timeout_ms);
    c.subsystem().host_events().auth_failed(c.hostnqn());
    return true;
}

bool parse_auth_send(Request &req) {
    return parse_auth(req, DataDir::kHostToCtrl);
}

bool parse_auth_receive(Request &req) {
    return parse_auth(req, DataDir::kCtrlToHost);
}

} // namespace skiff::nvmeof::target::detail
