/*
 * skiff core: devices (DOCA 2.x API). A doca_devinfo describes one local device (a function of
 * the emulated topology, or a real rdma-core device); doca_dev is an opened one. Representors
 * (doca_devinfo_rep / doca_dev_rep) are listed only through a DPU-side parent PF.
 */
#ifndef DOCA_DEV_H_
#define DOCA_DEV_H_

#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A read-only description of one local device (a snapshot taken when the list was created). */
struct doca_devinfo;
/** A read-only description of one representor device. */
struct doca_devinfo_rep;
/** An opened local device; opening the same device again returns the same handle (counted). */
struct doca_dev;
/** An opened representor device. */
struct doca_dev_rep;

/** Representor list filters (bits; ALL = no filtering). */
enum doca_devinfo_rep_filter {
    DOCA_DEVINFO_REP_FILTER_ALL = 0,
    DOCA_DEVINFO_REP_FILTER_NET = 1 << 1,
    DOCA_DEVINFO_REP_FILTER_EMULATED = 1 << 2,
};

/** Lists the local devices of this process's side (host or DPU). Destroy with doca_devinfo_destroy_list. */
DOCA_STABLE doca_error_t doca_devinfo_create_list(struct doca_devinfo ***dev_list, uint32_t *nb_devs);
/** Frees the list; devices opened from it stay valid (see doca_dev_as_devinfo). */
DOCA_STABLE doca_error_t doca_devinfo_destroy_list(struct doca_devinfo **dev_list);

/**
 * Lists the representors managed by dev (a DPU-side PF). NOT_SUPPORTED for a device without
 * representors; INVALID_VALUE for unknown filter bits. The list stays valid after dev is closed.
 */
DOCA_STABLE doca_error_t doca_devinfo_rep_create_list(struct doca_dev *dev, int filter,
                                                      struct doca_devinfo_rep ***dev_list_rep,
                                                      uint32_t *nb_devs_rep);
DOCA_STABLE doca_error_t doca_devinfo_rep_destroy_list(struct doca_devinfo_rep **dev_list_rep);

/** Opens a device, or counts one more opener of an already opened one (same handle). */
DOCA_STABLE doca_error_t doca_dev_open(struct doca_devinfo *devinfo, struct doca_dev **dev);
/** Counts one opener less; the last close releases the device. NULL: nothing to do, DOCA_SUCCESS.
 *  A handle that is not open: DOCA_ERROR_INVALID_VALUE; mmaps still using it: DOCA_ERROR_IN_USE. */
DOCA_STABLE doca_error_t doca_dev_close(struct doca_dev *dev);

DOCA_STABLE doca_error_t doca_dev_rep_open(struct doca_devinfo_rep *devinfo, struct doca_dev_rep **dev_rep);
DOCA_STABLE doca_error_t doca_dev_rep_close(struct doca_dev_rep *dev);

/** The devinfo of an opened device (valid while the device is open); NULL for NULL. */
DOCA_STABLE struct doca_devinfo *doca_dev_as_devinfo(const struct doca_dev *dev);
DOCA_STABLE struct doca_devinfo_rep *doca_dev_rep_as_devinfo(struct doca_dev_rep *dev_rep);

/* Property sizes, terminating NUL included. */
#define DOCA_DEVINFO_VUID_SIZE 128
#define DOCA_DEVINFO_IPV4_ADDR_SIZE 4
#define DOCA_DEVINFO_IPV6_ADDR_SIZE 16
#define DOCA_DEVINFO_MAC_ADDR_SIZE 6
#define DOCA_DEVINFO_IFACE_NAME_SIZE 256
#define DOCA_DEVINFO_IBDEV_NAME_SIZE 64
#define DOCA_DEVINFO_PCI_ADDR_SIZE 13
#define DOCA_DEVINFO_PCI_BDF_SIZE 8

/** "DDDD:BB:DD.F" into a buffer of at least DOCA_DEVINFO_PCI_ADDR_SIZE bytes. */
DOCA_STABLE doca_error_t doca_devinfo_get_pci_addr_str(const struct doca_devinfo *devinfo,
                                                       char *pci_addr_str);
/** is_equal = 1 when pci_addr_str ("DDDD:BB:DD.F" or "BB:DD.F") names devinfo's function. */
DOCA_STABLE doca_error_t doca_devinfo_is_equal_pci_addr(const struct doca_devinfo *devinfo,
                                                        const char *pci_addr_str, uint8_t *is_equal);
/** NOT_FOUND when the device has no such address. */
DOCA_STABLE doca_error_t doca_devinfo_get_ipv4_addr(const struct doca_devinfo *devinfo, uint8_t *ipv4_addr,
                                                    uint32_t size);
DOCA_STABLE doca_error_t doca_devinfo_get_ipv6_addr(const struct doca_devinfo *devinfo, uint8_t *ipv6_addr,
                                                    uint32_t size);
DOCA_STABLE doca_error_t doca_devinfo_get_mac_addr(const struct doca_devinfo *devinfo, uint8_t *mac_addr,
                                                   uint32_t size);
/** PF, VF or SF (a DPU's local sub functions are SFs). */
DOCA_STABLE doca_error_t doca_devinfo_get_pci_func_type(const struct doca_devinfo *devinfo,
                                                        enum doca_pci_func_type *pci_func_type);
/** A sub function's SF index (topology "sf_index", default 0); NOT_SUPPORTED for a PF or VF. */
DOCA_EXPERIMENTAL doca_error_t doca_devinfo_get_sf_index(const struct doca_devinfo *devinfo,
                                                         uint32_t *sf_index);
DOCA_STABLE doca_error_t doca_devinfo_get_iface_name(const struct doca_devinfo *devinfo, char *iface_name,
                                                     uint32_t size);
/** The rdma-core device name; an empty string for an emulated function without one. */
DOCA_STABLE doca_error_t doca_devinfo_get_ibdev_name(const struct doca_devinfo *devinfo, char *ibdev_name,
                                                     uint32_t size);
/** NOT_SUPPORTED: no emulated or RoCE device has an InfiniBand LID. */
DOCA_STABLE doca_error_t doca_devinfo_get_lid(const struct doca_devinfo *devinfo, uint16_t *lid);
DOCA_STABLE doca_error_t doca_devinfo_cap_is_hotplug_manager_supported(const struct doca_devinfo *devinfo,
                                                                       uint8_t *is_hotplug_manager);
DOCA_STABLE doca_error_t doca_devinfo_rep_cap_is_filter_all_supported(const struct doca_devinfo *devinfo,
                                                                      uint8_t *filter_all_supported);
DOCA_STABLE doca_error_t doca_devinfo_rep_cap_is_filter_net_supported(const struct doca_devinfo *devinfo,
                                                                      uint8_t *filter_net_supported);
DOCA_STABLE doca_error_t doca_devinfo_rep_cap_is_filter_emulated_supported(
    const struct doca_devinfo *devinfo, uint8_t *filter_emulated_supported);

#define DOCA_DEVINFO_REP_VUID_SIZE 128
#define DOCA_DEVINFO_REP_PCI_ADDR_SIZE 13
#define DOCA_DEVINFO_REP_PCI_BDF_SIZE 8

DOCA_STABLE doca_error_t doca_devinfo_rep_get_vuid(const struct doca_devinfo_rep *devinfo_rep, char *rep_vuid,
                                                   uint32_t size);
/** The PCI address of the represented function (a host representor shares its host function's address). */
DOCA_STABLE doca_error_t doca_devinfo_rep_get_pci_addr_str(const struct doca_devinfo_rep *devinfo_rep,
                                                           char *pci_addr_str);
DOCA_STABLE doca_error_t doca_devinfo_rep_get_pci_func_type(const struct doca_devinfo_rep *devinfo_rep,
                                                            enum doca_pci_func_type *pci_func_type);
DOCA_STABLE doca_error_t doca_devinfo_rep_get_is_hotplug(const struct doca_devinfo_rep *devinfo_rep,
                                                         uint8_t *is_hotplug);
DOCA_STABLE doca_error_t doca_devinfo_rep_is_equal_pci_addr(const struct doca_devinfo_rep *devinfo_rep,
                                                            const char *pci_addr_str, uint8_t *is_equal);
#ifdef __cplusplus
}
#endif

#endif /* DOCA_DEV_H_ */
