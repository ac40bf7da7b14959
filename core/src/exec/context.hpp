// The ctx: the base every library context (DMA, sync event, RDMA, DPA ...) derives from. It owns
// the state machine, the task kinds and their pools, in-flight accounting and the delivery of
// completions and state changes inside doca_pe_progress(). A library supplies the hooks: what
// start needs, how a task executes, where completions come from, how to flush on stop.
#pragma once

#include "completion_order.hpp"
#include "task.hpp"

#include <doca_ctx.h>
#include <doca_pe.h>

#include <array>
#include <atomic>
#include <cstddef>
#include <mutex>
#include <vector>

struct doca_pe;

struct doca_ctx {
  public:
    explicit doca_ctx(const char *type_name);
    virtual ~doca_ctx();
    doca_ctx(const doca_ctx &) = delete;
    doca_ctx &operator=(const doca_ctx &) = delete;

    const char *type_name() const { return type_name_; }

    // ---- the doca_ctx_* API
    doca_error_t start();
    doca_error_t stop();
    doca_ctx_states state() const { return state_.load(std::memory_order_acquire); }
    size_t inflight() const { return inflight_.load(std::memory_order_relaxed); }
    void set_user_data(doca_data data) { user_data_ = data; }
    doca_data user_data() const { return user_data_; }
    void set_state_changed_cb(doca_ctx_state_changed_callback_t cb) { state_cb_ = cb; }
    virtual doca_error_t set_datapath_on_dpa(doca_dpa *dpa);

    // ---- used by the progress engine (its thread)
    doca_pe *pe() const { return pe_; }
    void attach_pe(doca_pe *pe) { pe_ = pe; }
    // Runs one unit of work (a state change or a completion); true if it did.
    bool progress_one();
    // True when progress_one() would find work (used when arming notifications).
    bool has_ready_work() const;

    // ---- used by the task API
    // Takes a task of `kind` from its pool: RUNNING only (BAD_STATE), NO_MEMORY when exhausted.
    doca_error_t allocate(skiff::core::TaskKind &kind, doca_task **out, doca_data user_data);
    doca_error_t submit(doca_task *task, bool validate_first);
    void free_task(doca_task *task);

    // Seeded out-of-order completion delivery (0 = off). IDLE only.
    doca_error_t set_completion_order_seed(uint64_t seed);

  protected:
    // ---- hooks for libraries
    // Checks the configuration and brings up engines; pools are already built. Runs in IDLE.
    virtual doca_error_t on_start() { return DOCA_SUCCESS; }
    // True for connection-oriented contexts: start leaves them STARTING until become_running().
    virtual bool starts_asynchronously() const { return false; }
    // True when the data path runs elsewhere (doca_ctx_set_datapath_on_dpa): then start needs no
    // progress engine (doca_ctx.h: NOT_CONNECTED only without a PE and without such a data path).
    virtual bool runs_without_pe() const { return false; }
    // Stop was requested: every in-flight task must come back (flushed) through poll_completion().
    virtual void on_stop_requested() {}
    // Reached IDLE (nothing in flight, all tasks freed): tear engines down.
    virtual void on_stopped() {}
    // True for a task whose work already reached another party (a Comch message the peer
    // received): its success stands at a user stop instead of becoming DOCA_ERROR_SHUTDOWN.
    virtual bool delivered_to_peer(const doca_task *task) const { return false; }
    // Task validation for doca_task_try_submit; DOCA_SUCCESS or the reason.
    virtual doca_error_t validate(const doca_task *task) const { return DOCA_SUCCESS; }
    // Hands a submitted task to the engine. Never runs callbacks.
    virtual void execute(doca_task *task) = 0;
    // The next finished task (status set), or nullptr. Progress engine thread only.
    virtual doca_task *poll_completion() = 0;
    virtual bool completions_pending() const = 0;
    // Delivers one library event (a received message, a connection change) by running its
    // callback; true if it did. Runs after completions, in any state but IDLE.
    virtual bool deliver_event() { return false; }
    // True when deliver_event() would find an event (used when arming notifications).
    virtual bool events_pending() const { return false; }

    // ---- helpers for libraries
    void register_task_kind(skiff::core::TaskKind *kind) { kinds_.push_back(kind); }
    // STARTING -> RUNNING, for asynchronous starts.
    void become_running();
    // Any thread: a fatal error; the ctx goes RUNNING -> STOPPING at the next progress.
    void request_fatal_stop();
    // Any thread: wakes the progress engine if the application armed it.
    void notify_pe() const;
    // The same from the PE's own thread (no fence; see Notifier::signal_if_armed_same_thread).
    void notify_pe_from_pe_thread() const;

  private:
    struct Transition {
        doca_ctx_states prev;
        doca_ctx_states next;
    };

    void move_to(doca_ctx_states next);
    void enter_stopping();
    bool deliver_transition();
    // Runs the state-change callbacks still queued (none may be left when IDLE becomes visible).
    void deliver_pending_transitions();
    bool handle_fatal_request();
    bool try_finish_stop();
    bool all_tasks_returned() const;
    bool deliver_completion();
    void finish_stop_locked();
    [[gnu::cold, gnu::noinline]] doca_error_t refuse_submit(const doca_task *task) const;

    const char *type_name_;
    mutable std::mutex mu_; // control plane only: start, stop, state changes
    std::atomic<doca_ctx_states> state_{DOCA_CTX_STATE_IDLE};
    // Changed only on the progress engine's thread (submit, delivery); atomic so that other threads
    // may read it.
    std::atomic<size_t> inflight_{0};
    std::atomic<bool> transitions_pending_{false};
    std::atomic<bool> fatal_requested_{false};
    bool user_stop_ = false; // STOPPING because the application called stop (not a fatal error)
    std::array<Transition, 8> pending_{};
    size_t num_pending_ = 0;
    doca_pe *pe_ = nullptr;
    doca_data user_data_{};
    doca_ctx_state_changed_callback_t state_cb_ = nullptr;
    std::vector<skiff::core::TaskKind *> kinds_;
    skiff::core::CompletionOrder order_;
};
