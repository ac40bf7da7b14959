// doca_mmap lifecycle and configuration: create -> set_memrange / add_dev / set_permissions ... ->
// start (frozen) -> stop -> destroy.
#include <doca_mmap.h>

#include "dev/device.hpp"
#include "mem/dpa_mmap_handles.hpp"
#include "mem/live_handles.hpp"
#include "mem/mmap.hpp"
#include "rdma/verbs.hpp"

#include <skiff/core/log.hpp>

#include <algorithm>
#include <new>

namespace {

auto logger() {
    return skiff::log::get("mem");
}

constexpr uint32_t all_access_flags = DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_READ |
                                      DOCA_ACCESS_FLAG_RDMA_WRITE | DOCA_ACCESS_FLAG_RDMA_ATOMIC |
                                      DOCA_ACCESS_FLAG_PCI_READ_ONLY | DOCA_ACCESS_FLAG_PCI_READ_WRITE |
                                      DOCA_ACCESS_FLAG_PCI_RELAXED_ORDERING;

// Imported and exported mmaps refuse every change of configuration.
doca_error_t refuse_if_shared(const doca_mmap *m, const char *what) {
    if (m->from_export) {
        logger()->error("{}: the mmap was created from an export; it cannot be reconfigured", what);
        return DOCA_ERROR_NOT_PERMITTED;
    }
    if (m->exported) {
        logger()->error("{}: the mmap has been exported; it cannot be reconfigured", what);
        return DOCA_ERROR_NOT_PERMITTED;
    }
    return DOCA_SUCCESS;
}

doca_error_t refuse_if_started(const doca_mmap *m, const char *what, doca_error_t code) {
    if (!m->started) return DOCA_SUCCESS;
    logger()->error("{}: the mmap is started; stop it first (configuration is frozen at start)", what);
    return code;
}

} // namespace

namespace skiff::core::mem {

void mmap_revoke_exports(doca_mmap *m) {
    if (!m->exports.empty())
        logger()->debug("revoking {} export(s) of mmap {}", m->exports.size(), static_cast<void *>(m));
    m->exports.clear(); // ~ExportSegment revokes, then frees the segment; the blobs go too
    skiff::core::rdma::mmap_deregister_all(m); // the peers' rkeys stop working here
}

} // namespace skiff::core::mem

extern "C" {

doca_error_t doca_mmap_create(struct doca_mmap **mmap) {
    if (mmap == nullptr) return DOCA_ERROR_INVALID_VALUE;
    auto *m = new (std::nothrow) doca_mmap{};
    if (m == nullptr) return DOCA_ERROR_NO_MEMORY;
    skiff::core::mem::live_handles().add(m);
    *mmap = m;
    return DOCA_SUCCESS;
}

doca_error_t doca_mmap_start(struct doca_mmap *mmap) {
    if (mmap == nullptr) return DOCA_ERROR_INVALID_VALUE;
    if (auto r = refuse_if_shared(mmap, "doca_mmap_start"); r != DOCA_SUCCESS) return r;
    if (mmap->started) {
        logger()->error("doca_mmap_start: the mmap is already started");
        return DOCA_ERROR_BAD_STATE;
    }
    if (!mmap->range_set) {
        logger()->error("doca_mmap_start: no memory range; call doca_mmap_set_memrange first");
        return DOCA_ERROR_INVALID_VALUE;
    }
    mmap->started = true;
    mmap->ever_started = true;
    mmap->free_cb_armed = mmap->free_cb != nullptr;
    return DOCA_SUCCESS;
}

doca_error_t doca_mmap_stop(struct doca_mmap *mmap) {
    if (mmap == nullptr) return DOCA_ERROR_INVALID_VALUE;
    // An mmap created from an export is stopped too (it cannot be started again): NVIDIA's RDMA
    // samples stop the imported remote mmap before destroying it and count any error as a failure.
    if (!mmap->started) {
        logger()->error("doca_mmap_stop: the mmap is not started");
        return DOCA_ERROR_BAD_STATE;
    }
    if (uint32_t n = mmap->num_bufs.load(std::memory_order_relaxed); n != 0) {
        logger()->error("doca_mmap_stop: {} doca_buf(s) still point into the mmap; release them first", n);
        return DOCA_ERROR_NOT_PERMITTED;
    }
    if (!mmap->from_export) skiff::core::mem::mmap_revoke_exports(mmap);
    mmap->started = false;
    return DOCA_SUCCESS;
}

doca_error_t doca_mmap_destroy(struct doca_mmap *mmap) {
    if (mmap == nullptr) return DOCA_ERROR_INVALID_VALUE;
    if (auto r = skiff::core::mem::check_live(mmap, "doca_mmap_destroy"); r != DOCA_SUCCESS) return r;
    if (uint32_t n = mmap->num_bufs.load(std::memory_order_relaxed); n != 0) {
        logger()->error("doca_mmap_destroy: {} doca_buf(s) still point into the mmap; release them first", n);
        return DOCA_ERROR_NOT_PERMITTED;
    }
    skiff::core::mem::mmap_revoke_exports(mmap); // implicit stop
    mmap->import.reset();
    for (doca_dev *dev : mmap->devs) skiff::core::dev::dev_release(dev);
    if (mmap->free_cb_armed) mmap->free_cb(mmap->addr, mmap->len, mmap->free_cb_opaque);
    skiff::core::mem::dpa_mmap_handle_release(mmap);
    skiff::core::mem::live_handles().remove(mmap);
    delete mmap;
    return DOCA_SUCCESS;
}

doca_error_t doca_mmap_add_dev(struct doca_mmap *mmap, struct doca_dev *dev) {
    if (mmap == nullptr || dev == nullptr) return DOCA_ERROR_INVALID_VALUE;
    if (auto r = refuse_if_shared(mmap, "doca_mmap_add_dev"); r != DOCA_SUCCESS) return r;
    if (auto r = refuse_if_started(mmap, "doca_mmap_add_dev", DOCA_ERROR_NOT_PERMITTED); r != DOCA_SUCCESS)
        return r;
    if (mmap->dpa_range) {
        logger()->error(
            "doca_mmap_add_dev: the mmap holds DPA memory (doca_mmap_set_dpa_memrange); its device "
            "is the DPA context's and no other may be added");
        return DOCA_ERROR_NOT_PERMITTED;
    }
    if (std::find(mmap->devs.begin(), mmap->devs.end(), dev) != mmap->devs.end()) {
        logger()->error("doca_mmap_add_dev: device {} was already added", dev->info.desc.name);
        return DOCA_ERROR_ALREADY_EXIST;
    }
    if (mmap->devs.size() >= mmap->max_num_devices) {
        logger()->error("doca_mmap_add_dev: the mmap already has its maximum of {} device(s); raise it with "
                        "doca_mmap_set_max_num_devices before the first start",
                        mmap->max_num_devices);
        return DOCA_ERROR_NO_MEMORY;
    }
    mmap->devs.push_back(dev);
    skiff::core::dev::dev_hold(dev);
    return DOCA_SUCCESS;
}

doca_error_t doca_mmap_rm_dev(struct doca_mmap *mmap, struct doca_dev *dev) {
    if (mmap == nullptr || dev == nullptr) return DOCA_ERROR_INVALID_VALUE;
    if (auto r = refuse_if_shared(mmap, "doca_mmap_rm_dev"); r != DOCA_SUCCESS) return r;
    if (auto r = refuse_if_started(mmap, "doca_mmap_rm_dev", DOCA_ERROR_NOT_PERMITTED); r != DOCA_SUCCESS)
        return r;
    auto it = std::find(mmap->devs.begin(), mmap->devs.end(), dev);
    if (it == mmap->devs.end()) {
        logger()->error("doca_mmap_rm_dev: device {} was never added to this mmap", dev->info.desc.name);
        return DOCA_ERROR_NOT_FOUND;
    }
    mmap->devs.erase(it);
    skiff::core::dev::dev_release(dev);
    return DOCA_SUCCESS;
}

doca_error_t doca_mmap_set_memrange(struct doca_mmap *mmap, void *addr, size_t len) {
    if (mmap == nullptr || addr == nullptr || len == 0) {
        logger()->error("doca_mmap_set_memrange: needs an mmap, a non-NULL address and a length > 0");
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (reinterpret_cast<uintptr_t>(addr) + len < reinterpret_cast<uintptr_t>(addr)) {
        logger()->error("doca_mmap_set_memrange: {} + {} bytes overflows the address space", addr, len);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (auto r = refuse_if_shared(mmap, "doca_mmap_set_memrange"); r != DOCA_SUCCESS) return r;
    if (auto r = refuse_if_started(mmap, "doca_mmap_set_memrange", DOCA_ERROR_BAD_STATE); r != DOCA_SUCCESS)
        return r;
    if (mmap->range_set) {
        logger()->error("doca_mmap_set_memrange: the range is already set (one range per mmap, set once)");
        return DOCA_ERROR_NOT_PERMITTED;
    }
    mmap->addr = static_cast<uint8_t *>(addr);
    mmap->len = len;
    mmap->range_set = true;
    return DOCA_SUCCESS;
}

doca_error_t doca_mmap_set_dmabuf_memrange(struct doca_mmap *mmap, int, void *, size_t, size_t) {
    if (mmap == nullptr) return DOCA_ERROR_INVALID_VALUE;
    logger()->error(
        "doca_mmap_set_dmabuf_memrange: dmabuf memory is not emulated; use doca_mmap_set_memrange");
    return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_mmap_get_memrange(const struct doca_mmap *mmap, void **addr, size_t *len) {
    if (mmap == nullptr || addr == nullptr || len == nullptr) return DOCA_ERROR_INVALID_VALUE;
    if (!mmap->range_set) return DOCA_ERROR_BAD_STATE;
    *addr = mmap->addr;
    *len = mmap->len;
    return DOCA_SUCCESS;
}

doca_error_t doca_mmap_set_free_cb(struct doca_mmap *mmap, doca_mmap_memrange_free_cb_t *free_cb,
                                   void *opaque) {
    if (mmap == nullptr) return DOCA_ERROR_INVALID_VALUE;
    if (auto r = refuse_if_shared(mmap, "doca_mmap_set_free_cb"); r != DOCA_SUCCESS) return r;
    if (auto r = refuse_if_started(mmap, "doca_mmap_set_free_cb", DOCA_ERROR_BAD_STATE); r != DOCA_SUCCESS)
        return r;
    mmap->free_cb = free_cb;
    mmap->free_cb_opaque = opaque;
    mmap->free_cb_armed = false; // changed after the last start: not called on destroy
    return DOCA_SUCCESS;
}

doca_error_t doca_mmap_set_user_data(struct doca_mmap *mmap, union doca_data user_data) {
    if (mmap == nullptr) return DOCA_ERROR_INVALID_VALUE;
    if (auto r = refuse_if_shared(mmap, "doca_mmap_set_user_data"); r != DOCA_SUCCESS) return r;
    if (auto r = refuse_if_started(mmap, "doca_mmap_set_user_data", DOCA_ERROR_BAD_STATE); r != DOCA_SUCCESS)
        return r;
    mmap->user_data = user_data;
    return DOCA_SUCCESS;
}

doca_error_t doca_mmap_get_user_data(const struct doca_mmap *mmap, union doca_data *user_data) {
    if (mmap == nullptr || user_data == nullptr) return DOCA_ERROR_INVALID_VALUE;
    *user_data = mmap->user_data;
    return DOCA_SUCCESS;
}

doca_error_t doca_mmap_set_max_num_devices(struct doca_mmap *mmap, uint32_t max_num_devices) {
    if (mmap == nullptr || max_num_devices == 0) return DOCA_ERROR_INVALID_VALUE;
    if (auto r = refuse_if_shared(mmap, "doca_mmap_set_max_num_devices"); r != DOCA_SUCCESS) return r;
    if (mmap->ever_started) {
        logger()->error("doca_mmap_set_max_num_devices: only possible before the first start");
        return DOCA_ERROR_NOT_PERMITTED;
    }
    if (max_num_devices < mmap->devs.size()) {
        logger()->error("doca_mmap_set_max_num_devices: {} is below the {} device(s) already added",
                        max_num_devices, mmap->devs.size());
        return DOCA_ERROR_INVALID_VALUE;
    }
    mmap->max_num_devices = max_num_devices;
    return DOCA_SUCCESS;
}

doca_error_t doca_mmap_get_max_num_devices(const struct doca_mmap *mmap, uint32_t *max_num_devices) {
    if (mmap == nullptr || max_num_devices == nullptr) return DOCA_ERROR_INVALID_VALUE;
    *max_num_devices = mmap->max_num_devices;
    return DOCA_SUCCESS;
}

doca_error_t doca_mmap_set_permissions(struct doca_mmap *mmap, uint32_t access_mask) {
    if (mmap == nullptr) return DOCA_ERROR_INVALID_VALUE;
    if ((access_mask & ~all_access_flags) != 0) {
        logger()->error(
            "doca_mmap_set_permissions: {:#x} has undefined bits; use enum doca_access_flag values",
            access_mask);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if ((access_mask & DOCA_ACCESS_FLAG_PCI_READ_ONLY) && (access_mask & DOCA_ACCESS_FLAG_PCI_READ_WRITE)) {
        logger()->error(
            "doca_mmap_set_permissions: PCI_READ_ONLY and PCI_READ_WRITE exclude each other; pick one");
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (auto r = refuse_if_shared(mmap, "doca_mmap_set_permissions"); r != DOCA_SUCCESS) return r;
    if (auto r = refuse_if_started(mmap, "doca_mmap_set_permissions", DOCA_ERROR_BAD_STATE);
        r != DOCA_SUCCESS)
        return r;
    mmap->permissions = access_mask;
    return DOCA_SUCCESS;
}

doca_error_t doca_mmap_get_num_bufs(const struct doca_mmap *mmap, uint32_t *num_bufs) {
    if (mmap == nullptr || num_bufs == nullptr) return DOCA_ERROR_INVALID_VALUE;
    *num_bufs = mmap->num_bufs.load(std::memory_order_relaxed);
    return DOCA_SUCCESS;
}

doca_error_t doca_mmap_get_exported(const struct doca_mmap *mmap, uint8_t *exported) {
    if (mmap == nullptr || exported == nullptr) return DOCA_ERROR_INVALID_VALUE;
    *exported = mmap->exported ? 1 : 0;
    return DOCA_SUCCESS;
}

doca_error_t doca_mmap_get_from_export(const struct doca_mmap *mmap, uint8_t *from_export) {
    if (mmap == nullptr || from_export == nullptr) return DOCA_ERROR_INVALID_VALUE;
    *from_export = mmap->from_export ? 1 : 0;
    return DOCA_SUCCESS;
}

doca_error_t doca_mmap_cap_is_export_pci_supported(const struct doca_devinfo *devinfo, uint8_t *mmap_export) {
    if (devinfo == nullptr || mmap_export == nullptr) return DOCA_ERROR_INVALID_VALUE;
    *mmap_export = devinfo->desc.has_cap(skiff::core::DevCap::mmap_export_pci) ? 1 : 0;
    return DOCA_SUCCESS;
}

doca_error_t doca_mmap_cap_is_create_from_export_pci_supported(const struct doca_devinfo *devinfo,
                                                               uint8_t *from_export) {
    if (devinfo == nullptr || from_export == nullptr) return DOCA_ERROR_INVALID_VALUE;
    *from_export = devinfo->desc.has_cap(skiff::core::DevCap::mmap_from_export_pci) ? 1 : 0;
    return DOCA_SUCCESS;
}

} // extern "C"
