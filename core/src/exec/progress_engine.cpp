#include "exec/progress_engine.hpp"

#include "exec/context.hpp"
#include "exec/live_objects.hpp"

#include <skiff/core/log.hpp>

#include <sys/epoll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>

namespace {

spdlog::logger &logger() {
    static auto log = skiff::log::get("exec");
    return *log;
}

} // namespace

doca_pe::~doca_pe() {
    if (wait_fd_ >= 0) ::close(wait_fd_);
}

doca_error_t doca_pe::init() {
    doca_error_t err = notifier_.open();
    if (err != DOCA_SUCCESS) return err;
    wait_fd_ = ::epoll_create1(EPOLL_CLOEXEC);
    if (wait_fd_ < 0) {
        logger().error("progress engine: epoll_create1() failed: {}", std::strerror(errno));
        return DOCA_ERROR_OPERATING_SYSTEM;
    }
    return watch(notifier_.fd());
}

doca_error_t doca_pe::watch(int fd) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.fd = fd;
    if (::epoll_ctl(wait_fd_, EPOLL_CTL_ADD, fd, &ev) == 0) return DOCA_SUCCESS;
    logger().error("progress engine: adding fd {} to the notification set failed: {}", fd,
                   std::strerror(errno));
    return DOCA_ERROR_OPERATING_SYSTEM;
}

void doca_pe::unwatch(int fd) {
    ::epoll_ctl(wait_fd_, EPOLL_CTL_DEL, fd, nullptr);
}

doca_error_t doca_pe::connect(doca_ctx *ctx) {
    if (ctx->state() != DOCA_CTX_STATE_IDLE) {
        logger().error("pe connect: the {} ctx must be IDLE to connect", ctx->type_name());
        return DOCA_ERROR_BAD_STATE;
    }
    if (ctx->pe()) {
        logger().error("pe connect: the {} ctx is already connected to a progress engine (once per ctx)",
                       ctx->type_name());
        return DOCA_ERROR_NOT_PERMITTED;
    }
    ctxs_.push_back(ctx);
    ctx->attach_pe(this);
    return DOCA_SUCCESS;
}

void doca_pe::disconnect(doca_ctx *ctx) {
    ctxs_.erase(std::remove(ctxs_.begin(), ctxs_.end(), ctx), ctxs_.end());
    cursor_ = 0;
}

namespace {
// The engine whose progress call runs on this thread (the innermost one: a callback of one engine
// may progress another). Thread-local, so that a stop from another thread never reads the
// progressing thread's state. initial-exec: every doca_pe_progress reads and writes it, and the
// library's default model for a shared object would make each access a __tls_get_addr call.
thread_local const doca_pe *t_progressing __attribute__((tls_model("initial-exec"))) = nullptr;
} // namespace

bool doca_pe::running_callbacks_on_this_thread() const {
    return t_progressing == this;
}

namespace {
[[gnu::cold, gnu::noinline]] uint8_t refuse_nested_progress() {
    logger().error("doca_pe_progress called from inside a completion callback; refused");
    return 0;
}
} // namespace

uint8_t doca_pe::progress() {
    if (in_progress_) return refuse_nested_progress();
    in_progress_ = true;
    const doca_pe *outer = t_progressing;
    t_progressing = this;
    uint8_t made_progress = 0;
    if (!graph_steps_.empty()) [[unlikely]] {
        made_progress = run_graph_step(); // a graph's user node: this call's one unit of work
    } else {
        // Round robin from the ctx after the last one that delivered (no division: this runs once
        // per completion and once per idle pass of a poll loop).
        const size_t n = ctxs_.size();
        size_t at = cursor_ < n ? cursor_ : 0;
        for (size_t i = 0; i < n; ++i) {
            doca_ctx *ctx = ctxs_[at];
            if (++at == n) at = 0;
            if (ctx->progress_one()) {
                cursor_ = at;
                made_progress = 1;
                break;
            }
        }
    }
    t_progressing = outer;
    in_progress_ = false;
    return made_progress;
}

bool doca_pe::run_graph_step() {
    skiff::core::GraphStep step = graph_steps_[graph_head_++];
    if (graph_head_ == graph_steps_.size()) {
        graph_steps_.clear();
        graph_head_ = 0;
    }
    step.instance->run_user_node(step.node); // may post more steps
    return true;
}

void doca_pe::post_graph_step(skiff::core::GraphStep step) {
    graph_steps_.push_back(step);
    notifier_.signal_if_armed_same_thread();
}

void doca_pe::request_notification() {
    notifier_.arm();
    if (!graph_steps_.empty()) {
        notifier_.signal_if_armed();
        return;
    }
    for (doca_ctx *ctx : ctxs_) {
        if (ctx->has_ready_work()) {
            notifier_.signal_if_armed();
            return;
        }
    }
}

size_t doca_pe::inflight() const {
    size_t total = 0;
    for (doca_ctx *ctx : ctxs_) total += ctx->inflight();
    return total;
}

// ---- doca_pe.h

extern "C" {

doca_error_t doca_pe_create(doca_pe **pe) {
    if (!pe) return DOCA_ERROR_INVALID_VALUE;
    auto *created = new (std::nothrow) doca_pe();
    if (!created) return DOCA_ERROR_NO_MEMORY;
    doca_error_t err = created->init();
    if (err != DOCA_SUCCESS) {
        delete created;
        return err;
    }
    skiff::core::live_exec_objects().add(created);
    *pe = created;
    return DOCA_SUCCESS;
}

doca_error_t doca_pe_destroy(doca_pe *pe) {
    if (!pe) return DOCA_ERROR_INVALID_VALUE;
    if (!skiff::core::live_exec_objects().remove(pe)) {
        logger().error("pe destroy: {} is not a live progress engine (destroyed twice?)",
                       static_cast<void *>(pe));
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (pe->num_connected() != 0) {
        skiff::core::live_exec_objects().add(pe); // still alive
        logger().error("pe destroy: {} contexts are still connected; destroy them first",
                       pe->num_connected());
        return DOCA_ERROR_IN_USE;
    }
    if (pe->num_graphs() != 0) {
        skiff::core::live_exec_objects().add(pe);
        logger().error("pe destroy: {} graphs are still bound to it; destroy them first", pe->num_graphs());
        return DOCA_ERROR_IN_USE;
    }
    delete pe;
    return DOCA_SUCCESS;
}

uint8_t doca_pe_progress(doca_pe *pe) {
    return pe ? pe->progress() : 0;
}

doca_error_t doca_pe_get_notification_handle(const doca_pe *pe, doca_notification_handle_t *handle) {
    if (!pe || !handle) return DOCA_ERROR_INVALID_VALUE;
    *handle = pe->handle();
    return DOCA_SUCCESS;
}

doca_error_t doca_pe_clear_notification(doca_pe *pe, doca_notification_handle_t handle) {
    if (!pe) return DOCA_ERROR_INVALID_VALUE;
    // DOCA documents the handle as unused on Linux and its samples pass 0: accept 0 as well as
    // the engine's own handle, refuse anything else (most likely another engine's handle).
    if (handle != 0 && handle != pe->handle()) {
        logger().error("pe clear_notification: handle {} is not this engine's handle {}", handle,
                       pe->handle());
        return DOCA_ERROR_INVALID_VALUE;
    }
    return pe->notifier().clear();
}

doca_error_t doca_pe_request_notification(doca_pe *pe) {
    if (!pe) return DOCA_ERROR_INVALID_VALUE;
    pe->request_notification();
    return DOCA_SUCCESS;
}

doca_error_t doca_pe_get_num_inflight_tasks(const doca_pe *pe, size_t *num_inflight_tasks) {
    if (!pe || !num_inflight_tasks) return DOCA_ERROR_INVALID_VALUE;
    *num_inflight_tasks = pe->inflight();
    return DOCA_SUCCESS;
}

doca_error_t doca_pe_connect_ctx(doca_pe *pe, doca_ctx *ctx) {
    if (!pe || !ctx) return DOCA_ERROR_INVALID_VALUE;
    return pe->connect(ctx);
}

} // extern "C"
