// doca_mmap_advise: the cache-invalidate context. The emulated memory is coherent, so a task's
// work is its checks; it completes on the next doca_pe_progress() through the context's FIFO of
// finished tasks (sized for every task of the pool when the context starts: no allocation per task).
#include <doca_buf.h>
#include <doca_mmap_advise.h>

#include "dev/dev_caps.hpp"
#include "dma/dma_limits.hpp"
#include "exec/ctx_destroy.hpp"
#include "exec/context.hpp"
#include "exec/live_objects.hpp"
#include "exec/task.hpp"

#include <skiff/core/log.hpp>

#include <new>
#include <vector>

namespace {

spdlog::logger &logger() {
    static auto log = skiff::log::get("mmap_advise");
    return *log;
}

// The same bounds as the DMA context's: the invalidation follows a DMA write.
constexpr uint32_t kMaxNumTasks = skiff::core::dma::kMaxNumTasks;
constexpr uint64_t kMaxBufSize = skiff::core::dma::kMaxBufSize;

// DOCA_SUCCESS or why the task cannot run.
doca_error_t check_buf(const doca_buf *buf, const char **why) {
    size_t len = 0;
    if (!buf) {
        *why = "the task has no buf";
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (doca_buf_get_len(buf, &len) != DOCA_SUCCESS || len > kMaxBufSize) {
        *why = "the buf is larger than the maximum buffer size (2 GiB)";
        return DOCA_ERROR_INVALID_VALUE;
    }
    return DOCA_SUCCESS;
}

} // namespace

struct doca_mmap_advise_task_invalidate_cache : doca_task {
    doca_buf *buf = nullptr;
};

struct doca_mmap_advise final : doca_ctx {
  public:
    doca_mmap_advise() : doca_ctx("mmap_advise") { register_task_kind(&invalidate_kind); }

    skiff::core::TypedTaskKind<doca_mmap_advise_task_invalidate_cache> invalidate_kind{"cache invalidate"};

  protected:
    doca_error_t on_start() override {
        finished_.assign(invalidate_kind.capacity(), nullptr);
        head_ = count_ = 0;
        return DOCA_SUCCESS;
    }
    doca_error_t validate(const doca_task *task) const override {
        const char *why = "";
        doca_error_t status =
            check_buf(static_cast<const doca_mmap_advise_task_invalidate_cache *>(task)->buf, &why);
        if (status != DOCA_SUCCESS) logger().error("cache invalidate task refused by try_submit: {}", why);
        return status;
    }
    // The invalidation is done once the checks pass (coherent memory); the task waits for progress.
    void execute(doca_task *task) override {
        const char *why = "";
        task->status = check_buf(static_cast<doca_mmap_advise_task_invalidate_cache *>(task)->buf, &why);
        if (task->status != DOCA_SUCCESS) logger().error("cache invalidate task failed: {}", why);
        finished_[(head_ + count_) % finished_.size()] = task;
        ++count_;
        notify_pe_from_pe_thread();
    }
    doca_task *poll_completion() override {
        if (count_ == 0) return nullptr;
        doca_task *task = finished_[head_];
        head_ = (head_ + 1) % finished_.size();
        --count_;
        return task;
    }
    bool completions_pending() const override { return count_ > 0; }

  private:
    std::vector<doca_task *> finished_; // a ring of every task of the pool
    size_t head_ = 0;
    size_t count_ = 0;
};

extern "C" {

doca_error_t doca_mmap_advise_create(doca_dev *dev, doca_mmap_advise **mmap_advise) {
    if (!dev || !mmap_advise) return DOCA_ERROR_INVALID_VALUE;
    if (!skiff::core::dev_has_cap(dev, skiff::core::DevCap::dma_memcpy)) {
        logger().error("doca_mmap_advise_create: the device cannot DMA, so it has no cache to invalidate "
                       "(pick one with doca_mmap_advise_cap_task_cache_invalidate_is_supported)");
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    *mmap_advise = new (std::nothrow) doca_mmap_advise();
    if (!*mmap_advise) return DOCA_ERROR_NO_MEMORY;
    skiff::core::live_exec_objects().add(*mmap_advise);
    return DOCA_SUCCESS;
}

doca_error_t doca_mmap_advise_destroy(doca_mmap_advise *mmap_advise) {
    return skiff::core::destroy_idle_ctx(mmap_advise, logger(), "doca_mmap_advise_destroy",
                                         "mmap advise context");
}

doca_ctx *doca_mmap_advise_as_ctx(doca_mmap_advise *mmap_advise) {
    return mmap_advise;
}

doca_error_t doca_mmap_advise_cap_task_cache_invalidate_is_supported(const doca_devinfo *devinfo) {
    if (!devinfo) return DOCA_ERROR_INVALID_VALUE;
    return skiff::core::devinfo_has_cap(devinfo, skiff::core::DevCap::dma_memcpy) ? DOCA_SUCCESS
                                                                                  : DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_mmap_advise_task_cache_invalidate_get_max_buf_size(const doca_devinfo *devinfo,
                                                                     uint64_t *buf_size) {
    if (!devinfo || !buf_size) return DOCA_ERROR_INVALID_VALUE;
    if (!skiff::core::devinfo_has_cap(devinfo, skiff::core::DevCap::dma_memcpy))
        return DOCA_ERROR_NOT_SUPPORTED;
    *buf_size = kMaxBufSize;
    return DOCA_SUCCESS;
}

doca_error_t doca_mmap_advise_task_invalidate_cache_set_conf(
    doca_mmap_advise *mmap_advise, doca_mmap_advise_task_invalidate_cache_completion_cb_t completion_cb,
    doca_mmap_advise_task_invalidate_cache_completion_cb_t error_cb, uint32_t num_tasks) {
    if (!mmap_advise || !completion_cb || !error_cb || num_tasks == 0 || num_tasks > kMaxNumTasks) {
        logger().error("doca_mmap_advise_task_invalidate_cache_set_conf: needs a completion and an error "
                       "callback and 1..{} tasks (got {} tasks)",
                       kMaxNumTasks, num_tasks);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (mmap_advise->state() != DOCA_CTX_STATE_IDLE) {
        logger().error(
            "doca_mmap_advise_task_invalidate_cache_set_conf: configuration is frozen while the ctx "
            "is not IDLE");
        return DOCA_ERROR_BAD_STATE;
    }
    mmap_advise->invalidate_kind.configure(completion_cb, error_cb, num_tasks);
    return DOCA_SUCCESS;
}

doca_error_t
doca_mmap_advise_task_invalidate_cache_alloc_init(doca_mmap_advise *mmap_advise, doca_buf *buf,
                                                  doca_data user_data,
                                                  doca_mmap_advise_task_invalidate_cache **task) {
    if (!mmap_advise || !task) return DOCA_ERROR_INVALID_VALUE;
    doca_task *generic = nullptr;
    doca_error_t r = mmap_advise->allocate(mmap_advise->invalidate_kind, &generic, user_data);
    if (r != DOCA_SUCCESS) return r;
    auto *t = static_cast<doca_mmap_advise_task_invalidate_cache *>(generic);
    t->buf = buf;
    *task = t;
    return DOCA_SUCCESS;
}

doca_task *doca_mmap_advise_task_invalidate_cache_as_doca_task(doca_mmap_advise_task_invalidate_cache *task) {
    return task;
}

void doca_mmap_advise_task_invalidate_cache_set_buf(doca_mmap_advise_task_invalidate_cache *task,
                                                    doca_buf *buf) {
    task->buf = buf;
}

doca_buf *doca_mmap_advise_task_invalidate_cache_get_buf(const doca_mmap_advise_task_invalidate_cache *task) {
    return task->buf;
}

} // extern "C"
