// The doca_rdma_* C API: creation, properties, connection management. Properties are IDLE only;
// connection calls need a RUNNING ctx. Every call is made on the PE's thread.
#ifdef SKIFF_HAVE_RDMA
#include "rdma/rdma_context.hpp"

#include "dev/device.hpp"
#include "exec/live_objects.hpp"

#include <skiff/core/device.hpp>
#include <skiff/core/log.hpp>

#include <bit>
#include <cstring>
#include <new>

namespace {

auto logger() {
    return skiff::log::get("rdma");
}

constexpr uint32_t rdma_permissions = DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_READ |
                                      DOCA_ACCESS_FLAG_RDMA_WRITE | DOCA_ACCESS_FLAG_RDMA_ATOMIC;

doca_error_t check_idle(const doca_rdma *rdma, const char *what) {
    if (rdma == nullptr) return DOCA_ERROR_INVALID_VALUE;
    if (rdma->state() != DOCA_CTX_STATE_IDLE) {
        logger()->error("{}: the ctx is not IDLE (properties are set before doca_ctx_start)", what);
        return DOCA_ERROR_BAD_STATE;
    }
    return DOCA_SUCCESS;
}

doca_error_t check_running(const doca_rdma *rdma, const char *what) {
    if (rdma == nullptr) return DOCA_ERROR_INVALID_VALUE;
    if (rdma->state() != DOCA_CTX_STATE_RUNNING) {
        logger()->error("{}: the ctx is not RUNNING", what);
        return DOCA_ERROR_BAD_STATE;
    }
    return DOCA_SUCCESS;
}

doca_error_t set_queue_size(doca_rdma *rdma, uint32_t size, uint32_t *field, const char *what) {
    if (auto r = check_idle(rdma, what); r != DOCA_SUCCESS) return r;
    if (size == 0 || size > skiff::core::rdma::max_queue_size) {
        logger()->error("{}: {} is outside [1, {}]", what, size, skiff::core::rdma::max_queue_size);
        return DOCA_ERROR_INVALID_VALUE;
    }
    *field = std::bit_ceil(size);
    return DOCA_SUCCESS;
}

doca_error_t rdma_capable(const doca_devinfo *devinfo) {
    if (devinfo == nullptr) return DOCA_ERROR_INVALID_VALUE;
    return skiff::core::devinfo_has_cap(devinfo, skiff::core::DevCap::rdma) ? DOCA_SUCCESS
                                                                            : DOCA_ERROR_NOT_SUPPORTED;
}

} // namespace

extern "C" {

doca_error_t doca_rdma_create(doca_dev *dev, doca_rdma **rdma) {
    if (dev == nullptr || rdma == nullptr) return DOCA_ERROR_INVALID_VALUE;
    if (!skiff::core::dev_has_cap(dev, skiff::core::DevCap::rdma)) {
        logger()->error(
            "doca_rdma_create: device {} has no RDMA; open an rdma-core device (rxe0, mlx5_0, ...)",
            skiff::core::dev::desc_of(dev).name);
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    *rdma = new (std::nothrow) doca_rdma(dev);
    if (*rdma == nullptr) return DOCA_ERROR_NO_MEMORY;
    skiff::core::live_exec_objects().add(*rdma);
    return DOCA_SUCCESS;
}

doca_error_t doca_rdma_destroy(doca_rdma *rdma) {
    if (rdma == nullptr) return DOCA_ERROR_INVALID_VALUE;
    if (!skiff::core::live_exec_objects().remove(rdma)) {
        logger()->error("doca_rdma_destroy: not a live RDMA context (destroyed twice?)");
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (rdma->state() != DOCA_CTX_STATE_IDLE) {
        skiff::core::live_exec_objects().add(rdma);
        logger()->error("doca_rdma_destroy: the ctx is not IDLE; stop it and progress until IDLE first");
        return DOCA_ERROR_BAD_STATE;
    }
    delete rdma;
    return DOCA_SUCCESS;
}

doca_ctx *doca_rdma_as_ctx(doca_rdma *rdma) {
    return rdma;
}

doca_error_t doca_rdma_set_permissions(doca_rdma *rdma, uint32_t permissions) {
    if (auto r = check_idle(rdma, "doca_rdma_set_permissions"); r != DOCA_SUCCESS) return r;
    if ((permissions & ~rdma_permissions) != 0) {
        logger()->error("doca_rdma_set_permissions: {:#x} has non-RDMA access flags", permissions);
        return DOCA_ERROR_INVALID_VALUE;
    }
    rdma->permissions = permissions;
    return DOCA_SUCCESS;
}
doca_error_t doca_rdma_get_permissions(const doca_rdma *rdma, uint32_t *permissions) {
    if (rdma == nullptr || permissions == nullptr) return DOCA_ERROR_INVALID_VALUE;
    *permissions = rdma->permissions;
    return DOCA_SUCCESS;
}
doca_error_t doca_rdma_set_gid_index(doca_rdma *rdma, uint32_t gid_index) {
    if (auto r = check_idle(rdma, "doca_rdma_set_gid_index"); r != DOCA_SUCCESS) return r;
    rdma->gid_index = gid_index; // RDMA-CM picks the GID from the address; kept for DOCA parity
    return DOCA_SUCCESS;
}
doca_error_t doca_rdma_get_gid_index(const doca_rdma *rdma, uint32_t *gid_index) {
    if (rdma == nullptr || gid_index == nullptr) return DOCA_ERROR_INVALID_VALUE;
    *gid_index = rdma->gid_index;
    return DOCA_SUCCESS;
}
doca_error_t doca_rdma_set_send_queue_size(doca_rdma *rdma, uint32_t size) {
    return set_queue_size(rdma, size, rdma ? &rdma->send_queue_size : nullptr,
                          "doca_rdma_set_send_queue_size");
}
doca_error_t doca_rdma_get_send_queue_size(const doca_rdma *rdma, uint32_t *size) {
    if (rdma == nullptr || size == nullptr) return DOCA_ERROR_INVALID_VALUE;
    *size = rdma->send_queue_size;
    return DOCA_SUCCESS;
}
doca_error_t doca_rdma_set_recv_queue_size(doca_rdma *rdma, uint32_t size) {
    return set_queue_size(rdma, size, rdma ? &rdma->recv_queue_size : nullptr,
                          "doca_rdma_set_recv_queue_size");
}
doca_error_t doca_rdma_get_recv_queue_size(const doca_rdma *rdma, uint32_t *size) {
    if (rdma == nullptr || size == nullptr) return DOCA_ERROR_INVALID_VALUE;
    *size = rdma->recv_queue_size;
    return DOCA_SUCCESS;
}
doca_error_t doca_rdma_set_max_num_connections(doca_rdma *rdma, uint16_t n) {
    if (auto r = check_idle(rdma, "doca_rdma_set_max_num_connections"); r != DOCA_SUCCESS) return r;
    if (n == 0) return DOCA_ERROR_INVALID_VALUE;
    rdma->max_connections = n;
    return DOCA_SUCCESS;
}
doca_error_t doca_rdma_get_max_num_connections(doca_rdma *rdma, uint16_t *n) {
    if (rdma == nullptr || n == nullptr) return DOCA_ERROR_INVALID_VALUE;
    *n = rdma->max_connections;
    return DOCA_SUCCESS;
}

doca_error_t doca_rdma_set_connection_state_callbacks(doca_rdma *rdma,
                                                      doca_rdma_connection_request_cb_t request,
                                                      doca_rdma_connection_established_cb_t established,
                                                      doca_rdma_connection_failure_cb_t failure,
                                                      doca_rdma_connection_disconnection_cb_t disconnect) {
    if (auto r = check_idle(rdma, "doca_rdma_set_connection_state_callbacks"); r != DOCA_SUCCESS) return r;
    if (established == nullptr || failure == nullptr || disconnect == nullptr)
        return DOCA_ERROR_INVALID_VALUE;
    rdma->request_cb = request;
    rdma->established_cb = established;
    rdma->failure_cb = failure;
    rdma->disconnect_cb = disconnect;
    return DOCA_SUCCESS;
}

doca_error_t doca_rdma_start_listen_to_port(doca_rdma *rdma, uint16_t port) {
    if (auto r = check_running(rdma, "doca_rdma_start_listen_to_port"); r != DOCA_SUCCESS) return r;
    if (rdma->request_cb == nullptr) {
        logger()->error("doca_rdma_start_listen_to_port: no connection request callback was set");
        return DOCA_ERROR_BAD_STATE;
    }
    return rdma->listen(port);
}

doca_error_t skiff_rdma_connect_to_addr_with_private_data(doca_rdma *rdma, doca_rdma_addr *addr,
                                                          doca_data user_data, const void *pd, uint8_t len) {
    if (addr == nullptr || (len > 0 && pd == nullptr)) return DOCA_ERROR_INVALID_VALUE;
    if (len > skiff::core::rdma::max_request_private_data) {
        logger()->error("doca_rdma_connect_to_addr: {} bytes of private data, at most {}", len,
                        skiff::core::rdma::max_request_private_data);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (auto r = check_running(rdma, "doca_rdma_connect_to_addr"); r != DOCA_SUCCESS) return r;
    return rdma->connect(*addr, user_data, pd, len);
}

doca_error_t doca_rdma_export(doca_rdma *rdma, const void **local_rdma_conn_details,
                              size_t *local_rdma_conn_details_size, doca_rdma_connection **rdma_connection) {
    if (local_rdma_conn_details == nullptr || local_rdma_conn_details_size == nullptr ||
        rdma_connection == nullptr)
        return DOCA_ERROR_INVALID_VALUE;
    if (auto r = check_running(rdma, "doca_rdma_export"); r != DOCA_SUCCESS) return r;
    return rdma->export_connection(local_rdma_conn_details, local_rdma_conn_details_size, rdma_connection);
}

doca_error_t doca_rdma_connect(doca_rdma *rdma, const void *remote_rdma_conn_details,
                               size_t remote_rdma_conn_details_size, doca_rdma_connection *rdma_connection) {
    if (remote_rdma_conn_details == nullptr || rdma_connection == nullptr) return DOCA_ERROR_INVALID_VALUE;
    if (auto r = check_running(rdma, "doca_rdma_connect"); r != DOCA_SUCCESS) return r;
    if (rdma_connection->rdma != rdma) {
        logger()->error("doca_rdma_connect: the connection belongs to another RDMA context");
        return DOCA_ERROR_INVALID_VALUE;
    }
    return rdma->connect_direct(remote_rdma_conn_details, remote_rdma_conn_details_size, rdma_connection);
}

doca_error_t doca_rdma_set_transport_type(doca_rdma *rdma, doca_rdma_transport_type transport_type) {
    if (auto r = check_idle(rdma, "doca_rdma_set_transport_type"); r != DOCA_SUCCESS) return r;
    if (transport_type != DOCA_RDMA_TRANSPORT_TYPE_RC) {
        logger()->error("doca_rdma_set_transport_type: only RC is supported (DC needs mlx5 DCT/DCI, which "
                        "rdma-core's generic verbs do not have)");
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    rdma->transport_type = transport_type;
    return DOCA_SUCCESS;
}

doca_error_t doca_rdma_get_transport_type(const doca_rdma *rdma, doca_rdma_transport_type *transport_type) {
    if (rdma == nullptr || transport_type == nullptr) return DOCA_ERROR_INVALID_VALUE;
    *transport_type = rdma->transport_type;
    return DOCA_SUCCESS;
}

doca_error_t doca_rdma_cap_transport_type_is_supported(const doca_devinfo *devinfo,
                                                       doca_rdma_transport_type transport_type) {
    if (devinfo == nullptr) return DOCA_ERROR_INVALID_VALUE;
    if (transport_type != DOCA_RDMA_TRANSPORT_TYPE_RC) return DOCA_ERROR_NOT_SUPPORTED;
    return rdma_capable(devinfo);
}

doca_error_t doca_rdma_set_grh_enabled(doca_rdma *rdma, uint8_t grh_enabled) {
    if (auto r = check_idle(rdma, "doca_rdma_set_grh_enabled"); r != DOCA_SUCCESS) return r;
    rdma->grh_enabled = grh_enabled != 0;
    return DOCA_SUCCESS;
}

doca_error_t doca_rdma_get_grh_enabled(const doca_rdma *rdma, uint8_t *grh_enabled) {
    if (rdma == nullptr || grh_enabled == nullptr) return DOCA_ERROR_INVALID_VALUE;
    *grh_enabled = rdma->grh_enabled ? 1 : 0;
    return DOCA_SUCCESS;
}

// Every task runs over verbs on the device: a device with RDMA supports them all.
doca_error_t doca_rdma_cap_task_receive_is_supported(const doca_devinfo *devinfo) {
    return rdma_capable(devinfo);
}
doca_error_t doca_rdma_cap_task_send_is_supported(const doca_devinfo *devinfo) {
    return rdma_capable(devinfo);
}
doca_error_t doca_rdma_cap_task_send_imm_is_supported(const doca_devinfo *devinfo) {
    return rdma_capable(devinfo);
}
doca_error_t doca_rdma_cap_task_read_is_supported(const doca_devinfo *devinfo) {
    return rdma_capable(devinfo);
}
doca_error_t doca_rdma_cap_task_write_is_supported(const doca_devinfo *devinfo) {
    return rdma_capable(devinfo);
}
doca_error_t doca_rdma_cap_task_write_imm_is_supported(const doca_devinfo *devinfo) {
    return rdma_capable(devinfo);
}
doca_error_t doca_rdma_cap_task_remote_net_sync_event_get_is_supported(const doca_devinfo *devinfo) {
    return rdma_capable(devinfo);
}
doca_error_t doca_rdma_cap_task_remote_net_sync_event_notify_set_is_supported(const doca_devinfo *devinfo) {
    return rdma_capable(devinfo);
}
doca_error_t doca_rdma_cap_task_remote_net_sync_event_notify_add_is_supported(const doca_devinfo *devinfo) {
    return rdma_capable(devinfo);
}

doca_error_t doca_rdma_connect_to_addr(doca_rdma *rdma, doca_rdma_addr *addr, doca_data user_data) {
    return skiff_rdma_connect_to_addr_with_private_data(rdma, addr, user_data, nullptr, 0);
}

doca_error_t doca_rdma_connection_get_private_data(const doca_rdma_connection *c, const void **pd,
                                                   uint8_t *len) {
    if (c == nullptr || pd == nullptr || len == nullptr) return DOCA_ERROR_INVALID_VALUE;
    *pd = c->private_data;
    *len = c->private_data_len;
    return DOCA_SUCCESS;
}

doca_error_t doca_rdma_connection_accept(doca_rdma_connection *c, void *pd, uint8_t len) {
    if (c == nullptr || c->rdma == nullptr || (len > 0 && pd == nullptr)) return DOCA_ERROR_INVALID_VALUE;
    if (len > skiff::core::rdma::max_accept_private_data) return DOCA_ERROR_INVALID_VALUE;
    return c->rdma->accept(c, pd, len);
}
doca_error_t doca_rdma_connection_reject(doca_rdma_connection *c) {
    if (c == nullptr || c->rdma == nullptr) return DOCA_ERROR_INVALID_VALUE;
    return c->rdma->reject(c);
}
doca_error_t doca_rdma_connection_disconnect(doca_rdma_connection *c) {
    if (c == nullptr || c->rdma == nullptr) return DOCA_ERROR_INVALID_VALUE;
    return c->rdma->disconnect(c);
}
doca_error_t doca_rdma_connection_set_user_data(doca_rdma_connection *c, doca_data user_data) {
    if (c == nullptr) return DOCA_ERROR_INVALID_VALUE;
    c->user_data = user_data;
    return DOCA_SUCCESS;
}
doca_error_t doca_rdma_connection_get_user_data(const doca_rdma_connection *c, doca_data *user_data) {
    if (c == nullptr || user_data == nullptr) return DOCA_ERROR_INVALID_VALUE;
    *user_data = c->user_data;
    return DOCA_SUCCESS;
}
doca_error_t doca_rdma_connection_get_id(const doca_rdma_connection *c, uint32_t *id) {
    if (c == nullptr || id == nullptr) return DOCA_ERROR_INVALID_VALUE;
    *id = c->id;
    return DOCA_SUCCESS;
}

doca_error_t doca_rdma_addr_create(doca_rdma_addr_type type, const char *address, uint16_t port,
                                   doca_rdma_addr **addr) {
    if (address == nullptr || addr == nullptr) return DOCA_ERROR_INVALID_VALUE;
    if (type == DOCA_RDMA_ADDR_TYPE_GID) {
        logger()->error("doca_rdma_addr_create: GID addresses are not supported; use an IPv4/IPv6 address");
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    if (std::strlen(address) >= sizeof(doca_rdma_addr::address)) return DOCA_ERROR_INVALID_VALUE;
    auto *a = new (std::nothrow) doca_rdma_addr{};
    if (a == nullptr) return DOCA_ERROR_NO_MEMORY;
    a->type = type;
    std::strcpy(a->address, address);
    a->port = port;
    *addr = a;
    return DOCA_SUCCESS;
}
doca_error_t doca_rdma_addr_destroy(doca_rdma_addr *addr) {
    if (addr == nullptr) return DOCA_ERROR_INVALID_VALUE;
    delete addr;
    return DOCA_SUCCESS;
}

} // extern "C"

#endif // SKIFF_HAVE_RDMA
