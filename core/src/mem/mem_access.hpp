// How engines (the DMA engine, RDMA, DPA async ops) reach the bytes behind a doca_buf.
// Declared here so that every engine uses one path; implemented by the memory module
// (core/src/mem). Not part of the public DOCA API.
#pragma once

#include <doca_error.h>

#include <cstddef>
#include <cstdint>

struct doca_buf;
struct doca_mmap;

namespace skiff::core {

// The mmap a buf points into (any list element).
doca_mmap *buf_mmap(const doca_buf *buf);

// True when the mmap was created from an export: the memory belongs to another process and the
// CPU of this process cannot dereference it.
bool mmap_is_imported(const doca_mmap *mmap);

// True when an engine of this process may write into the mmap's memory: LOCAL_READ_WRITE for a
// local mmap, PCI_READ_WRITE (granted by the exporter) for an imported one.
bool mmap_engine_writable(const doca_mmap *mmap);

// A CPU pointer for [addr, addr + len) when the mmap is local memory of this process and the
// range lies inside it; nullptr otherwise (imported memory, or out of range).
void *mmap_cpu_ptr(const doca_mmap *mmap, const void *addr, size_t len);

// Copies len bytes at addr (an address in the mmap's own address space) out of / into the
// mmap's memory, reaching the exporter's pages for an imported mmap. Errors:
//   DOCA_ERROR_INVALID_VALUE  the range is not inside the mmap
//   DOCA_ERROR_NOT_PERMITTED  the mmap does not grant the access (writes only)
//   DOCA_ERROR_NOT_CONNECTED  the export was revoked or the exporter is gone
//   DOCA_ERROR_BAD_STATE      the mmap is not started
doca_error_t mmap_read(const doca_mmap *mmap, const void *addr, void *dst, size_t len);
doca_error_t mmap_write(doca_mmap *mmap, void *addr, const void *src, size_t len);

// The engines' fast path for one copy of len bytes: a plain memcpy when both sides are started
// local memory of this process, or one is and the other an import of shared memory (the hostmem
// data path: each check made once instead of through mmap_cpu_ptr + mmap_read / mmap_write).
// DOCA_ERROR_AGAIN when the pair is not such a pair (an import of private memory, two imports, a
// range outside its mmap, a stopped, RDMA-only or read-only mmap): the caller then takes the
// general path, which also produces the error. DOCA_ERROR_NOT_CONNECTED when the import was
// revoked or its exporter died (checked before and after the copy, as mmap_read does).
doca_error_t mmap_copy_direct(const doca_mmap *src_mmap, const void *src, doca_mmap *dst_mmap, void *dst,
                              size_t len);

} // namespace skiff::core
