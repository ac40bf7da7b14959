// Without rdma-core at build time: every doca_rdma_* call fails (NOT_SUPPORTED, or nullptr / 0
// where the call returns no status); doca_rdma_create logs why. Generated from doca_rdma.h's
// declarations (one body per call).
#ifndef SKIFF_HAVE_RDMA
#include <doca_rdma.h>

#include "dev/device.hpp"

#include <skiff/core/log.hpp>

extern "C" {

doca_error_t doca_rdma_create(struct doca_dev *dev, struct doca_rdma **) {
    skiff::log::get("rdma")->error(
        "doca_rdma_create: device {}: skiff was built without rdma-core (librdmacm, "
        "libibverbs); RDMA is not available",
        dev ? skiff::core::dev::desc_of(dev).name : "(null)");
    return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_rdma_destroy(struct doca_rdma *) {
    return DOCA_ERROR_NOT_SUPPORTED;
}

struct doca_ctx *doca_rdma_as_ctx(struct doca_rdma *) {
    return nullptr;
}

doca_error_t doca_rdma_set_permissions(struct doca_rdma *, uint32_t) {
    return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_rdma_get_permissions(const struct doca_rdma *, uint32_t *) {
    return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_rdma_set_gid_index(struct doca_rdma *, uint32_t) {
    return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_rdma_get_gid_index(const struct doca_rdma *, uint32_t *) {
    return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_rdma_set_send_queue_size(struct doca_rdma *, uint32_t) {
    return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_rdma_get_send_queue_size(const struct doca_rdma *, uint32_t *) {
    return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_rdma_set_recv_queue_size(struct doca_rdma *, uint32_t) {
    return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_rdma_get_recv_queue_size(const struct doca_rdma *, uint32_t *) {
    return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_rdma_set_max_num_connections(struct doca_rdma *, uint16_t) {
    return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_rdma_get_max_num_connections(struct doca_rdma *, uint16_t *) {
    return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_rdma_set_connection_state_callbacks(struct doca_rdma *, doca_rdma_connection_request_cb_t,
                                                      doca_rdma_connection_established_cb_t,
                                                      doca_rdma_connection_failure_cb_t,
                                                      doca_rdma_connection_disconnection_cb_t) {
    return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_rdma_addr_create(enum doca_rdma_addr_type, const char *, uint16_t,
                                   struct doca_rdma_addr **) {
    return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_rdma_addr_destroy(struct doca_rdma_addr *) {
    return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_rdma_start_listen_to_port(struct doca_rdma *, uint16_t) {
    return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_rdma_connect_to_addr(struct doca_rdma *, struct doca_rdma_addr *, union doca_data) {
    return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t skiff_rdma_connect_to_addr_with_private_data(struct doca_rdma *, struct doca_rdma_addr *,
                                                          union doca_data, const void *, uint8_t) {
    return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_rdma_connection_get_private_data(const struct doca_rdma_connection *, const void **,
                                                   uint8_t *) {
    return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_rdma_connection_accept(struct doca_rdma_connection *, void *, uint8_t) {
    return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_rdma_connection_reject(struct doca_rdma_connection *) {
    return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_rdma_connection_disconnect(struct doca_rdma_connection *) {
    return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_rdma_connection_set_user_data(struct doca_rdma_connection *, union doca_data) {
    return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_rdma_connection_get_user_data(const struct doca_rdma_connection *, union doca_data *) {
    return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_rdma_connection_get_id(const struct doca_rdma_connection *, uint32_t *) {
    return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_rdma_task_receive_set_conf(struct doca_rdma *, doca_rdma_task_receive_completion_cb_t,
                                             doca_rdma_task_receive_completion_cb_t, uint32_t) {
    return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_rdma_task_send_set_conf(struct doca_rdma *, doca_rdma_task_send_completion_cb_t,
                                          doca_rdma_task_send_completion_cb_t, uint32_t) {
    return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_rdma_task_send_imm_set_conf(struct doca_rdma *, doca_rdma_task_send_imm_completion_cb_t,
                                              doca_rdma_task_send_imm_completion_cb_t, uint32_t) {
    return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_rdma_task_read_set_conf(struct doca_rdma *, doca_rdma_task_read_completion_cb_t,
                                          doca_rdma_task_read_completion_cb_t, uint32_t) {
    return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_rdma_task_write_set_conf(struct doca_rdma *, doca_rdma_task_write_completion_cb_t,
                                           doca_rdma_task_write_completion_cb_t, uint32_t) {
    return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_rdma_task_write_imm_set_conf(struct doca_rdma *, doca_rdma_task_write_imm_completion_cb_t,
                                               doca_rdma_task_write_imm_completion_cb_t, uint32_t) {
    return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_rdma_task_receive_allocate_init(struct doca_rdma *, struct doca_buf *, union doca_data,
                                                  struct doca_rdma_task_receive **) {
    return DOCA_ERROR_NOT_SUPPORTED;
}

struct doca_task *doca_rdma_task_receive_as_task(struct doca_rdma_task_receive *) {
    return nullptr;
}

struct doca_buf *doca_rdma_task_receive_get_dst_buf(const struct doca_rdma_task_receive *) {
    return nullptr;
}

enum doca_rdma_opcode doca_rdma_task_receive_get_result_opcode(const struct doca_rdma_task_receive *) {
    return DOCA_RDMA_OPCODE_RECV_SEND;
}

doca_be32_t doca_rdma_task_receive_get_result_immediate_data(const struct doca_rdma_task_receive *) {
    return 0;
}

const struct doca_rdma_connection *
doca_rdma_task_receive_get_result_rdma_connection(const struct doca_rdma_task_receive *) {
    return nullptr;
}

doca_error_t doca_rdma_task_send_allocate_init(struct doca_rdma *, struct doca_rdma_connection *,
                                               const struct doca_buf *, union doca_data,
                                               struct doca_rdma_task_send **) {
    return DOCA_ERROR_NOT_SUPPORTED;
}

struct doca_task *doca_rdma_task_send_as_task(struct doca_rdma_task_send *) {
    return nullptr;
}

const struct doca_buf *doca_rdma_task_send_get_src_buf(const struct doca_rdma_task_send *) {
    return nullptr;
}

doca_error_t doca_rdma_task_send_imm_allocate_init(struct doca_rdma *, struct doca_rdma_connection *,
                                                   const struct doca_buf *, doca_be32_t, union doca_data,
                                                   struct doca_rdma_task_send_imm **) {
    return DOCA_ERROR_NOT_SUPPORTED;
}

struct doca_task *doca_rdma_task_send_imm_as_task(struct doca_rdma_task_send_imm *) {
    return nullptr;
}

doca_error_t doca_rdma_task_read_allocate_init(struct doca_rdma *, struct doca_rdma_connection *,
                                               const struct doca_buf *, struct doca_buf *, union doca_data,
                                               struct doca_rdma_task_read **) {
    return DOCA_ERROR_NOT_SUPPORTED;
}

struct doca_task *doca_rdma_task_read_as_task(struct doca_rdma_task_read *) {
    return nullptr;
}

struct doca_buf *doca_rdma_task_read_get_dst_buf(const struct doca_rdma_task_read *) {
    return nullptr;
}

doca_error_t doca_rdma_task_write_allocate_init(struct doca_rdma *, struct doca_rdma_connection *,
                                                const struct doca_buf *, struct doca_buf *, union doca_data,
                                                struct doca_rdma_task_write **) {
    return DOCA_ERROR_NOT_SUPPORTED;
}

struct doca_task *doca_rdma_task_write_as_task(struct doca_rdma_task_write *) {
    return nullptr;
}

doca_error_t doca_rdma_task_write_imm_allocate_init(struct doca_rdma *, struct doca_rdma_connection *,
                                                    const struct doca_buf *, struct doca_buf *, doca_be32_t,
                                                    union doca_data, struct doca_rdma_task_write_imm **) {
    return DOCA_ERROR_NOT_SUPPORTED;
}

struct doca_task *doca_rdma_task_write_imm_as_task(struct doca_rdma_task_write_imm *) {
    return nullptr;
}

doca_error_t doca_rdma_set_transport_type(struct doca_rdma *, enum doca_rdma_transport_type) {
    return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_rdma_get_transport_type(const struct doca_rdma *, enum doca_rdma_transport_type *) {
    return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_rdma_cap_transport_type_is_supported(const struct doca_devinfo *,
                                                       enum doca_rdma_transport_type) {
    return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_rdma_set_grh_enabled(struct doca_rdma *, uint8_t) {
    return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_rdma_get_grh_enabled(const struct doca_rdma *, uint8_t *) {
    return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_rdma_task_receive_set_dst_buf_list_len(struct doca_rdma *, uint32_t) {
    return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_rdma_task_receive_get_dst_buf_list_len(const struct doca_rdma *, uint32_t *) {
    return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_rdma_cap_task_receive_is_supported(const struct doca_devinfo *) {
    return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_rdma_cap_task_send_is_supported(const struct doca_devinfo *) {
    return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_rdma_cap_task_send_imm_is_supported(const struct doca_devinfo *) {
    return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_rdma_cap_task_read_is_supported(const struct doca_devinfo *) {
    return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_rdma_cap_task_write_is_supported(const struct doca_devinfo *) {
    return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_rdma_cap_task_write_imm_is_supported(const struct doca_devinfo *) {
    return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_rdma_cap_task_remote_net_sync_event_get_is_supported(const struct doca_devinfo *) {
    return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_rdma_cap_task_remote_net_sync_event_notify_set_is_supported(const struct doca_devinfo *) {
    return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_rdma_cap_task_remote_net_sync_event_notify_add_is_supported(const struct doca_devinfo *) {
    return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_rdma_export(struct doca_rdma *, const void **, size_t *, struct doca_rdma_connection **) {
    return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_rdma_connect(struct doca_rdma *, const void *, size_t, struct doca_rdma_connection *) {
    return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_rdma_dpa_completion_attach(struct doca_rdma *, struct doca_dpa_completion *) {
    return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_rdma_get_dpa_handle(struct doca_rdma *, doca_dpa_dev_rdma_t *) {
    return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_rdma_task_remote_net_sync_event_get_set_conf(
    struct doca_rdma *, doca_rdma_task_remote_net_sync_event_get_completion_cb_t,
    doca_rdma_task_remote_net_sync_event_get_completion_cb_t, uint32_t) {
    return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_rdma_task_remote_net_sync_event_notify_set_set_conf(
    struct doca_rdma *, doca_rdma_task_remote_net_sync_event_notify_set_completion_cb_t,
    doca_rdma_task_remote_net_sync_event_notify_set_completion_cb_t, uint32_t) {
    return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_rdma_task_remote_net_sync_event_notify_add_set_conf(
    struct doca_rdma *, doca_rdma_task_remote_net_sync_event_notify_add_completion_cb_t,
    doca_rdma_task_remote_net_sync_event_notify_add_completion_cb_t, uint32_t) {
    return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_rdma_task_remote_net_sync_event_get_allocate_init(
    struct doca_rdma *, struct doca_rdma_connection *, const struct doca_sync_event_remote_net *,
    struct doca_buf *, union doca_data, struct doca_rdma_task_remote_net_sync_event_get **) {
    return DOCA_ERROR_NOT_SUPPORTED;
}

struct doca_task *
doca_rdma_task_remote_net_sync_event_get_as_task(struct doca_rdma_task_remote_net_sync_event_get *) {
    return nullptr;
}

struct doca_buf *doca_rdma_task_remote_net_sync_event_get_get_dst_buf(
    const struct doca_rdma_task_remote_net_sync_event_get *) {
    return nullptr;
}

doca_error_t doca_rdma_task_remote_net_sync_event_notify_set_allocate_init(
    struct doca_rdma *, struct doca_rdma_connection *, struct doca_sync_event_remote_net *,
    const struct doca_buf *, union doca_data, struct doca_rdma_task_remote_net_sync_event_notify_set **) {
    return DOCA_ERROR_NOT_SUPPORTED;
}

struct doca_task *doca_rdma_task_remote_net_sync_event_notify_set_as_task(
    struct doca_rdma_task_remote_net_sync_event_notify_set *) {
    return nullptr;
}

doca_error_t doca_rdma_task_remote_net_sync_event_notify_add_allocate_init(
    struct doca_rdma *, struct doca_rdma_connection *, struct doca_sync_event_remote_net *, struct doca_buf *,
    uint64_t, union doca_data, struct doca_rdma_task_remote_net_sync_event_notify_add **) {
    return DOCA_ERROR_NOT_SUPPORTED;
}

struct doca_task *doca_rdma_task_remote_net_sync_event_notify_add_as_task(
    struct doca_rdma_task_remote_net_sync_event_notify_add *) {
    return nullptr;
}

void doca_rdma_task_receive_set_dst_buf(struct doca_rdma_task_receive *, struct doca_buf *) {}

uint32_t doca_rdma_task_receive_get_result_len(const struct doca_rdma_task_receive *) {
    return 0;
}

void doca_rdma_task_send_set_src_buf(struct doca_rdma_task_send *, const struct doca_buf *) {}

void doca_rdma_task_send_set_rdma_connection(struct doca_rdma_task_send *, struct doca_rdma_connection *) {}

const struct doca_rdma_connection *
doca_rdma_task_send_get_rdma_connection(const struct doca_rdma_task_send *) {
    return nullptr;
}

void doca_rdma_task_send_imm_set_src_buf(struct doca_rdma_task_send_imm *, const struct doca_buf *) {}

const struct doca_buf *doca_rdma_task_send_imm_get_src_buf(const struct doca_rdma_task_send_imm *) {
    return nullptr;
}

void doca_rdma_task_send_imm_set_immediate_data(struct doca_rdma_task_send_imm *, doca_be32_t) {}

doca_be32_t doca_rdma_task_send_imm_get_immediate_data(const struct doca_rdma_task_send_imm *) {
    return 0;
}

void doca_rdma_task_send_imm_set_rdma_connection(struct doca_rdma_task_send_imm *,
                                                 struct doca_rdma_connection *) {}

const struct doca_rdma_connection *
doca_rdma_task_send_imm_get_rdma_connection(const struct doca_rdma_task_send_imm *) {
    return nullptr;
}

void doca_rdma_task_read_set_src_buf(struct doca_rdma_task_read *, const struct doca_buf *) {}

const struct doca_buf *doca_rdma_task_read_get_src_buf(const struct doca_rdma_task_read *) {
    return nullptr;
}

void doca_rdma_task_read_set_dst_buf(struct doca_rdma_task_read *, struct doca_buf *) {}

uint32_t doca_rdma_task_read_get_result_len(const struct doca_rdma_task_read *) {
    return 0;
}

void doca_rdma_task_read_set_rdma_connection(struct doca_rdma_task_read *, struct doca_rdma_connection *) {}

const struct doca_rdma_connection *
doca_rdma_task_read_get_rdma_connection(const struct doca_rdma_task_read *) {
    return nullptr;
}

void doca_rdma_task_write_set_src_buf(struct doca_rdma_task_write *, const struct doca_buf *) {}

const struct doca_buf *doca_rdma_task_write_get_src_buf(const struct doca_rdma_task_write *) {
    return nullptr;
}

void doca_rdma_task_write_set_dst_buf(struct doca_rdma_task_write *, struct doca_buf *) {}

struct doca_buf *doca_rdma_task_write_get_dst_buf(const struct doca_rdma_task_write *) {
    return nullptr;
}

void doca_rdma_task_write_set_rdma_connection(struct doca_rdma_task_write *, struct doca_rdma_connection *) {}

const struct doca_rdma_connection *
doca_rdma_task_write_get_rdma_connection(const struct doca_rdma_task_write *) {
    return nullptr;
}

void doca_rdma_task_write_imm_set_src_buf(struct doca_rdma_task_write_imm *, const struct doca_buf *) {}

const struct doca_buf *doca_rdma_task_write_imm_get_src_buf(const struct doca_rdma_task_write_imm *) {
    return nullptr;
}

void doca_rdma_task_write_imm_set_dst_buf(struct doca_rdma_task_write_imm *, struct doca_buf *) {}

struct doca_buf *doca_rdma_task_write_imm_get_dst_buf(const struct doca_rdma_task_write_imm *) {
    return nullptr;
}

void doca_rdma_task_write_imm_set_immediate_data(struct doca_rdma_task_write_imm *, doca_be32_t) {}

doca_be32_t doca_rdma_task_write_imm_get_immediate_data(const struct doca_rdma_task_write_imm *) {
    return 0;
}

void doca_rdma_task_write_imm_set_rdma_connection(struct doca_rdma_task_write_imm *,
                                                  struct doca_rdma_connection *) {}

const struct doca_rdma_connection *
doca_rdma_task_write_imm_get_rdma_connection(const struct doca_rdma_task_write_imm *) {
    return nullptr;
}

} // extern "C"

#endif // !SKIFF_HAVE_RDMA
