/*
 * skiff core: memory maps (DOCA 2.x API). One memory range per mmap, a set of devices and access
 * permissions, configured before start and frozen after. A started mmap can be exported over
 * (emulated) PCI to another process, which imports it with doca_mmap_create_from_export.
 */
#ifndef DOCA_MMAP_H_
#define DOCA_MMAP_H_

#include <stdbool.h> /* as DOCA's header: programs rely on it */
#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_dev.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_mmap;
struct doca_dpa;

/** Creates an mmap with no range, no device and LOCAL_READ_WRITE permission. */
DOCA_STABLE doca_error_t doca_mmap_create(struct doca_mmap **mmap);
/** Stops the mmap if needed and frees it. NOT_PERMITTED while any doca_buf points into it. */
DOCA_STABLE doca_error_t doca_mmap_destroy(struct doca_mmap *mmap);
/** Freezes the configuration; bufs and exports become possible. NOT_PERMITTED on exported/imported mmaps. */
DOCA_STABLE doca_error_t doca_mmap_start(struct doca_mmap *mmap);
/** Frees every export descriptor and revokes every import. NOT_PERMITTED while bufs exist.
 *  An mmap created from an export may be stopped too (then only destroyed). */
DOCA_STABLE doca_error_t doca_mmap_stop(struct doca_mmap *mmap);
/** ALREADY_EXIST for a duplicate, NO_MEMORY past max_num_devices, NOT_PERMITTED once
 * started/exported/imported. */
DOCA_STABLE doca_error_t doca_mmap_add_dev(struct doca_mmap *mmap, struct doca_dev *dev);
/** NOT_FOUND for a device never added. */
DOCA_STABLE doca_error_t doca_mmap_rm_dev(struct doca_mmap *mmap, struct doca_dev *dev);

/** Called once on destroy of an mmap that was started with this callback set. */
typedef void(doca_mmap_memrange_free_cb_t)(void *addr, size_t len, void *cookie);

/**
 * Exports the started mmap for dev (a host function with the export-PCI capability, added to the
 * mmap; the mmap needs a PCI_* permission). The descriptor is owned by the mmap and freed on stop.
 */
DOCA_STABLE doca_error_t doca_mmap_export_pci(struct doca_mmap *mmap, const struct doca_dev *dev,
                                              const void **export_desc, size_t *export_desc_len);
/** Not supported yet in skiff: returns DOCA_ERROR_NOT_SUPPORTED. */
DOCA_STABLE doca_error_t doca_mmap_export_rdma(struct doca_mmap *mmap, const struct doca_dev *dev,
                                               const void **export_desc, size_t *export_desc_len);
/**
 * Imports an export descriptor. For a PCI export, dev must have the create-from-export-PCI
 * capability and be the DPU PF that owns the representor of the exporting host function. The
 * result is started, not backed by local memory, and refuses set_*, add/rm_dev and export.
 */
DOCA_STABLE doca_error_t doca_mmap_create_from_export(const union doca_data *user_data,
                                                      const void *export_desc, size_t export_desc_len,
                                                      struct doca_dev *dev, struct doca_mmap **mmap);

/** Once only (NOT_PERMITTED the second time); BAD_STATE once started; INVALID_VALUE on overflow. */
DOCA_STABLE doca_error_t doca_mmap_set_memrange(struct doca_mmap *mmap, void *addr, size_t len);
/** NOT_SUPPORTED: dmabuf-backed memory is not emulated. */
DOCA_STABLE doca_error_t doca_mmap_set_dmabuf_memrange(struct doca_mmap *mmap, int dmabuf_fd, void *addr,
                                                       size_t dmabuf_offset, size_t len);
/** BAD_STATE when no range was ever set. */
DOCA_STABLE doca_error_t doca_mmap_get_memrange(const struct doca_mmap *mmap, void **addr, size_t *len);
DOCA_STABLE doca_error_t doca_mmap_set_free_cb(struct doca_mmap *mmap, doca_mmap_memrange_free_cb_t *free_cb,
                                               void *opaque);
DOCA_STABLE doca_error_t doca_mmap_get_user_data(const struct doca_mmap *mmap, union doca_data *user_data);
DOCA_STABLE doca_error_t doca_mmap_get_max_num_devices(const struct doca_mmap *mmap,
                                                       uint32_t *max_num_devices);
DOCA_STABLE doca_error_t doca_mmap_get_num_bufs(const struct doca_mmap *mmap, uint32_t *num_bufs);
DOCA_STABLE doca_error_t doca_mmap_get_exported(const struct doca_mmap *mmap, uint8_t *exported);
DOCA_STABLE doca_error_t doca_mmap_get_from_export(const struct doca_mmap *mmap, uint8_t *from_export);
/** NOT_PERMITTED after the first start. */
DOCA_STABLE doca_error_t doca_mmap_set_max_num_devices(struct doca_mmap *mmap, uint32_t max_num_devices);
/** A mask of enum doca_access_flag; INVALID_VALUE for unknown bits or PCI_READ_ONLY|PCI_READ_WRITE. */
DOCA_STABLE doca_error_t doca_mmap_set_permissions(struct doca_mmap *mmap, uint32_t access_mask);
DOCA_STABLE doca_error_t doca_mmap_set_user_data(struct doca_mmap *mmap, union doca_data user_data);

/** 1 when the device can export an mmap over PCI (host functions). */
DOCA_STABLE doca_error_t doca_mmap_cap_is_export_pci_supported(const struct doca_devinfo *devinfo,
                                                               uint8_t *mmap_export);
/** 1 when the device can import a PCI export (DPU PFs). */
DOCA_STABLE doca_error_t doca_mmap_cap_is_create_from_export_pci_supported(const struct doca_devinfo *devinfo,
                                                                           uint8_t *from_export);

/** An mmap as DPA code names it (doca_dpa_dev.h): 32 bits, as in DOCA (programs keep it in uint32_t
 *  fields of the structs they share with device code). */
typedef uint32_t doca_dpa_dev_mmap_t;

/**
 * Uses DPA heap memory [addr, addr + len) of dpa as the memory range (instead of set_memrange).
 * @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE (not inside one DPA allocation), DOCA_ERROR_BAD_STATE.
 */
DOCA_EXPERIMENTAL doca_error_t doca_mmap_set_dpa_memrange(struct doca_mmap *mmap, struct doca_dpa *dpa,
                                                          uint64_t addr, size_t len);
/** The started mmap's handle for DPA code (dev: one of its devices). */
DOCA_EXPERIMENTAL doca_error_t doca_mmap_dev_get_dpa_handle(struct doca_mmap *mmap, struct doca_dev *dev,
                                                            doca_dpa_dev_mmap_t *dpa_mmap_handle);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_MMAP_H_ */
