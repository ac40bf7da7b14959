/* skiff core: types shared by every DOCA module. */
#ifndef DOCA_TYPES_H_
#define DOCA_TYPES_H_

#include <stdint.h>
#include <linux/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A file descriptor to block on with epoll/select/poll ("read ready" means "go and progress"). */
typedef int doca_event_handle_t;
#define doca_event_invalid_handle -1

/** The progress engine's wait handle. */
typedef doca_event_handle_t doca_notification_handle_t;

/** Length of an RDMA GID in bytes. */
#define DOCA_GID_BYTE_LENGTH 16

/** Opaque user data carried by tasks, contexts, inventories and mmaps. */
union doca_data {
	void *ptr;
	uint64_t u64;
};

/** One element of a list of plain buffers. */
struct doca_gather_list {
	void *addr;
	uint64_t len;
	struct doca_gather_list *next;
};

/**
 * Who may touch the memory of an mmap. Local reads are always allowed; PCI_READ_ONLY and
 * PCI_READ_WRITE are mutually exclusive.
 */
enum doca_access_flag {
	DOCA_ACCESS_FLAG_LOCAL_READ_ONLY = 0,
	DOCA_ACCESS_FLAG_LOCAL_READ_WRITE = (1 << 0),
	DOCA_ACCESS_FLAG_RDMA_READ = (1 << 1),
	DOCA_ACCESS_FLAG_RDMA_WRITE = (1 << 2),
	DOCA_ACCESS_FLAG_RDMA_ATOMIC = (1 << 3),
	DOCA_ACCESS_FLAG_PCI_READ_ONLY = (1 << 4),
	DOCA_ACCESS_FLAG_PCI_READ_WRITE = (1 << 5),
	DOCA_ACCESS_FLAG_PCI_RELAXED_ORDERING = (1 << 6),
};

/** PCI function type of a device or representor. */
enum doca_pci_func_type {
	DOCA_PCI_FUNC_TYPE_PF = 0,
	DOCA_PCI_FUNC_TYPE_VF,
	DOCA_PCI_FUNC_TYPE_SF,
};

typedef __be16 doca_be16_t;
typedef __be32 doca_be32_t;
typedef __be64 doca_be64_t;

/** MTU sizes (RDMA path MTU). */
enum doca_mtu_size {
	DOCA_MTU_SIZE_256_BYTES = 0x0,
	DOCA_MTU_SIZE_512_BYTES = 0x1,
	DOCA_MTU_SIZE_1K_BYTES = 0x2,
	DOCA_MTU_SIZE_2K_BYTES = 0x3,
	DOCA_MTU_SIZE_4K_BYTES = 0x4,
	DOCA_MTU_SIZE_RAW_ETHERNET = 0x5,
};

#ifdef __cplusplus
}
#endif

#endif /* DOCA_TYPES_H_ */
