#include "dma/dma_context.hpp"

#include "common/c_enum.hpp"

#include "dev/dev_caps.hpp"
#include "dma/dma_limits.hpp"
#include "dma/memcpy_op.hpp"
#include "exec/ctx_destroy.hpp"
#include "exec/live_objects.hpp"

#include <skiff/core/log.hpp>

#include <cstdlib>
#include <new>

namespace {

spdlog::logger &logger() {
    static auto log = skiff::log::get("dma");
    return *log;
}

// SKIFF_DMA_COMPLETION_ORDER_SEED=<n>: every new DMA context delivers completions shuffled.
uint64_t seed_from_environment() {
    const char *text = std::getenv("SKIFF_DMA_COMPLETION_ORDER_SEED");
    return text && *text ? std::strtoull(text, nullptr, 0) : 0;
}

// SKIFF_DMA_CHECK_INFLIGHT=1: every new DMA context checks that sources do not change in flight.
bool inflight_check_from_environment() {
    const char *text = std::getenv("SKIFF_DMA_CHECK_INFLIGHT");
    return text && *text && *text != '0';
}

} // namespace

doca_dma::doca_dma(doca_dev *dev) : doca_ctx("dma"), dev_(dev) {
    register_task_kind(&memcpy_kind);
    if (uint64_t seed = seed_from_environment()) {
        set_completion_order_seed(seed);
        logger().info("dma ctx: completions delivered out of order (seed {})", seed);
    }
    if (inflight_check_from_environment()) executor_.set_inflight_check(true);
    set_engine_kind(skiff::core::dma::default_engine_kind());
}

doca_dma::~doca_dma() = default;

doca_error_t doca_dma::on_start() {
    executor_.prepare();
    engine_->start(memcpy_kind.capacity());
    logger().debug("dma ctx: {} engine", skiff::core::dma::engine_kind_name(kind_));
    return DOCA_SUCCESS;
}

// kind is one of the two (skiff_dma_set_engine checked what a caller passed).
doca_error_t doca_dma::set_engine_kind(skiff_dma_engine_kind kind) {
    if (state() != DOCA_CTX_STATE_IDLE) {
        logger().error("skiff_dma_set_engine: the engine is chosen while the ctx is IDLE");
        return DOCA_ERROR_BAD_STATE;
    }
    kind_ = kind;
    engine_ = kind == SKIFF_DMA_ENGINE_THREAD ? static_cast<skiff::core::dma::DmaEngine *>(&threaded_engine_)
                                              : &inline_engine_;
    return DOCA_SUCCESS;
}

doca_error_t doca_dma::validate(const doca_task *task) const {
    auto *t = static_cast<const doca_dma_task_memcpy *>(task);
    skiff::core::dma::MemcpyResult checked = skiff::core::dma::check_memcpy(t->src, t->dst);
    if (checked.status != DOCA_SUCCESS)
        logger().error("dma memcpy task refused by try_submit: {}", checked.why);
    return checked.status;
}

void doca_dma::execute(doca_task *task) {
    auto *t = static_cast<doca_dma_task_memcpy *>(task);
    if (executor_.checks_inflight_sources()) t->source_digest = skiff::core::dma::source_digest(t->src);
    engine_->submit(t);
}

// ---- doca_dma.h

extern "C" {

doca_error_t doca_dma_create(doca_dev *dev, doca_dma **dma) {
    if (!dev || !dma) return DOCA_ERROR_INVALID_VALUE;
    if (!skiff::core::dev_has_cap(dev, skiff::core::DevCap::dma_memcpy)) {
        logger().error("doca_dma_create: the device has no DMA memcpy capability "
                       "(pick one with doca_dma_cap_task_memcpy_is_supported)");
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    *dma = new (std::nothrow) doca_dma(dev);
    if (!*dma) return DOCA_ERROR_NO_MEMORY;
    skiff::core::live_exec_objects().add(*dma);
    return DOCA_SUCCESS;
}

doca_error_t doca_dma_destroy(doca_dma *dma) {
    return skiff::core::destroy_idle_ctx(dma, logger(), "doca_dma_destroy", "DMA context");
}

doca_error_t doca_dma_cap_task_memcpy_is_supported(const doca_devinfo *devinfo) {
    if (!devinfo) return DOCA_ERROR_INVALID_VALUE;
    return skiff::core::devinfo_has_cap(devinfo, skiff::core::DevCap::dma_memcpy) ? DOCA_SUCCESS
                                                                                  : DOCA_ERROR_NOT_SUPPORTED;
}

doca_ctx *doca_dma_as_ctx(doca_dma *dma) {
    return dma;
}

doca_error_t doca_dma_cap_get_max_num_tasks(doca_dma *dma, uint32_t *max_num_tasks) {
    if (!dma || !max_num_tasks) return DOCA_ERROR_INVALID_VALUE;
    *max_num_tasks = skiff::core::dma::kMaxNumTasks;
    return DOCA_SUCCESS;
}

doca_error_t doca_dma_cap_task_memcpy_get_max_buf_list_len(const doca_devinfo *devinfo,
                                                           uint32_t *max_buf_list_len) {
    if (!devinfo || !max_buf_list_len) return DOCA_ERROR_INVALID_VALUE;
    if (!skiff::core::devinfo_has_cap(devinfo, skiff::core::DevCap::dma_memcpy))
        return DOCA_ERROR_NOT_SUPPORTED;
    *max_buf_list_len = skiff::core::dma::kMaxBufListLen;
    return DOCA_SUCCESS;
}

doca_error_t doca_dma_cap_task_memcpy_get_max_buf_size(const doca_devinfo *devinfo, uint64_t *buf_size) {
    if (!devinfo || !buf_size) return DOCA_ERROR_INVALID_VALUE;
    if (!skiff::core::devinfo_has_cap(devinfo, skiff::core::DevCap::dma_memcpy))
        return DOCA_ERROR_NOT_SUPPORTED;
    *buf_size = skiff::core::dma::kMaxBufSize;
    return DOCA_SUCCESS;
}

doca_error_t doca_dma_task_memcpy_set_conf(doca_dma *dma,
                                           doca_dma_task_memcpy_completion_cb_t task_completion_cb,
                                           doca_dma_task_memcpy_completion_cb_t task_error_cb,
                                           uint32_t num_memcpy_tasks) {
    if (!dma || !task_completion_cb || !task_error_cb || num_memcpy_tasks == 0 ||
        num_memcpy_tasks > skiff::core::dma::kMaxNumTasks) {
        logger().error("doca_dma_task_memcpy_set_conf: needs a completion and an error callback and 1..{} "
                       "tasks (got {} tasks)",
                       skiff::core::dma::kMaxNumTasks, num_memcpy_tasks);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (dma->state() != DOCA_CTX_STATE_IDLE) {
        logger().error("doca_dma_task_memcpy_set_conf: configuration is frozen while the ctx is not IDLE");
        return DOCA_ERROR_BAD_STATE;
    }
    dma->memcpy_kind.configure(task_completion_cb, task_error_cb, num_memcpy_tasks);
    return DOCA_SUCCESS;
}

doca_error_t doca_dma_task_memcpy_alloc_init(doca_dma *dma, const doca_buf *src, doca_buf *dst,
                                             doca_data user_data, doca_dma_task_memcpy **task) {
    if (!dma || !task) return DOCA_ERROR_INVALID_VALUE;
    doca_task *generic = nullptr;
    doca_error_t r = dma->allocate(dma->memcpy_kind, &generic, user_data);
    if (r != DOCA_SUCCESS) return r;
    auto *t = static_cast<doca_dma_task_memcpy *>(generic);
    t->src = src;
    t->dst = dst;
    *task = t;
    return DOCA_SUCCESS;
}

doca_task *doca_dma_task_memcpy_as_task(doca_dma_task_memcpy *task) {
    return task;
}

void doca_dma_task_memcpy_set_src(doca_dma_task_memcpy *task, const doca_buf *src) {
    task->src = src;
}

const doca_buf *doca_dma_task_memcpy_get_src(const doca_dma_task_memcpy *task) {
    return task->src;
}

void doca_dma_task_memcpy_set_dst(doca_dma_task_memcpy *task, doca_buf *dst) {
    task->dst = dst;
}

doca_buf *doca_dma_task_memcpy_get_dst(const doca_dma_task_memcpy *task) {
    return task->dst;
}

doca_error_t skiff_dma_set_completion_order_seed(doca_dma *dma, uint64_t seed) {
    if (!dma) return DOCA_ERROR_INVALID_VALUE;
    return dma->set_completion_order_seed(seed);
}

doca_error_t skiff_dma_set_inflight_check(doca_dma *dma, int enabled) {
    if (!dma) return DOCA_ERROR_INVALID_VALUE;
    if (dma->state() != DOCA_CTX_STATE_IDLE) return DOCA_ERROR_BAD_STATE;
    dma->executor().set_inflight_check(enabled != 0);
    return DOCA_SUCCESS;
}

doca_error_t skiff_dma_hold_engine(doca_dma *dma, int held) {
    if (!dma) return DOCA_ERROR_INVALID_VALUE;
    dma->executor().hold(held != 0);
    return DOCA_SUCCESS;
}

doca_error_t skiff_dma_inject_fatal_error(doca_dma *dma, uint32_t nth, doca_error_t status) {
    if (!dma || status == DOCA_SUCCESS) return DOCA_ERROR_INVALID_VALUE;
    dma->executor().inject_fatal(nth, status);
    return DOCA_SUCCESS;
}

doca_error_t skiff_dma_set_engine(doca_dma *dma, skiff_dma_engine_kind kind) {
    if (!dma) return DOCA_ERROR_INVALID_VALUE;
    // A C caller may pass any int (common/c_enum.hpp): checked as one before it is used as a kind.
    auto raw = skiff::core::c_enum_value(kind);
    if (raw != SKIFF_DMA_ENGINE_INLINE && raw != SKIFF_DMA_ENGINE_THREAD) {
        logger().error("skiff_dma_set_engine: {} is not an engine (SKIFF_DMA_ENGINE_INLINE or _THREAD)", raw);
        return DOCA_ERROR_INVALID_VALUE;
    }
    return dma->set_engine_kind(kind);
}

doca_error_t skiff_dma_get_engine(const doca_dma *dma, skiff_dma_engine_kind *kind) {
    if (!dma || !kind) return DOCA_ERROR_INVALID_VALUE;
    *kind = dma->engine_kind();
    return DOCA_SUCCESS;
}

} // extern "C"
