// The doca_comch_producer_* / doca_comch_consumer_* C API over the data path contexts.
#include "comch/consumer.hpp"
#include "comch/endpoint.hpp"
#include "comch/producer.hpp"
#include "dev/device.hpp"
#include "exec/live_objects.hpp"
#include "mem/mmap.hpp"

#include <cstring>
#include <new>

using skiff::core::comch::logger;
namespace comch = skiff::core::comch;
namespace dev = skiff::core::dev;

namespace {

// The data path runs wherever a comch server (DPU PF) or client (host function) can.
bool can_run_data_path(const doca_devinfo *info) {
    return (info->desc.side == dev::Side::dpu && info->desc.func_type == DOCA_PCI_FUNC_TYPE_PF) ||
           info->desc.side == dev::Side::host;
}

doca_error_t cap_value(const doca_devinfo *devinfo, uint32_t *out, uint32_t value) {
    if (devinfo == nullptr || out == nullptr) return DOCA_ERROR_INVALID_VALUE;
    if (!can_run_data_path(devinfo)) return DOCA_ERROR_NOT_SUPPORTED;
    *out = value;
    return DOCA_SUCCESS;
}

doca_error_t cap_supported(const doca_devinfo *devinfo) {
    if (devinfo == nullptr) return DOCA_ERROR_INVALID_VALUE;
    return can_run_data_path(devinfo) ? DOCA_SUCCESS : DOCA_ERROR_NOT_SUPPORTED;
}

bool connected(const doca_comch_connection *conn, const char *who) {
    if (conn->state == doca_comch_connection::State::connected) return true;
    logger().error("{}: the comch connection is not established", who);
    return false;
}

template <typename T>
doca_error_t destroy(T *ctx, const char *who) {
    if (ctx == nullptr) return DOCA_ERROR_INVALID_VALUE;
    auto &live = skiff::core::live_exec_objects();
    if (!live.remove(ctx)) {
        logger().error("{}: {} is not a live context (destroyed twice?)", who, static_cast<void *>(ctx));
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (ctx->state() != DOCA_CTX_STATE_IDLE) {
        live.add(ctx);
        logger().error("{}: the ctx is not IDLE; stop it and progress until IDLE first", who);
        return DOCA_ERROR_IN_USE;
    }
    delete ctx;
    return DOCA_SUCCESS;
}

} // namespace

extern "C" {

// ---- producer

doca_error_t doca_comch_producer_create(doca_comch_connection *conn, doca_comch_producer **producer) {
    if (conn == nullptr || producer == nullptr) return DOCA_ERROR_INVALID_VALUE;
    if (!connected(conn, "doca_comch_producer_create")) return DOCA_ERROR_BAD_STATE;
    *producer = new (std::nothrow) doca_comch_producer(conn);
    if (*producer == nullptr) return DOCA_ERROR_NO_MEMORY;
    skiff::core::live_exec_objects().add(*producer);
    return DOCA_SUCCESS;
}

doca_error_t doca_comch_producer_destroy(doca_comch_producer *producer) {
    return destroy(producer, "doca_comch_producer_destroy");
}

doca_error_t doca_comch_producer_cap_is_supported(const doca_devinfo *devinfo) {
    return cap_supported(devinfo);
}

doca_error_t doca_comch_producer_get_id(const doca_comch_producer *producer, uint32_t *id) {
    if (producer == nullptr || id == nullptr) return DOCA_ERROR_INVALID_VALUE;
    *id = producer->id();
    return DOCA_SUCCESS;
}

doca_error_t doca_comch_producer_cap_get_max_num_tasks(const doca_devinfo *devinfo, uint32_t *max_num_tasks) {
    return cap_value(devinfo, max_num_tasks, comch::kMaxDataPathTasks);
}

doca_error_t doca_comch_producer_cap_get_max_buf_size(const doca_devinfo *devinfo, uint32_t *max_buf_size) {
    return cap_value(devinfo, max_buf_size, comch::kMaxDataPathBufSize);
}

doca_error_t doca_comch_producer_cap_get_max_buf_list_len(const doca_devinfo *devinfo,
                                                          uint32_t *max_buf_list_len) {
    return cap_value(devinfo, max_buf_list_len, 1);
}

doca_error_t doca_comch_producer_cap_get_max_producers(const doca_devinfo *devinfo, uint32_t *max_producers) {
    return cap_value(devinfo, max_producers, comch::kMaxProducers);
}

doca_ctx *doca_comch_producer_as_ctx(doca_comch_producer *producer) {
    return producer;
}

doca_error_t doca_comch_producer_task_send_set_conf(doca_comch_producer *producer,
                                                    doca_comch_producer_task_send_completion_cb_t ok,
                                                    doca_comch_producer_task_send_completion_cb_t err,
                                                    uint32_t num_send_tasks) {
    return producer != nullptr ? producer->set_send_conf(ok, err, num_send_tasks) : DOCA_ERROR_INVALID_VALUE;
}

doca_error_t doca_comch_producer_task_send_alloc_init(doca_comch_producer *producer, const doca_buf *buf,
                                                      uint8_t *imm_data, uint32_t imm_data_len,
                                                      uint32_t consumer_id,
                                                      doca_comch_producer_task_send **task) {
    if (producer == nullptr) return DOCA_ERROR_INVALID_VALUE;
    return producer->alloc_send(buf, imm_data, imm_data_len, consumer_id, task);
}

const doca_buf *doca_comch_producer_task_send_get_buf(doca_comch_producer_task_send *task) {
    return task != nullptr ? task->buf : nullptr;
}

void doca_comch_producer_task_send_set_buf(doca_comch_producer_task_send *task, const doca_buf *buf) {
    if (task != nullptr) task->buf = buf;
}

uint32_t doca_comch_producer_task_send_get_consumer_id(doca_comch_producer_task_send *task) {
    return task != nullptr ? task->consumer_id : 0;
}

void doca_comch_producer_task_send_set_consumer_id(doca_comch_producer_task_send *task,
                                                   const uint32_t consumer_id) {
    if (task != nullptr) task->consumer_id = consumer_id;
}

uint8_t *doca_comch_producer_task_send_get_imm_data(doca_comch_producer_task_send *task) {
    return task != nullptr && task->imm_len != 0 ? task->imm : nullptr;
}

uint32_t doca_comch_producer_task_send_get_imm_data_len(doca_comch_producer_task_send *task) {
    return task != nullptr ? task->imm_len : 0;
}

void doca_comch_producer_task_send_set_imm_data(doca_comch_producer_task_send *task, uint8_t *imm_data,
                                                uint32_t imm_data_len) {
    if (task == nullptr) return;
    if (imm_data == nullptr) imm_data_len = 0;
    if (imm_data_len > comch::kMaxImmDataLen) {
        logger().error("doca_comch_producer_task_send_set_imm_data: {} bytes, at most {}; clamped",
                       imm_data_len, comch::kMaxImmDataLen);
        imm_data_len = comch::kMaxImmDataLen;
    }
    task->imm_len = imm_data_len;
    if (imm_data_len != 0) std::memcpy(task->imm, imm_data, imm_data_len);
}

doca_task *doca_comch_producer_task_send_as_task(doca_comch_producer_task_send *task) {
    return task;
}

// ---- consumer

doca_error_t doca_comch_consumer_create(doca_comch_connection *conn, doca_mmap *buf_mmap,
                                        doca_comch_consumer **consumer) {
    if (conn == nullptr || buf_mmap == nullptr || consumer == nullptr) return DOCA_ERROR_INVALID_VALUE;
    if (!connected(conn, "doca_comch_consumer_create")) return DOCA_ERROR_BAD_STATE;
    if (!buf_mmap->started) {
        logger().error("doca_comch_consumer_create: the mmap is not started");
        return DOCA_ERROR_INVALID_VALUE;
    }
    *consumer = new (std::nothrow) doca_comch_consumer(conn, buf_mmap);
    if (*consumer == nullptr) return DOCA_ERROR_NO_MEMORY;
    skiff::core::live_exec_objects().add(*consumer);
    return DOCA_SUCCESS;
}

doca_error_t doca_comch_consumer_destroy(doca_comch_consumer *consumer) {
    return destroy(consumer, "doca_comch_consumer_destroy");
}

doca_error_t doca_comch_consumer_cap_is_supported(const doca_devinfo *devinfo) {
    return cap_supported(devinfo);
}

doca_error_t doca_comch_consumer_get_id(const doca_comch_consumer *consumer, uint32_t *id) {
    if (consumer == nullptr || id == nullptr) return DOCA_ERROR_INVALID_VALUE;
    *id = consumer->id();
    return DOCA_SUCCESS;
}

doca_error_t doca_comch_consumer_cap_get_max_num_tasks(const doca_devinfo *devinfo, uint32_t *max_num_tasks) {
    return cap_value(devinfo, max_num_tasks, comch::kMaxDataPathTasks);
}

doca_error_t doca_comch_consumer_cap_get_max_buf_size(const doca_devinfo *devinfo, uint32_t *max_buf_size) {
    return cap_value(devinfo, max_buf_size, comch::kMaxDataPathBufSize);
}

doca_error_t doca_comch_consumer_cap_get_max_buf_list_len(const doca_devinfo *devinfo,
                                                          uint32_t *max_buf_list_len) {
    return cap_value(devinfo, max_buf_list_len, 1);
}

doca_error_t doca_comch_consumer_cap_get_max_consumers(const doca_devinfo *devinfo, uint32_t *max_consumers) {
    return cap_value(devinfo, max_consumers, comch::kMaxConsumers);
}

doca_error_t doca_comch_consumer_cap_get_max_imm_data_len(const doca_devinfo *devinfo,
                                                          uint32_t *max_imm_data_len) {
    return cap_value(devinfo, max_imm_data_len, comch::kMaxImmDataLen);
}

doca_error_t doca_comch_consumer_get_imm_data_len(const doca_comch_consumer *consumer,
                                                  uint32_t *imm_data_len) {
    if (consumer == nullptr || imm_data_len == nullptr) return DOCA_ERROR_INVALID_VALUE;
    *imm_data_len = consumer->imm_data_len();
    return DOCA_SUCCESS;
}

doca_error_t doca_comch_consumer_set_imm_data_len(doca_comch_consumer *consumer, uint32_t imm_data_len) {
    return consumer != nullptr ? consumer->set_imm_data_len(imm_data_len) : DOCA_ERROR_INVALID_VALUE;
}

doca_ctx *doca_comch_consumer_as_ctx(doca_comch_consumer *consumer) {
    return consumer;
}

doca_error_t doca_comch_consumer_task_post_recv_set_conf(
    doca_comch_consumer *consumer, doca_comch_consumer_task_post_recv_completion_cb_t ok,
    doca_comch_consumer_task_post_recv_completion_cb_t err, uint32_t num_post_recv_tasks) {
    return consumer != nullptr ? consumer->set_recv_conf(ok, err, num_post_recv_tasks)
                               : DOCA_ERROR_INVALID_VALUE;
}

doca_error_t doca_comch_consumer_task_post_recv_alloc_init(doca_comch_consumer *consumer, doca_buf *buf,
                                                           doca_comch_consumer_task_post_recv **task) {
    return consumer != nullptr ? consumer->alloc_recv(buf, task) : DOCA_ERROR_INVALID_VALUE;
}

doca_buf *doca_comch_consumer_task_post_recv_get_buf(doca_comch_consumer_task_post_recv *task) {
    return task != nullptr ? task->buf : nullptr;
}

void doca_comch_consumer_task_post_recv_set_buf(doca_comch_consumer_task_post_recv *task, doca_buf *buf) {
    if (task != nullptr) task->buf = buf;
}

uint32_t doca_comch_consumer_task_post_recv_get_producer_id(doca_comch_consumer_task_post_recv *task) {
    return task != nullptr ? task->producer_id : 0;
}

uint8_t *doca_comch_consumer_task_post_recv_get_imm_data(doca_comch_consumer_task_post_recv *task) {
    return task != nullptr && task->imm_len != 0 ? task->imm : nullptr;
}

uint32_t doca_comch_consumer_task_post_recv_get_imm_data_len(doca_comch_consumer_task_post_recv *task) {
    return task != nullptr ? task->imm_len : 0;
}

doca_task *doca_comch_consumer_task_post_recv_as_task(doca_comch_consumer_task_post_recv *task) {
    return task;
}

} // extern "C"
