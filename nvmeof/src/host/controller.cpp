// Controller life cycle: connect admin queue, enable, identify, connect I/O queues, shut down.
#include "skiff/nvmeof/host/controller.hpp"

#include "skiff/core/log.hpp"
#include "skiff/nvmeof/auth/messages.hpp"
#include "skiff/nvmeof/host/commands.hpp"
#include "skiff/nvmeof/transport/ip_address.hpp"

#include <algorithm>
#include <cstring>

namespace skiff::nvmeof::host {

std::string trim_field(const char *field, size_t width) {
    size_t n = strnlen(field, width);
    while (n > 0 && field[n - 1] == ' ') --n;
    return std::string(field, n);
}

namespace {

QueueConfig queue_config(const ConnectOptions &o, const std::optional<tls::SessionPsk> &tls, uint16_t qid,
                         uint16_t size) {
    QueueConfig c;
    c.addr = o.addr;
    c.port = o.port;
    c.qid = qid;
    c.queue_size = size;
    c.header_digest = o.header_digest;
    c.data_digest = o.data_digest;
    c.hpda = o.hpda;
    c.timeout = o.timeout;
    c.tls = tls;
    return c;
}

std::string where(const ConnectOptions &o) {
    return o.subnqn + " at " + transport::host_port(o.addr, o.port);
}

} // namespace

Result<std::unique_ptr<Controller>> Controller::connect(const ConnectOptions &options) {
    std::unique_ptr<Controller> c(new Controller(options));
    c->discovery_nqn_ = options.subnqn == NVME_DISC_SUBSYS_NAME;
    if (options.tls_psk) c->tls_ = tls::session_psk(*options.tls_psk, options.host.hostnqn, options.subnqn);
    if (Status st = c->connect_admin(); !st) return st.error();
    if (options.dhchap.concat && !options.tls_psk) {
        if (Status st = c->restart_over_generated_tls(); !st) return st.error();
    }
    if (Status st = c->enable(); !st) return st.error();
    Result<nvme_id_ctrl> id = c->identify_controller();
    if (!id) return id.error();
    c->id_ctrl_ = *id;
    if (!c->is_discovery() && options.io_queues > 0) {
        if (Status st = c->connect_io_queues(); !st) return st.error();
    }
    if (options.auto_keep_alive && options.kato_ms > 0) c->start_keep_alive();
    skiff::log::get("host")->info("connected to {}: cntlid {}, {} I/O queues", where(options), c->cntlid_,
                                  c->io_queues_.size());
    return c;
}

Controller::~Controller() {
    (void)shutdown();
}

Status Controller::connect_admin() {
    Result<std::unique_ptr<TcpQueue>> q =
        TcpQueue::connect(queue_config(options_, tls_, 0, options_.admin_queue_size));
    if (!q) return q.error();
    admin_ = std::move(q.value());
    Result<Completion> c = fabrics_connect(*admin_, options_.host, options_.subnqn, 0xFFFF, options_.kato_ms,
                                           options_.disable_sq_flow_control);
    if (!c) return c.error();
    if (Status st = to_status(*c, "admin queue Connect to " + where(options_), true); !st) return st;
    cntlid_ = static_cast<uint16_t>(c->cqe.result & 0xFFFF);
    auto auth = authenticate_if_required(*admin_, *c);
    if (!auth) return auth.error();
    admin_auth_ = *auth;
    return Status::success();
}

Status Controller::restart_over_generated_tls() {
    if (!admin_auth_ || !admin_auth_->generated_tls)
        return make_error(DOCA_ERROR_NOT_SUPPORTED,
                          "secure channel concatenation with " + where(options_) +
                              ": the controller did not ask the admin queue to authenticate, so no TLS "
                              "PSK was generated (it needs a DH-HMAC-CHAP secret for this host)");
    tls_ = std::move(admin_auth_->generated_tls);
    admin_auth_->generated_tls.reset();
    skiff::log::get("host")->info("secure channel concatenation with {}: reconnecting over TLS as {}",
                                  where(options_), tls_->identity);
    // The plaintext association ends with its admin queue; a new one starts over TLS.
    admin_.reset();
    const auto first_auth = admin_auth_;
    if (Status st = connect_admin(); !st) return st;
    if (!admin_auth_) admin_auth_ = first_auth; // what the authentication chose, for admin_auth()
    return Status::success();
}

Result<std::optional<DhchapResult>> Controller::authenticate_if_required(TcpQueue &q,
                                                                         const Completion &connect) {
    if (!(connect.cqe.result & (auth::kConnectAuthreqAtr | auth::kConnectAuthreqAscr)))
        return std::optional<DhchapResult>();
    if (!options_.dhchap.enabled())
        return make_error(DOCA_ERROR_NOT_PERMITTED,
                          "queue " + std::to_string(q.qid()) + " of " + where(options_) +
                              ": the controller requires DH-HMAC-CHAP "
                              "authentication but no host secret (--dhchap-secret) is set");
    auto r = dhchap_authenticate(q, options_.host, options_.subnqn, options_.dhchap, next_transaction_++,
                                 tls_.has_value());
    if (!r) return r.error();
    return std::optional<DhchapResult>(*r);
}

Result<DhchapResult> Controller::reauthenticate(uint16_t qid) {
    if (!options_.dhchap.enabled())
        return make_error(DOCA_ERROR_BAD_STATE, "re-authentication needs a host secret (--dhchap-secret)");
    if (qid == 0) {
        std::lock_guard lock(admin_mu_); // the keep-alive thread shares the admin queue
        return dhchap_authenticate(*admin_, options_.host, options_.subnqn, options_.dhchap,
                                   next_transaction_++, tls_.has_value());
    }
    if (qid > io_queues_.size())
        return make_error(DOCA_ERROR_INVALID_VALUE, "no I/O queue " + std::to_string(qid));
    return dhchap_authenticate(*io_queues_[qid - 1], options_.host, options_.subnqn, options_.dhchap,
                               next_transaction_++, tls_.has_value());
}

Status Controller::enable() {
    Result<uint64_t> cap = property_get(wire::kPropCap, true);
    if (!cap) return cap.error();
    cap_ = *cap;
    const uint32_t cc = cmd::kCcEnable | cmd::kCcIosqes | cmd::kCcIocqes;
    if (Status st = property_set(wire::kPropCc, cc, false); !st) return st;
    // CAP.TO: worst-case time to become ready, in 500 ms units.
    const auto limit = std::chrono::milliseconds(std::max<uint64_t>(1, (cap_ >> 24) & 0xFF) * 500);
    const Deadline deadline = deadline_after(limit);
    for (;;) {
        Result<uint64_t> csts = property_get(wire::kPropCsts, false);
        if (!csts) return csts.error();
        if (*csts & cmd::kCstsCfs)
            return make_error(DOCA_ERROR_DRIVER,
                              "controller of " + where(options_) + " reports fatal status (CSTS.CFS)");
        if (*csts & cmd::kCstsRdy) {
            enabled_ = true;
            return Status::success();
        }
        if (Clock::now() > deadline)
            return make_error(DOCA_ERROR_TIME_OUT, "controller of " + where(options_) +
                                                       " set CC.EN but not CSTS.RDY within CAP.TO (" +
                                                       std::to_string(limit.count()) + " ms)");
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
}

Status Controller::connect_io_queues() {
    const uint16_t wanted = options_.io_queues;
    Result<uint32_t> granted = set_features(NVME_FEAT_FID_NUM_QUEUES, (wanted - 1u) | ((wanted - 1u) << 16));
    if (!granted) return granted.error();
    const uint32_t nsq = (*granted & 0xFFFF) + 1u, ncq = (*granted >> 16) + 1u;
    const uint16_t count = static_cast<uint16_t>(std::min<uint32_t>({wanted, nsq, ncq}));
    const uint32_t mqes = static_cast<uint32_t>(cap_ & 0xFFFF) + 1u; // CAP.MQES is 0's based
    const uint16_t size = static_cast<uint16_t>(std::min<uint32_t>(options_.io_queue_size, mqes));
    const uint32_t ioccsz = id_ctrl_.ioccsz * 16u;
    const uint32_t in_capsule =
        ioccsz > sizeof(wire::Sqe) ? ioccsz - static_cast<uint32_t>(sizeof(wire::Sqe)) : 0;
    for (uint16_t qid = 1; qid <= count; ++qid) {
        Result<std::unique_ptr<TcpQueue>> q = TcpQueue::connect(queue_config(options_, tls_, qid, size));
        if (!q) return q.error();
        (*q)->set_in_capsule_limit(in_capsule);
        Result<Completion> c = fabrics_connect(**q, options_.host, options_.subnqn, cntlid_, 0,
                                               options_.disable_sq_flow_control);
        if (!c) return c.error();
        if (Status st =
                to_status(*c, "I/O queue " + std::to_string(qid) + " Connect to " + where(options_), true);
            !st)
            return st;
        if (auto auth = authenticate_if_required(**q, *c); !auth) return auth.error();
        io_queues_.push_back(std::move(q.value()));
    }
    return Status::success();
}

uint32_t Controller::max_transfer_bytes() const {
    constexpr uint32_t kNoLimitCap = 1u << 20;
    const uint32_t page = 4096u << ((cap_ >> 48) & 0xF); // CAP.MPSMIN
    if (id_ctrl_.mdts == 0) return kNoLimitCap;
    const uint64_t bytes = uint64_t{page} << id_ctrl_.mdts;
    return static_cast<uint32_t>(std::min<uint64_t>(bytes, 1u << 30));
}

Status Controller::shutdown() {
    stop_keep_alive();
    if (shut_down_ || !admin_) return Status::success();
    shut_down_ = true;
    Status result;
    if (enabled_ && !admin_->failed()) {
        const uint32_t cc = cmd::kCcEnable | cmd::kCcIosqes | cmd::kCcIocqes | cmd::kCcShnNormal;
        result = property_set(wire::kPropCc, cc, false);
        const Deadline deadline = deadline_after(std::chrono::seconds(5));
        while (result.ok()) {
            Result<uint64_t> csts = property_get(wire::kPropCsts, false);
            if (!csts) {
                result = csts.error();
                break;
            }
            if ((*csts & cmd::kCstsShstMask) == cmd::kCstsShstComplete) break;
            if (Clock::now() > deadline) {
                result = make_error(DOCA_ERROR_TIME_OUT,
                                    "controller of " + where(options_) +
                                        " did not report shutdown complete (CSTS.SHST = 10b)");
                break;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
    }
    for (auto &q : io_queues_) q->close();
    admin_->close();
    return result;
}

} // namespace skiff::nvmeof::host
