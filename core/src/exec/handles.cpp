// The C++ handles of the execution model (skiff/core/pe.hpp, ctx.hpp) over the C API.
#include <skiff/core/ctx.hpp>
#include <skiff/core/pe.hpp>

#include <doca_pe.h>

#include <thread>

namespace skiff::core {

// ---- CtxRef

doca_ctx_states CtxRef::state() const {
    doca_ctx_states s = DOCA_CTX_STATE_IDLE;
    doca_ctx_get_state(ctx_, &s);
    return s;
}

size_t CtxRef::inflight() const {
    size_t n = 0;
    doca_ctx_get_num_inflight_tasks(ctx_, &n);
    return n;
}

Status CtxRef::start() {
    doca_error_t r = doca_ctx_start(ctx_);
    if (r == DOCA_ERROR_IN_PROGRESS) return Status::success();
    return check(r, "doca_ctx_start");
}

Status CtxRef::stop() {
    doca_error_t r = doca_ctx_stop(ctx_);
    if (r == DOCA_ERROR_IN_PROGRESS) return Status::success();
    return check(r, "doca_ctx_stop");
}

Status CtxRef::stop_and_drain(doca_pe *pe, long max_calls) {
    if (state() != DOCA_CTX_STATE_IDLE) {
        if (Status s = stop(); !s) return s;
    }
    for (long i = 0; i < max_calls; ++i) {
        bool progressed = doca_pe_progress(pe) != 0;
        if (state() == DOCA_CTX_STATE_IDLE && !progressed) return Status::success();
        if (!progressed) std::this_thread::yield();
    }
    return make_error(DOCA_ERROR_TIME_OUT, "ctx did not reach IDLE: are all tasks freed in their callbacks?");
}

// ---- ProgressEngine

Result<ProgressEngine> ProgressEngine::create() {
    doca_pe *pe = nullptr;
    if (Status s = check(doca_pe_create(&pe), "doca_pe_create"); !s) return s.error();
    return ProgressEngine(pe);
}

ProgressEngine &ProgressEngine::operator=(ProgressEngine &&other) noexcept {
    if (this != &other) {
        if (pe_) doca_pe_destroy(pe_);
        pe_ = std::exchange(other.pe_, nullptr);
    }
    return *this;
}

ProgressEngine::~ProgressEngine() {
    if (pe_) doca_pe_destroy(pe_); // logs IN_USE if contexts outlive it
}

Status ProgressEngine::connect(doca_ctx *ctx) {
    return check(doca_pe_connect_ctx(pe_, ctx), "doca_pe_connect_ctx");
}

size_t ProgressEngine::drain() {
    size_t n = 0;
    while (doca_pe_progress(pe_)) ++n;
    return n;
}

size_t ProgressEngine::inflight() const {
    size_t n = 0;
    doca_pe_get_num_inflight_tasks(pe_, &n);
    return n;
}

int ProgressEngine::fd() const {
    doca_notification_handle_t h = -1;
    doca_pe_get_notification_handle(pe_, &h);
    return h;
}

Status ProgressEngine::arm() {
    return check(doca_pe_request_notification(pe_), "doca_pe_request_notification");
}

Status ProgressEngine::clear() {
    return check(doca_pe_clear_notification(pe_, fd()), "doca_pe_clear_notification");
}

} // namespace skiff::core
