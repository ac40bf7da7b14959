// rdma-core resources shared per device and per mmap: the process-wide verbs context and PD of an
// RDMA device (the ones RDMA-CM ids bind to), and the memory registration of an mmap on it.
// Without SKIFF_HAVE_RDMA every call fails with NOT_SUPPORTED.
#pragma once

#include <doca_error.h>

#include <cstdint>

struct doca_dev;
struct doca_mmap;
struct ibv_context;
struct ibv_pd;
struct ibv_mr;
struct ibv_qp;

namespace skiff::core::rdma {

struct VerbsDevice {
    ibv_context *ctx = nullptr;
    ibv_pd *pd = nullptr;
};

// The verbs context and PD of dev (opened once per process, kept until exit); NOT_SUPPORTED with a
// log naming the device when it has no RDMA.
doca_error_t verbs_device_of(const doca_dev *dev, const char *what, VerbsDevice *out);

// The MR of the mmap on dev: registered at the first call (ibv_reg_mr with access from the mmap
// permissions), then looked up. Never per I/O.
doca_error_t mmap_mr(doca_mmap *mmap, const doca_dev *dev, ibv_mr **out);

// Deregisters every MR of the mmap (mmap stop / destroy).
void mmap_deregister_all(doca_mmap *mmap);

// The rkey of an MR (keeps <infiniband/verbs.h> out of callers).
uint32_t mr_rkey(const ibv_mr *mr);
uint32_t mr_lkey(const ibv_mr *mr);

// One 64-bit word (a sync event's counter) registered on dev for remote write and atomics, and its
// deregistration.
doca_error_t register_word(const doca_dev *dev, uint64_t *word, ibv_mr **out);
void deregister_word(ibv_mr *mr);

// Moves a QP to the error state: its posted work comes back flushed (connect_direct.cpp).
void move_qp_to_error(ibv_qp *qp);

// ibv access flags for DOCA access flags.
int ibv_access_of(uint32_t doca_permissions);

} // namespace skiff::core::rdma
