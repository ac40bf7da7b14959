// Host side of the hostmem control channel: skiff-host's comch client on the host function (see
// hostmem/control_channel.hpp).
#include "skiff/core/comch_trust.hpp"
#include "skiff/core/log.hpp"
#include "skiff/dataplane/hostmem/control_channel.hpp"

#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_pe.h>

#include <chrono>
#include <poll.h>

namespace skiff::dataplane::hostmem {

Result<std::unique_ptr<ControlClient>> ControlClient::create(doca_dev *host_function, const std::string &name,
                                                             const doca_mmap *exported, std::string line) {
    std::unique_ptr<ControlClient> c(new ControlClient());
    c->dev_ = host_function;
    c->exported_ = exported;
    c->address_ = "comch \"" + name + "\"";
    c->export_line_ = std::move(line);
    Status st = check(doca_pe_create(&c->pe_), "doca_pe_create");
    if (st)
        st = check(doca_comch_client_create(host_function, name.c_str(), &c->client_),
                   "doca_comch_client_create");
    if (!st) return make_error(st.error().code, c->address_ + ": " + st.error().message);
    doca_ctx *ctx = doca_comch_client_as_ctx(c->client_);
    doca_data self{};
    self.ptr = c.get();
    st = check(doca_ctx_set_user_data(ctx, self), "doca_ctx_set_user_data");
    if (st)
        st = check(doca_comch_client_task_send_set_conf(c->client_, on_send_done, on_send_done, 64),
                   "send conf");
    if (st) st = check(doca_pe_connect_ctx(c->pe_, ctx), "doca_pe_connect_ctx");
    if (!st) return make_error(st.error().code, c->address_ + ": " + st.error().message);
    return c;
}

ControlClient::~ControlClient() {
    if (client_) {
        doca_ctx *ctx = doca_comch_client_as_ctx(client_);
        doca_ctx_stop(ctx); // BAD_STATE when already IDLE
        doca_ctx_states state = DOCA_CTX_STATE_IDLE;
        while (doca_ctx_get_state(ctx, &state) == DOCA_SUCCESS && state != DOCA_CTX_STATE_IDLE)
            doca_pe_progress(pe_);
        doca_comch_client_destroy(client_);
    }
    if (pe_) doca_pe_destroy(pe_);
}

bool ControlClient::running() const {
    doca_ctx_states state = DOCA_CTX_STATE_IDLE;
    doca_ctx_get_state(doca_comch_client_as_ctx(client_), &state);
    return state == DOCA_CTX_STATE_RUNNING;
}

// The client retries while no server listens (STARTING) and stops by itself when the server goes
// (a target restart, or none yet): start it again each time it is IDLE, send the export each time
// it becomes RUNNING.
void ControlClient::serve(int stop_fd) {
    auto log = log::get("host");
    doca_ctx *ctx = doca_comch_client_as_ctx(client_);
    for (;;) {
        doca_ctx_states state = DOCA_CTX_STATE_IDLE;
        doca_ctx_get_state(ctx, &state);
        if (state == DOCA_CTX_STATE_IDLE) {
            if (was_running_) log->warn("{}: the target went away; waiting for it", address_);
            was_running_ = false;
            doca_error_t r = doca_ctx_start(ctx);
            if (r != DOCA_SUCCESS && r != DOCA_ERROR_IN_PROGRESS)
                log->error("{}: doca_ctx_start: {}", address_, doca_error_get_descr(r));
        } else if (state == DOCA_CTX_STATE_RUNNING && !was_running_) {
            was_running_ = true;
            log->info("{}: connected to the target; sending export", address_);
            if (!send_export()) log->error("{}: cannot send the export", address_);
        }
        pollfd p{stop_fd, POLLIN, 0};
        if (::poll(&p, 1, 0) > 0) return;
        progress_for(100, stop_fd); // woken early by the channel or the signal
    }
}

void ControlClient::send_and_close(const std::string &line) {
    if (running() && send(line)) {
        // Bounded: a send completes (delivered, or failed because the target went) or the target
        // stops answering and the client stops.
        for (int i = 0; i < 2000 && in_flight_ > 0 && running(); ++i) progress_for(1, -1);
    }
}

// The export's files first (the target may run as another user: it maps what it receives, never
// opens this process's /proc entries), then the line that names it.
bool ControlClient::send_export() {
    doca_comch_connection *conn = nullptr;
    if (doca_comch_client_get_connection(client_, &conn) != DOCA_SUCCESS) return false;
    if (Status st = core::comch::send_export_files(conn, exported_, dev_); !st) {
        log::get("host")->error("{}: {}", address_, st.error().message);
        return false;
    }
    return send(export_line_);
}

bool ControlClient::send(const std::string &line) {
    doca_comch_connection *conn = nullptr;
    if (doca_comch_client_get_connection(client_, &conn) != DOCA_SUCCESS) return false;
    uint32_t max_msg = 0;
    doca_comch_client_get_max_msg_size(client_, &max_msg);
    if (in_flight_ == 0) out_.clear();
    for (std::string &part : split_line(line, max_msg ? max_msg : 4080)) {
        out_.push_back(std::move(part));
        doca_comch_task_send *task = nullptr;
        if (doca_comch_client_task_send_alloc_init(client_, conn, out_.back().data(),
                                                   static_cast<uint32_t>(out_.back().size()),
                                                   &task) != DOCA_SUCCESS)
            return false;
        if (doca_task_submit(doca_comch_task_send_as_task(task)) != DOCA_SUCCESS) {
            doca_task_free(doca_comch_task_send_as_task(task));
            return false;
        }
        ++in_flight_;
    }
    return true;
}

void ControlClient::progress_for(int timeout_ms, int stop_fd) {
    while (doca_pe_progress(pe_) != 0) {
    }
    // Sleep on the PE's handle (a message, the server going, a connect retry tick) and stop_fd.
    doca_notification_handle_t handle = -1;
    doca_pe_get_notification_handle(pe_, &handle);
    doca_pe_request_notification(pe_);
    pollfd p[2] = {{handle, POLLIN, 0}, {stop_fd, POLLIN, 0}};
    ::poll(p, stop_fd >= 0 ? 2 : 1, timeout_ms);
    doca_pe_clear_notification(pe_, handle);
}

void ControlClient::on_send_done(doca_comch_task_send *task, doca_data, doca_data ctx_data) {
    auto *c = static_cast<ControlClient *>(ctx_data.ptr);
    doca_task_free(doca_comch_task_send_as_task(task));
    if (c->in_flight_ > 0) --c->in_flight_;
}

} // namespace skiff::dataplane::hostmem
