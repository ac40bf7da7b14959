// Destroying a context, the same rule for every library's *_destroy: a handle that is not alive
// (destroyed already, or never created) is INVALID_VALUE; a ctx that is not IDLE is IN_USE and
// stays alive; otherwise it is freed.
#pragma once

#include "exec/context.hpp"
#include "exec/live_objects.hpp"

#include <skiff/core/log.hpp>

namespace skiff::core {

// who: the API that logs ("doca_dma_destroy"); what: the kind of object ("DMA context").
template <typename Ctx>
doca_error_t destroy_idle_ctx(Ctx *ctx, spdlog::logger &log, const char *who, const char *what) {
    if (!ctx) return DOCA_ERROR_INVALID_VALUE;
    LiveObjects &live = live_exec_objects();
    if (!live.remove(ctx)) {
        log.error("{}: {} is not a live {} (destroyed twice?)", who, static_cast<const void *>(ctx), what);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (ctx->state() != DOCA_CTX_STATE_IDLE) {
        live.add(ctx); // still alive
        log.error("{}: the ctx is not IDLE; stop it and progress until IDLE first", who);
        return DOCA_ERROR_IN_USE;
    }
    delete ctx;
    return DOCA_SUCCESS;
}

} // namespace skiff::core
