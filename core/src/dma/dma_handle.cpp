// skiff/core/dma.hpp over the C API.
#include <skiff/core/dma.hpp>
#include <skiff/core/log.hpp>

#include <doca_pe.h>

namespace skiff::core {

Result<Dma> Dma::create(doca_dev *dev) {
    Dma dma;
    if (Status s = check(doca_dma_create(dev, &dma.dma_), "doca_dma_create"); !s) return s.error();
    return dma;
}

Dma &Dma::operator=(Dma &&other) noexcept {
    if (this != &other) {
        reset();
        dma_ = std::exchange(other.dma_, nullptr);
        pe_ = std::exchange(other.pe_, nullptr);
    }
    return *this;
}

Dma::~Dma() {
    reset();
}

void Dma::reset() {
    if (!dma_) return;
    if (pe_ && ctx().state() != DOCA_CTX_STATE_IDLE) {
        if (Status s = ctx().stop_and_drain(pe_); !s)
            log::get("dma")->error("DMA handle destroyed while running: {}", s.error().describe());
    }
    // A context that could not be stopped is leaked rather than freed under its engine.
    if (doca_dma_destroy(dma_) != DOCA_SUCCESS)
        log::get("dma")->error("DMA context leaked: it never reached IDLE");
    dma_ = nullptr;
}

Status Dma::set_memcpy_conf(doca_dma_task_memcpy_completion_cb_t on_success,
                            doca_dma_task_memcpy_completion_cb_t on_error, uint32_t num_tasks) {
    return check(doca_dma_task_memcpy_set_conf(dma_, on_success, on_error, num_tasks),
                 "doca_dma_task_memcpy_set_conf");
}

Status Dma::connect(doca_pe *pe) {
    Status s = check(doca_pe_connect_ctx(pe, doca_dma_as_ctx(dma_)), "doca_pe_connect_ctx");
    if (s) pe_ = pe;
    return s;
}

Result<doca_dma_task_memcpy *> Dma::memcpy_task(const doca_buf *src, doca_buf *dst, doca_data user_data) {
    doca_dma_task_memcpy *task = nullptr;
    if (Status s = check(doca_dma_task_memcpy_alloc_init(dma_, src, dst, user_data, &task),
                         "doca_dma_task_memcpy_alloc_init");
        !s)
        return s.error();
    return task;
}

Status Dma::submit_memcpy(const doca_buf *src, doca_buf *dst, doca_data user_data) {
    auto task = memcpy_task(src, dst, user_data);
    if (!task) return task.error();
    doca_task *t = doca_dma_task_memcpy_as_task(task.value());
    Status s = check(doca_task_submit(t), "doca_task_submit");
    if (!s) doca_task_free(t);
    return s;
}

} // namespace skiff::core
