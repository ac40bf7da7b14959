// C++ view of a DOCA context (any library's doca_X_as_ctx): state, start/stop, and a stop that
// progresses its engine until the ctx is IDLE. Non-owning: the library object owns the ctx.
#pragma once

#include <skiff/core/status.hpp>

#include <doca_ctx.h>

#include <cstddef>

struct doca_pe;

namespace skiff::core {

class CtxRef {
  public:
    CtxRef() = default;
    explicit CtxRef(doca_ctx *ctx) : ctx_(ctx) {}

    doca_ctx *get() const { return ctx_; }
    doca_ctx_states state() const;
    size_t inflight() const;

    // Starts the ctx; success also for an asynchronous start (STARTING, RUNNING comes later).
    Status start();
    // Requests a stop; success also while tasks still drain (STOPPING).
    Status stop();
    // Stops and progresses `pe` until the ctx is IDLE (the application must free the tasks its
    // callbacks receive, or this never finishes; it gives up after max_calls progress calls).
    Status stop_and_drain(doca_pe *pe, long max_calls = 100000000);

  private:
    doca_ctx *ctx_ = nullptr;
};

} // namespace skiff::core
