// Remote-net sync events: exporting a counter for RDMA updates by a peer, and the peer's import.
// The descriptor carries the counter's address and rkey, behind its own magic.
#include "sync/remote_net.hpp"

#include "rdma/verbs.hpp"
#include "sync/sync_event.hpp"

#include <skiff/core/log.hpp>

#include <cstring>
#include <new>

namespace {

auto logger() {
    return skiff::log::get("sync");
}

constexpr uint32_t kBlobMagic = 0x534b524e; // "SKRN"

struct Blob {
    uint32_t magic;
    uint32_t rkey;
    uint64_t addr;
};
static_assert(sizeof(Blob) <= sizeof(doca_sync_event::RemoteNetExport::blob));

} // namespace

extern "C" {

doca_error_t doca_sync_event_add_publisher_location_remote_net(doca_sync_event *event) {
    if (!event) return DOCA_ERROR_INVALID_VALUE;
    doca_error_t r = event->add_location(true, "remote net");
    if (r == DOCA_SUCCESS) event->add_remote_net_location();
    return r;
}

doca_error_t doca_sync_event_export_to_remote_net(doca_sync_event *event, const uint8_t **data, size_t *sz) {
    if (!event || !data || !sz) return DOCA_ERROR_INVALID_VALUE;
    if (!event->has_remote_net_location()) {
        logger()->error("doca_sync_event_export_to_remote_net: declare a remote-net publisher before start");
        return DOCA_ERROR_NOT_PERMITTED;
    }
    if (event->use() != doca_sync_event::Use::standalone || !event->operational()) {
        logger()->error("doca_sync_event_export_to_remote_net: start the event (standalone) first");
        return DOCA_ERROR_BAD_STATE;
    }
    auto &ex = event->remote_export;
    if (!ex.mr) {
        if (!event->cpu_dev()) {
            logger()->error("doca_sync_event_export_to_remote_net: a CPU location names the RDMA device");
            return DOCA_ERROR_NOT_SUPPORTED;
        }
        if (auto r = skiff::core::rdma::register_word(event->cpu_dev(), event->counter_address(), &ex.mr);
            r != DOCA_SUCCESS)
            return r == DOCA_ERROR_DRIVER ? r : DOCA_ERROR_NOT_SUPPORTED;
        Blob b{kBlobMagic, skiff::core::rdma::mr_rkey(ex.mr),
               reinterpret_cast<uintptr_t>(event->counter_address())};
        std::memcpy(ex.blob, &b, sizeof b);
        ex.blob_len = sizeof b;
    }
    *data = ex.blob;
    *sz = ex.blob_len;
    return DOCA_SUCCESS;
}

doca_error_t doca_sync_event_remote_net_create_from_export(doca_dev *dev, const uint8_t *data, size_t sz,
                                                           doca_sync_event_remote_net **event) {
    if (!dev || !data || !event) return DOCA_ERROR_INVALID_VALUE;
    Blob b{};
    if (sz != sizeof b || (std::memcpy(&b, data, sizeof b), b.magic != kBlobMagic)) {
        logger()->error(
            "doca_sync_event_remote_net_create_from_export: not a remote-net sync event descriptor");
        return DOCA_ERROR_INVALID_VALUE;
    }
    auto *rn = new (std::nothrow) doca_sync_event_remote_net();
    if (!rn) return DOCA_ERROR_NO_MEMORY;
    rn->dev = dev;
    rn->addr = b.addr;
    rn->rkey = b.rkey;
    *event = rn;
    return DOCA_SUCCESS;
}

doca_error_t doca_sync_event_remote_net_destroy(doca_sync_event_remote_net *event) {
    if (!event || event->magic != doca_sync_event_remote_net::kMagic) return DOCA_ERROR_INVALID_VALUE;
    event->magic = 0;
    delete event;
    return DOCA_SUCCESS;
}

doca_error_t
doca_sync_event_remote_net_get_dpa_handle(doca_sync_event_remote_net *event, doca_dpa *dpa,
                                          doca_dpa_dev_sync_event_remote_net_t *dpa_remote_event) {
    if (!event || !dpa || !dpa_remote_event || event->magic != doca_sync_event_remote_net::kMagic)
        return DOCA_ERROR_INVALID_VALUE;
    *dpa_remote_event = static_cast<doca_dpa_dev_sync_event_remote_net_t>(reinterpret_cast<uintptr_t>(event));
    return DOCA_SUCCESS;
}

} // extern "C"
