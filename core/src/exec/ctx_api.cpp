// The doca_ctx_* C API (doca_ctx.h) over the doca_ctx base class.
#include "exec/context.hpp"

extern "C" {

doca_error_t doca_ctx_start(doca_ctx *ctx) {
    return ctx ? ctx->start() : DOCA_ERROR_INVALID_VALUE;
}

doca_error_t doca_ctx_stop(doca_ctx *ctx) {
    return ctx ? ctx->stop() : DOCA_ERROR_INVALID_VALUE;
}

doca_error_t doca_ctx_get_num_inflight_tasks(const doca_ctx *ctx, size_t *num_inflight_tasks) {
    if (!ctx || !num_inflight_tasks) return DOCA_ERROR_INVALID_VALUE;
    *num_inflight_tasks = ctx->inflight();
    return DOCA_SUCCESS;
}

void doca_ctx_flush_tasks(doca_ctx *) {
    // Nothing is held back: every engine takes a task when it is submitted (doca_ctx.h).
}

doca_error_t doca_ctx_set_datapath_on_gpu(doca_ctx *ctx, doca_gpu *gpu_dev) {
    if (!ctx || !gpu_dev) return DOCA_ERROR_INVALID_VALUE;
    if (ctx->state() != DOCA_CTX_STATE_IDLE) return DOCA_ERROR_BAD_STATE;
    return DOCA_ERROR_NOT_SUPPORTED; // skiff has no GPU data path
}

doca_error_t doca_ctx_set_datapath_on_dpa(doca_ctx *ctx, doca_dpa *dpa_dev) {
    if (!ctx || !dpa_dev) return DOCA_ERROR_INVALID_VALUE;
    return ctx->set_datapath_on_dpa(dpa_dev);
}

doca_error_t doca_ctx_set_user_data(doca_ctx *ctx, doca_data user_data) {
    if (!ctx) return DOCA_ERROR_INVALID_VALUE;
    ctx->set_user_data(user_data);
    return DOCA_SUCCESS;
}

doca_error_t doca_ctx_get_user_data(const doca_ctx *ctx, doca_data *user_data) {
    if (!ctx || !user_data) return DOCA_ERROR_INVALID_VALUE;
    *user_data = ctx->user_data();
    return DOCA_SUCCESS;
}

doca_error_t doca_ctx_set_state_changed_cb(doca_ctx *ctx, doca_ctx_state_changed_callback_t cb) {
    if (!ctx || !cb) return DOCA_ERROR_INVALID_VALUE;
    ctx->set_state_changed_cb(cb);
    return DOCA_SUCCESS;
}

doca_error_t doca_ctx_get_state(const doca_ctx *ctx, doca_ctx_states *state) {
    if (!ctx || !state) return DOCA_ERROR_INVALID_VALUE;
    *state = ctx->state();
    return DOCA_SUCCESS;
}

} // extern "C"
