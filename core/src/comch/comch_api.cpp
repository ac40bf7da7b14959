// The doca_comch_* C API over the server and client contexts.
#include "comch/client.hpp"
#include "comch/server.hpp"
#include "comch/socket_path.hpp"
#include "dev/device.hpp"
#include "exec/ctx_destroy.hpp"
#include "exec/live_objects.hpp"

#include <cstring>
#include <new>

using skiff::core::comch::Endpoint;
using skiff::core::comch::logger;
namespace comch = skiff::core::comch;
namespace dev = skiff::core::dev;

namespace {

bool is_server_device(const doca_devinfo *info) {
    return info->desc.side == dev::Side::dpu && info->desc.func_type == DOCA_PCI_FUNC_TYPE_PF;
}

bool is_client_device(const doca_devinfo *info) {
    return info->desc.side == dev::Side::host;
}

bool valid_name(const char *name, const char *who) {
    if (name == nullptr || *name == '\0' || std::strlen(name) >= comch::kMaxNameLen) {
        logger().error("{}: the server name must be 1..{} characters (doca_comch_cap_get_max_name_len)", who,
                       comch::kMaxNameLen - 1);
        return false;
    }
    return true;
}

doca_error_t destroy(Endpoint *ep, const char *who) {
    return skiff::core::destroy_idle_ctx(ep, logger(), who, "comch context");
}

doca_error_t cap_value(const doca_devinfo *devinfo, uint32_t *out, uint32_t value) {
    if (devinfo == nullptr || out == nullptr) return DOCA_ERROR_INVALID_VALUE;
    if (!is_server_device(devinfo) && !is_client_device(devinfo)) return DOCA_ERROR_NOT_SUPPORTED;
    *out = value;
    return DOCA_SUCCESS;
}

} // namespace

extern "C" {

// ---- connections

doca_error_t doca_comch_connection_set_user_data(doca_comch_connection *connection, doca_data user_data) {
    if (connection == nullptr) return DOCA_ERROR_INVALID_VALUE;
    connection->user_data = user_data;
    return DOCA_SUCCESS;
}

doca_data doca_comch_connection_get_user_data(const doca_comch_connection *connection) {
    return connection != nullptr ? connection->user_data : doca_data{};
}

doca_comch_server *doca_comch_server_get_server_ctx(const doca_comch_connection *connection) {
    return connection != nullptr ? connection->server : nullptr;
}

doca_comch_client *doca_comch_client_get_client_ctx(const doca_comch_connection *connection) {
    return connection != nullptr ? connection->client : nullptr;
}

doca_error_t doca_comch_connection_update_info(doca_comch_connection *connection) {
    if (connection == nullptr) return DOCA_ERROR_INVALID_VALUE;
    if (connection->state == doca_comch_connection::State::handshaking)
        return DOCA_ERROR_CONNECTION_INPROGRESS;
    if (connection->state != doca_comch_connection::State::connected) return DOCA_ERROR_CONNECTION_ABORTED;
    std::memcpy(connection->snapshot, connection->live, sizeof connection->live);
    return DOCA_SUCCESS;
}

doca_error_t doca_comch_connection_get_counter(const doca_comch_connection *connection,
                                               doca_comch_counter counter_type, uint64_t *counter_value) {
    if (connection == nullptr || counter_value == nullptr ||
        counter_type < DOCA_COMCH_COUNTER_SENT_MESSAGES || counter_type > DOCA_COMCH_COUNTER_RECV_BYTES)
        return DOCA_ERROR_INVALID_VALUE;
    *counter_value = connection->snapshot[counter_type];
    return DOCA_SUCCESS;
}

// ---- capabilities

doca_error_t doca_comch_cap_get_max_name_len(const doca_devinfo *devinfo, uint32_t *max_name_len) {
    return cap_value(devinfo, max_name_len, comch::kMaxNameLen);
}

doca_error_t doca_comch_cap_get_max_msg_size(const doca_devinfo *devinfo, uint32_t *size) {
    return cap_value(devinfo, size, comch::kMaxMsgSize);
}

doca_error_t doca_comch_cap_get_max_recv_queue_size(const doca_devinfo *devinfo, uint32_t *size) {
    return cap_value(devinfo, size, comch::kMaxRecvQueueSize);
}

doca_error_t doca_comch_cap_get_max_clients(const doca_devinfo *devinfo, uint32_t *num_clients) {
    return cap_value(devinfo, num_clients, comch::kMaxClients);
}

doca_error_t doca_comch_cap_get_max_send_tasks(const doca_devinfo *devinfo, uint32_t *max_send_tasks) {
    return cap_value(devinfo, max_send_tasks, comch::kMaxSendTasks);
}

doca_error_t doca_comch_cap_server_is_supported(const doca_devinfo *devinfo) {
    if (devinfo == nullptr) return DOCA_ERROR_INVALID_VALUE;
    return is_server_device(devinfo) ? DOCA_SUCCESS : DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_comch_cap_client_is_supported(const doca_devinfo *devinfo) {
    if (devinfo == nullptr) return DOCA_ERROR_INVALID_VALUE;
    return is_client_device(devinfo) ? DOCA_SUCCESS : DOCA_ERROR_NOT_SUPPORTED;
}

// ---- server

doca_error_t doca_comch_server_create(doca_dev *dev, doca_dev_rep *repr, const char *name,
                                      doca_comch_server **comch_server) {
    if (dev == nullptr || repr == nullptr || comch_server == nullptr) return DOCA_ERROR_INVALID_VALUE;
    if (!valid_name(name, "doca_comch_server_create")) return DOCA_ERROR_INVALID_VALUE;
    if (!is_server_device(&dev->info)) {
        logger().error(
            "doca_comch_server_create: {} is not a DPU PF; a server runs on the DPU, on the PF that "
            "manages the host function's representor (doca_comch_cap_server_is_supported)",
            dev->info.desc.name);
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    if (repr->info.parent_identity != dev->info.desc.identity()) {
        logger().error(
            "doca_comch_server_create: representor {} is not managed by {} (list it through that PF)",
            repr->info.desc.name, dev->info.desc.name);
        return DOCA_ERROR_NOT_PERMITTED;
    }
    auto path = comch::socket_path(repr->info.desc.pci_addr, name);
    if (!path) {
        logger().error("doca_comch_server_create: {}", path.error().message);
        return path.error().code;
    }
    *comch_server = new (std::nothrow) doca_comch_server(dev, repr, name, std::move(path.value()));
    if (*comch_server == nullptr) return DOCA_ERROR_NO_MEMORY;
    skiff::core::live_exec_objects().add(static_cast<Endpoint *>(*comch_server));
    return DOCA_SUCCESS;
}

doca_error_t doca_comch_server_destroy(doca_comch_server *comch_server) {
    return destroy(comch_server, "doca_comch_server_destroy");
}

doca_error_t doca_comch_server_set_max_msg_size(doca_comch_server *s, uint32_t size) {
    return s != nullptr ? s->set_max_msg_size(size) : DOCA_ERROR_INVALID_VALUE;
}

doca_error_t doca_comch_server_get_max_msg_size(const doca_comch_server *s, uint32_t *size) {
    if (s == nullptr || size == nullptr) return DOCA_ERROR_INVALID_VALUE;
    *size = s->max_msg_size();
    return DOCA_SUCCESS;
}

doca_error_t doca_comch_server_set_recv_queue_size(doca_comch_server *s, uint32_t size) {
    return s != nullptr ? s->set_recv_queue_size(size) : DOCA_ERROR_INVALID_VALUE;
}

doca_error_t doca_comch_server_get_recv_queue_size(const doca_comch_server *s, uint32_t *size) {
    if (s == nullptr || size == nullptr) return DOCA_ERROR_INVALID_VALUE;
    *size = s->recv_queue_size();
    return DOCA_SUCCESS;
}

doca_error_t doca_comch_server_get_device(const doca_comch_server *s, doca_dev **dev) {
    if (s == nullptr || dev == nullptr) return DOCA_ERROR_INVALID_VALUE;
    *dev = s->dev();
    return DOCA_SUCCESS;
}

doca_error_t doca_comch_server_get_device_repr(const doca_comch_server *s, doca_dev_rep **repr) {
    if (s == nullptr || repr == nullptr) return DOCA_ERROR_INVALID_VALUE;
    *repr = s->rep();
    return DOCA_SUCCESS;
}

doca_ctx *doca_comch_server_as_ctx(doca_comch_server *s) {
    return s;
}

doca_error_t doca_comch_server_disconnect(doca_comch_server *s, doca_comch_connection *connection) {
    if (s == nullptr || connection == nullptr) return DOCA_ERROR_INVALID_VALUE;
    return s->disconnect(connection);
}

doca_error_t doca_comch_server_task_send_set_conf(doca_comch_server *s,
                                                  doca_comch_task_send_completion_cb_t ok,
                                                  doca_comch_task_send_completion_cb_t err, uint32_t num) {
    return s != nullptr ? s->set_send_conf(ok, err, num) : DOCA_ERROR_INVALID_VALUE;
}

doca_error_t doca_comch_server_task_send_alloc_init(doca_comch_server *s, doca_comch_connection *peer,
                                                    const void *msg, uint32_t len,
                                                    doca_comch_task_send **task) {
    return s != nullptr ? s->alloc_send(peer, msg, len, task) : DOCA_ERROR_INVALID_VALUE;
}

doca_error_t doca_comch_server_event_msg_recv_register(doca_comch_server *s,
                                                       doca_comch_event_msg_recv_cb_t cb) {
    return s != nullptr ? s->set_recv_cb(cb) : DOCA_ERROR_INVALID_VALUE;
}

doca_error_t doca_comch_server_event_connection_status_changed_register(
    doca_comch_server *s, doca_comch_event_connection_status_changed_cb_t on_connect,
    doca_comch_event_connection_status_changed_cb_t on_disconnect) {
    return s != nullptr ? s->set_connection_cbs(on_connect, on_disconnect) : DOCA_ERROR_INVALID_VALUE;
}

doca_error_t
doca_comch_server_event_connection_register(doca_comch_server *s,
                                            doca_comch_event_connection_status_changed_cb_t on_connect,
                                            doca_comch_event_connection_status_changed_cb_t on_disconnect) {
    return doca_comch_server_event_connection_status_changed_register(s, on_connect, on_disconnect);
}

doca_error_t doca_comch_server_event_consumer_register(doca_comch_server *s,
                                                       doca_comch_event_consumer_cb_t created,
                                                       doca_comch_event_consumer_cb_t expired) {
    return s != nullptr ? s->set_consumer_cbs(created, expired) : DOCA_ERROR_INVALID_VALUE;
}

// ---- client

doca_error_t doca_comch_client_create(doca_dev *dev, const char *name, doca_comch_client **comch_client) {
    if (dev == nullptr || comch_client == nullptr) return DOCA_ERROR_INVALID_VALUE;
    if (!valid_name(name, "doca_comch_client_create")) return DOCA_ERROR_INVALID_VALUE;
    if (!is_client_device(&dev->info)) {
        logger().error(
            "doca_comch_client_create: {} is a DPU device; a client runs on the host, on the function "
            "whose representor the server uses (doca_comch_cap_client_is_supported)",
            dev->info.desc.name);
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    auto path = comch::socket_path(dev->info.desc.pci_addr, name);
    if (!path) {
        logger().error("doca_comch_client_create: {}", path.error().message);
        return path.error().code;
    }
    *comch_client = new (std::nothrow) doca_comch_client(dev, name, std::move(path.value()));
    if (*comch_client == nullptr) return DOCA_ERROR_NO_MEMORY;
    skiff::core::live_exec_objects().add(static_cast<Endpoint *>(*comch_client));
    return DOCA_SUCCESS;
}

doca_error_t doca_comch_client_destroy(doca_comch_client *comch_client) {
    return destroy(comch_client, "doca_comch_client_destroy");
}

doca_error_t doca_comch_client_set_max_msg_size(doca_comch_client *c, uint32_t size) {
    return c != nullptr ? c->set_max_msg_size(size) : DOCA_ERROR_INVALID_VALUE;
}

doca_error_t doca_comch_client_get_max_msg_size(const doca_comch_client *c, uint32_t *size) {
    if (c == nullptr || size == nullptr) return DOCA_ERROR_INVALID_VALUE;
    *size = c->max_msg_size();
    return DOCA_SUCCESS;
}

doca_error_t doca_comch_client_set_recv_queue_size(doca_comch_client *c, uint32_t size) {
    return c != nullptr ? c->set_recv_queue_size(size) : DOCA_ERROR_INVALID_VALUE;
}

doca_error_t doca_comch_client_get_recv_queue_size(const doca_comch_client *c, uint32_t *size) {
    if (c == nullptr || size == nullptr) return DOCA_ERROR_INVALID_VALUE;
    *size = c->recv_queue_size();
    return DOCA_SUCCESS;
}

doca_error_t doca_comch_client_get_device(const doca_comch_client *c, doca_dev **dev) {
    if (c == nullptr || dev == nullptr) return DOCA_ERROR_INVALID_VALUE;
    *dev = c->dev();
    return DOCA_SUCCESS;
}

doca_ctx *doca_comch_client_as_ctx(doca_comch_client *c) {
    return c;
}

doca_error_t doca_comch_client_get_connection(const doca_comch_client *c,
                                              doca_comch_connection **connection) {
    if (c == nullptr || connection == nullptr) return DOCA_ERROR_INVALID_VALUE;
    return c->connection(connection);
}

doca_error_t doca_comch_client_task_send_set_conf(doca_comch_client *c,
                                                  doca_comch_task_send_completion_cb_t ok,
                                                  doca_comch_task_send_completion_cb_t err, uint32_t num) {
    return c != nullptr ? c->set_send_conf(ok, err, num) : DOCA_ERROR_INVALID_VALUE;
}

doca_error_t doca_comch_client_task_send_alloc_init(doca_comch_client *c, doca_comch_connection *peer,
                                                    const void *msg, uint32_t len,
                                                    doca_comch_task_send **task) {
    return c != nullptr ? c->alloc_send(peer, msg, len, task) : DOCA_ERROR_INVALID_VALUE;
}

doca_error_t doca_comch_client_event_msg_recv_register(doca_comch_client *c,
                                                       doca_comch_event_msg_recv_cb_t cb) {
    return c != nullptr ? c->set_recv_cb(cb) : DOCA_ERROR_INVALID_VALUE;
}

doca_error_t doca_comch_client_event_consumer_register(doca_comch_client *c,
                                                       doca_comch_event_consumer_cb_t created,
                                                       doca_comch_event_consumer_cb_t expired) {
    return c != nullptr ? c->set_consumer_cbs(created, expired) : DOCA_ERROR_INVALID_VALUE;
}

// ---- send task

doca_task *doca_comch_task_send_as_task(doca_comch_task_send *task) {
    return task;
}

doca_comch_connection *doca_comch_task_send_get_peer(const doca_comch_task_send *task) {
    return task != nullptr ? task->peer : nullptr;
}

} // extern "C"
