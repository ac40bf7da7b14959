#include "exec/context.hpp"

#include "graph/graph.hpp"

#include "exec/progress_engine.hpp"

#include <skiff/core/log.hpp>

namespace {

const char *state_name(doca_ctx_states s) {
    switch (s) {
    case DOCA_CTX_STATE_IDLE:
        return "IDLE";
    case DOCA_CTX_STATE_STARTING:
        return "STARTING";
    case DOCA_CTX_STATE_RUNNING:
        return "RUNNING";
    case DOCA_CTX_STATE_STOPPING:
        return "STOPPING";
    }
    return "?";
}

spdlog::logger &logger() {
    static auto log = skiff::log::get("exec");
    return *log;
}

} // namespace

doca_ctx::doca_ctx(const char *type_name) : type_name_(type_name) {}

doca_ctx::~doca_ctx() {
    if (pe_) pe_->disconnect(this);
}

doca_error_t doca_ctx::set_datapath_on_dpa(doca_dpa *) {
    if (state() != DOCA_CTX_STATE_IDLE) return DOCA_ERROR_BAD_STATE;
    logger().error("{} ctx: no DPA data path for this context type; use a progress engine", type_name_);
    return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_ctx::start() {
    std::lock_guard lock(mu_);
    if (state() != DOCA_CTX_STATE_IDLE) {
        logger().error("{} ctx start: ctx is {}, start needs IDLE (stop it first)", type_name_,
                       state_name(state()));
        return DOCA_ERROR_BAD_STATE;
    }
    if (!pe_ && !runs_without_pe()) {
        logger().error("{} ctx start: not connected to a progress engine (call doca_pe_connect_ctx first)",
                       type_name_);
        return DOCA_ERROR_NOT_CONNECTED;
    }
    size_t total_tasks = 0;
    for (auto *kind : kinds_) {
        kind->build_pool(this);
        total_tasks += kind->capacity();
    }
    order_.prepare(total_tasks);
    fatal_requested_.store(false);
    user_stop_ = false;
    doca_error_t err = on_start();
    if (err != DOCA_SUCCESS) {
        for (auto *kind : kinds_) kind->release_pool();
        return err;
    }
    if (starts_asynchronously()) {
        move_to(DOCA_CTX_STATE_STARTING);
        return DOCA_ERROR_IN_PROGRESS;
    }
    move_to(DOCA_CTX_STATE_RUNNING);
    logger().debug("{} ctx started ({} task slots)", type_name_, total_tasks);
    return DOCA_SUCCESS;
}

doca_error_t doca_ctx::stop() {
    std::unique_lock lock(mu_);
    switch (state()) {
    case DOCA_CTX_STATE_IDLE:
        // Nothing to stop: the goal state is reached. DOCA programs stop unconditionally in their
        // cleanup and treat any error as failure, so this is not one.
        logger().debug("{} ctx stop: ctx is already IDLE, nothing to do", type_name_);
        return DOCA_SUCCESS;
    case DOCA_CTX_STATE_STOPPING:
        return DOCA_ERROR_IN_PROGRESS;
    default:
        break;
    }
    // Inside one of its engine's callbacks the stop is asynchronous, as DOCA's is there (its samples
    // check for IN_PROGRESS): running the IDLE callback now would nest a callback inside another.
    // IDLE and its callback come from the next progress call (try_finish_stop).
    const bool in_own_callback = pe_ && pe_->running_callbacks_on_this_thread();
    if (inflight() == 0 && all_tasks_returned() && !in_own_callback) {
        on_stop_requested();
        finish_stop_locked();
        lock.unlock();
        // Delivered before stop returns: the application sees IDLE only after its callback ran,
        // so a restart right after stop never receives this transition while RUNNING.
        deliver_pending_transitions();
        return DOCA_SUCCESS;
    }
    user_stop_ = true;
    enter_stopping();
    return DOCA_ERROR_IN_PROGRESS;
}

void doca_ctx::deliver_pending_transitions() {
    while (transitions_pending_.load(std::memory_order_acquire) && deliver_transition()) {
    }
}

void doca_ctx::enter_stopping() {
    move_to(DOCA_CTX_STATE_STOPPING);
    on_stop_requested();
    notify_pe();
}

void doca_ctx::finish_stop_locked() {
    on_stopped();
    for (auto *kind : kinds_) kind->release_pool();
    move_to(DOCA_CTX_STATE_IDLE);
    logger().debug("{} ctx stopped", type_name_);
}

void doca_ctx::become_running() {
    std::lock_guard lock(mu_);
    if (state() == DOCA_CTX_STATE_STARTING) move_to(DOCA_CTX_STATE_RUNNING);
    notify_pe();
}

void doca_ctx::request_fatal_stop() {
    fatal_requested_.store(true, std::memory_order_release);
    notify_pe();
}

void doca_ctx::notify_pe() const {
    if (pe_) pe_->notifier().signal_if_armed();
}

void doca_ctx::notify_pe_from_pe_thread() const {
    if (pe_) pe_->notifier().signal_if_armed_same_thread();
}

// Records the transition for delivery inside progress; the state itself changes now.
void doca_ctx::move_to(doca_ctx_states next) {
    doca_ctx_states prev = state();
    state_.store(next, std::memory_order_release);
    if (num_pending_ == pending_.size()) {
        // Cannot happen with the four-state machine unless nobody progresses for many cycles;
        // keep the newest transitions, which tell the application where the ctx is now.
        for (size_t i = 1; i < num_pending_; ++i) pending_[i - 1] = pending_[i];
        --num_pending_;
    }
    pending_[num_pending_++] = Transition{prev, next};
    transitions_pending_.store(true, std::memory_order_release);
}

doca_error_t doca_ctx::set_completion_order_seed(uint64_t seed) {
    std::lock_guard lock(mu_);
    if (state() != DOCA_CTX_STATE_IDLE) return DOCA_ERROR_BAD_STATE;
    order_.set_seed(seed);
    return DOCA_SUCCESS;
}

bool doca_ctx::all_tasks_returned() const {
    for (auto *kind : kinds_)
        if (kind->outstanding() != 0) return false;
    return true;
}

bool doca_ctx::has_ready_work() const {
    if (transitions_pending_.load(std::memory_order_acquire)) return true;
    if (fatal_requested_.load(std::memory_order_acquire)) return true;
    if (completions_pending()) return true;
    if (state() != DOCA_CTX_STATE_IDLE && events_pending()) return true;
    if (!order_.empty() && order_.held() >= inflight()) return true;
    return state() == DOCA_CTX_STATE_STOPPING && inflight() == 0 && all_tasks_returned();
}

bool doca_ctx::progress_one() {
    if (transitions_pending_.load(std::memory_order_acquire) && deliver_transition()) return true;
    if (fatal_requested_.load(std::memory_order_acquire) && handle_fatal_request()) return true;
    if (deliver_completion()) return true;
    if (state() != DOCA_CTX_STATE_IDLE && deliver_event()) return true;
    if (state() == DOCA_CTX_STATE_STOPPING) return try_finish_stop();
    return false;
}

bool doca_ctx::deliver_transition() {
    Transition t{};
    {
        std::lock_guard lock(mu_);
        if (num_pending_ == 0) {
            transitions_pending_.store(false);
            return false;
        }
        t = pending_[0];
        for (size_t i = 1; i < num_pending_; ++i) pending_[i - 1] = pending_[i];
        if (--num_pending_ == 0) transitions_pending_.store(false);
    }
    logger().debug("{} ctx: {} -> {}", type_name_, state_name(t.prev), state_name(t.next));
    if (state_cb_) state_cb_(user_data_, this, t.prev, t.next);
    return true;
}

bool doca_ctx::handle_fatal_request() {
    fatal_requested_.store(false);
    std::lock_guard lock(mu_);
    doca_ctx_states s = state();
    if (s != DOCA_CTX_STATE_RUNNING && s != DOCA_CTX_STATE_STARTING) return false;
    logger().warn("{} ctx: fatal engine error, stopping; in-flight tasks are flushed", type_name_);
    enter_stopping();
    return true;
}

bool doca_ctx::deliver_completion() {
    doca_task *task = nullptr;
    if (order_.shuffling()) {
        // Hold completions until every in-flight task has finished, then hand them out in a
        // seeded random order: the order depends on the seed only, never on engine timing.
        while (doca_task *done = poll_completion()) order_.hold(done);
        if (order_.held() < inflight()) return false;
        task = order_.pick();
    } else {
        task = poll_completion();
    }
    if (!task) return false;
    task->in_flight = false;
    inflight_.store(inflight() - 1, std::memory_order_relaxed); // PE thread only: no locked RMW
    // Every task still in flight when the application stops the ctx fails (doca_ctx.h): an engine
    // that finished it anyway does not make it a success the application could mistake for a
    // running ctx. After a fatal engine error the engine's own verdicts stand (the tasks ahead of
    // the failing one did run), and so does a success the peer has already seen (a Comch message
    // it received: drained, not flushed).
    if (user_stop_ && state() == DOCA_CTX_STATE_STOPPING && task->status == DOCA_SUCCESS &&
        !delivered_to_peer(task))
        task->status = DOCA_ERROR_SHUTDOWN;
    if (task->graph_instance) [[unlikely]]
        skiff::core::graph_task_done(task);
    else
        task->kind->deliver(task, user_data_);
    return true;
}

bool doca_ctx::try_finish_stop() {
    {
        std::lock_guard lock(mu_);
        if (state() != DOCA_CTX_STATE_STOPPING || inflight() != 0 || !all_tasks_returned()) return false;
        finish_stop_locked();
    }
    // STOPPING -> IDLE is delivered in this same progress call, before the application can see
    // IDLE and restart: a restarted (RUNNING) ctx never receives a late IDLE callback.
    deliver_pending_transitions();
    return true;
}

doca_error_t doca_ctx::allocate(skiff::core::TaskKind &kind, doca_task **out, doca_data user_data) {
    if (state() != DOCA_CTX_STATE_RUNNING) {
        logger().error("{} ctx: cannot allocate a {} task while {} (RUNNING only)", type_name_, kind.name(),
                       state_name(state()));
        return DOCA_ERROR_BAD_STATE;
    }
    doca_task *task = kind.take();
    if (!task) {
        if (!kind.configured())
            logger().error("{} ctx: {} tasks are not configured (call its set_conf before start)", type_name_,
                           kind.name());
        return DOCA_ERROR_NO_MEMORY;
    }
    task->user_data = user_data;
    task->status = DOCA_SUCCESS;
    task->allocated = true;
    task->in_flight = false;
    *out = task;
    return DOCA_SUCCESS;
}

// Why a submit is refused. Out of line and cold: submit runs once per task, and the reports'
// formatting would give every call a heavy stack frame.
doca_error_t doca_ctx::refuse_submit(const doca_task *task) const {
    if (!task->allocated) {
        logger().error("{} ctx: submit of a freed task", type_name_);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (task->in_flight) {
        logger().error("{} ctx: submit of a {} task that is already in flight", type_name_,
                       task->kind->name());
        return DOCA_ERROR_BAD_STATE;
    }
    // Normal while stopping (callbacks resubmitting flushed tasks): debug level only.
    logger().debug("{} ctx: submit refused while {} (RUNNING only); the task stays with the caller",
                   type_name_, state_name(state()));
    return DOCA_ERROR_BAD_STATE;
}

doca_error_t doca_ctx::submit(doca_task *task, bool validate_first) {
    if (!task->allocated || task->in_flight || state() != DOCA_CTX_STATE_RUNNING) return refuse_submit(task);
    if (validate_first) {
        doca_error_t err = validate(task);
        if (err != DOCA_SUCCESS) return DOCA_ERROR_INVALID_VALUE;
    }
    task->status = DOCA_SUCCESS;
    task->in_flight = true;
    inflight_.store(inflight() + 1, std::memory_order_relaxed); // PE thread only: no locked RMW
    execute(task);
    return DOCA_SUCCESS;
}

void doca_ctx::free_task(doca_task *task) {
    if (!task->allocated) {
        logger().error("{} ctx: doca_task_free of a task that is not allocated (double free?)", type_name_);
        return;
    }
    if (task->in_flight) {
        logger().error("{} ctx: doca_task_free of a {} task still in flight; wait for its callback",
                       type_name_, task->kind->name());
        return;
    }
    task->allocated = false;
    task->kind->give_back(task);
    if (state() == DOCA_CTX_STATE_STOPPING) notify_pe();
}
