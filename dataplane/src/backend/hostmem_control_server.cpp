// Target side of the hostmem control channel: a comch server on the DPU PF for the host
// function's representor (see hostmem/control_channel.hpp). Only the link thread uses it.
#include "skiff/core/comch_trust.hpp"
#include "skiff/core/log.hpp"
#include "skiff/dataplane/hostmem/control_channel.hpp"

#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_pe.h>

#include <poll.h>

#include <algorithm>
#include <chrono>

namespace skiff::dataplane::hostmem {
namespace {

// The representor of host function `pci` (empty: the first the PF lists), and its address.
Result<std::pair<doca_dev_rep *, std::string>> open_representor(doca_dev *dpu, const std::string &pci) {
    doca_devinfo_rep **list = nullptr;
    uint32_t n = 0;
    if (auto st = check(doca_devinfo_rep_create_list(dpu, DOCA_DEVINFO_REP_FILTER_NET, &list, &n),
                        "doca_devinfo_rep_create_list");
        !st)
        return st.error();
    std::string seen;
    for (uint32_t i = 0; i < n; ++i) {
        char addr[DOCA_DEVINFO_REP_PCI_ADDR_SIZE] = {};
        doca_devinfo_rep_get_pci_addr_str(list[i], addr);
        uint8_t eq = 0;
        if (pci.empty() ||
            (doca_devinfo_rep_is_equal_pci_addr(list[i], pci.c_str(), &eq) == DOCA_SUCCESS && eq)) {
            doca_dev_rep *rep = nullptr;
            Status st = check(doca_dev_rep_open(list[i], &rep), "doca_dev_rep_open");
            doca_devinfo_rep_destroy_list(list);
            if (!st) return st.error();
            return std::make_pair(rep, std::string(addr));
        }
        seen += std::string(seen.empty() ? "" : ", ") + addr;
    }
    doca_devinfo_rep_destroy_list(list);
    return make_error(DOCA_ERROR_NOT_FOUND,
                      "hostmem: the DPU PF has no representor of host function \"" + pci +
                          "\" (host_pci); it manages: " + (seen.empty() ? "none" : seen));
}

} // namespace

Result<std::unique_ptr<ControlServer>> ControlServer::create(doca_dev *dpu, const std::string &host_pci,
                                                             const std::string &name) {
    std::unique_ptr<ControlServer> s(new ControlServer());
    auto rep = open_representor(dpu, host_pci);
    if (!rep) return rep.error();
    s->rep_ = rep->first;
    s->address_ = "comch \"" + name + "\" on host function " + rep->second;
    Status st = check(doca_pe_create(&s->pe_), "doca_pe_create");
    if (st)
        st = check(doca_comch_server_create(dpu, s->rep_, name.c_str(), &s->server_),
                   "doca_comch_server_create");
    if (!st) return make_error(st.error().code, s->address_ + ": " + st.error().message);
    doca_ctx *ctx = doca_comch_server_as_ctx(s->server_);
    doca_data self{};
    self.ptr = s.get();
    st = check(doca_ctx_set_user_data(ctx, self), "doca_ctx_set_user_data");
    if (st)
        st = check(doca_comch_server_task_send_set_conf(s->server_, on_send_done, on_send_done, 16),
                   "send conf");
    if (st) st = check(doca_comch_server_event_msg_recv_register(s->server_, on_recv), "recv register");
    if (st)
        st = check(
            doca_comch_server_event_connection_status_changed_register(s->server_, on_connect, on_disconnect),
            "connection register");
    if (st) st = check(doca_pe_connect_ctx(s->pe_, ctx), "doca_pe_connect_ctx");
    if (st) st = check(doca_ctx_start(ctx), "doca_ctx_start");
    if (!st) return make_error(st.error().code, s->address_ + ": " + st.error().message);
    return s;
}

ControlServer::~ControlServer() {
    if (server_) {
        doca_ctx *ctx = doca_comch_server_as_ctx(server_);
        doca_ctx_stop(ctx); // BAD_STATE when it never started: then it is IDLE already
        doca_ctx_states state = DOCA_CTX_STATE_IDLE;
        while (doca_ctx_get_state(ctx, &state) == DOCA_SUCCESS && state != DOCA_CTX_STATE_IDLE)
            doca_pe_progress(pe_);
        doca_comch_server_destroy(server_);
    }
    if (pe_) doca_pe_destroy(pe_);
    if (rep_) doca_dev_rep_close(rep_);
}

ControlServer::Event ControlServer::wait(int timeout_ms, ExportRecord &out) {
    event_ = Event::none;
    auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    doca_notification_handle_t handle = -1;
    doca_pe_get_notification_handle(pe_, &handle);
    for (;;) {
        while (event_ == Event::none && doca_pe_progress(pe_) != 0) {
        }
        auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
        if (event_ != Event::none || left.count() <= 0) break;
        // Sleep on the PE's handle: a connection, a message or a disconnection wakes it.
        doca_pe_request_notification(pe_);
        pollfd p{handle, POLLIN, 0};
        ::poll(&p, 1, static_cast<int>(std::max<int64_t>(1, left.count())));
        doca_pe_clear_notification(pe_, handle);
    }
    if (event_ == Event::exported) out = std::move(record_);
    return event_;
}

ControlServer *ControlServer::of(doca_comch_connection *conn) {
    doca_data d{};
    doca_ctx_get_user_data(doca_comch_server_as_ctx(doca_comch_server_get_server_ctx(conn)), &d);
    return static_cast<ControlServer *>(d.ptr);
}

void ControlServer::on_connect(doca_comch_event_connection_status_changed *, doca_comch_connection *conn,
                               uint8_t ok) {
    if (!ok) return;
    ControlServer *s = of(conn);
    s->peers_[conn] = LineAssembler();
    log::get("hostmem")->info("{}: skiff-host connected", s->address_);
}

void ControlServer::on_disconnect(doca_comch_event_connection_status_changed *, doca_comch_connection *conn,
                                  uint8_t) {
    ControlServer *s = of(conn);
    s->peers_.erase(conn);
    log::get("hostmem")->info("{}: skiff-host disconnected", s->address_);
    if (conn == s->current_) {
        s->current_ = nullptr;
        s->event_ = Event::lost;
    }
}

void ControlServer::on_recv(doca_comch_event_msg_recv *, uint8_t *msg, uint32_t len,
                            doca_comch_connection *conn) {
    ControlServer *s = of(conn);
    std::string line;
    if (s->peers_[conn].add(msg, len, line)) s->take_line(conn, line);
}

void ControlServer::take_line(doca_comch_connection *conn, const std::string &line) {
    auto log = log::get("hostmem");
    if (line.rfind("EXPORT ", 0) == 0) {
        auto rec = parse_export_line(line);
        if (!rec) {
            log->warn("{}: {}", address_, rec.error().message);
            return;
        }
        // Only the exporter itself may hand its export over: an EXPORT naming another process
        // (replayed or forged by a peer) does not replace the current one.
        if (Status st =
                core::comch::check_export_from_peer(conn, rec->descriptor.data(), rec->descriptor.size());
            !st) {
            log->warn("{}: EXPORT ignored: {}", address_, st.error().message);
            return;
        }
        record_ = std::move(*rec);
        current_ = conn;
        event_ = Event::exported;
    } else if (line.rfind("REVOKED", 0) == 0) {
        if (conn == current_) {
            current_ = nullptr;
            event_ = Event::lost;
        }
    } else {
        log->warn("{}: unknown line from skiff-host (expected EXPORT or REVOKED): {}", address_,
                  line.substr(0, 80));
    }
}

void ControlServer::on_send_done(doca_comch_task_send *task, doca_data, doca_data) {
    doca_task_free(doca_comch_task_send_as_task(task));
}

} // namespace skiff::dataplane::hostmem
