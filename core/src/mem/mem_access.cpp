// The engines' single path to the bytes behind an mmap (mem_access.hpp): a memcpy for local memory
// and for an import of shared memory (the exporter's pages mapped here, shared_mapping.hpp), the
// exporter's pages through RemoteMemory (/proc/<pid>/mem) for an import of private memory.
#include "mem/mem_access.hpp"

#include "mem/buf.hpp"
#include "mem/mmap.hpp"

#include <atomic>
#include <cstring>

namespace skiff::core {

namespace {

uint64_t remote_addr(const void *addr) {
    return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(addr));
}

// The export is still there: not revoked and its exporter alive. Two loads while that holds.
bool import_live(const mem::ImportLink &link) {
    return !link.segment->revoked() && link.liveness->alive();
}

// Once revoked or orphaned, the import never touches the exporter's pages again (shared_mapping.hpp).
doca_error_t disconnect(const mem::ImportLink &link) {
    if (link.shared) link.shared->fence();
    return DOCA_ERROR_NOT_CONNECTED;
}

// Local memory of this process that the CPU may touch over [p, p + n).
bool local_range(const doca_mmap *m, const void *p, size_t n) {
    return m != nullptr && !m->from_export && mem::mmap_contains(m, p, n);
}

// An import of shared memory (its pages mapped here) that may be read, or written, over [p, p + n).
bool shared_import_range(const doca_mmap *m, const void *p, size_t n) {
    return m != nullptr && m->from_export && m->started && !m->rdma_remote && m->import->shared &&
           mem::mmap_contains(m, p, n);
}

// Checks shared by reads and writes; DOCA_SUCCESS when the access may proceed.
doca_error_t check_access(const doca_mmap *m, const void *addr, size_t len) {
    if (m == nullptr || (addr == nullptr && len != 0)) return DOCA_ERROR_INVALID_VALUE;
    if (!m->started) return DOCA_ERROR_BAD_STATE;
    if (!mem::mmap_contains(m, addr, len)) return DOCA_ERROR_INVALID_VALUE;
    // An RDMA import is reachable only by RDMA read/write tasks, never by the CPU or a DMA engine.
    if (m->rdma_remote) return DOCA_ERROR_NOT_SUPPORTED;
    if (m->from_export && m->import->segment->revoked()) return disconnect(*m->import);
    return DOCA_SUCCESS;
}

// An import of shared memory: a memcpy between two checks. The check after the copy catches a
// revocation or death that raced with it: the copy is then reported failed.
template <typename Copy>
doca_error_t shared_access(const mem::ImportLink &link, Copy copy) {
    if (!import_live(link)) return disconnect(link);
    copy();
    // The copy's loads complete before the second check (pairs with the fence in
    // ExportSegment::revoke): a read that saw bytes written after the revocation sees the revocation.
    std::atomic_thread_fence(std::memory_order_acquire);
    if (!import_live(link)) return disconnect(link);
    return DOCA_SUCCESS;
}

} // namespace

doca_mmap *buf_mmap(const doca_buf *buf) {
    return buf == nullptr ? nullptr : buf->mmap;
}

bool mmap_is_imported(const doca_mmap *mmap) {
    return mmap != nullptr && mmap->from_export;
}

bool mmap_engine_writable(const doca_mmap *mmap) {
    if (mmap == nullptr) return false;
    if (mmap->from_export) return (mmap->permissions & DOCA_ACCESS_FLAG_PCI_READ_WRITE) != 0;
    return (mmap->permissions & DOCA_ACCESS_FLAG_LOCAL_READ_WRITE) != 0;
}

void *mmap_cpu_ptr(const doca_mmap *mmap, const void *addr, size_t len) {
    return local_range(mmap, addr, len) ? const_cast<void *>(addr) : nullptr;
}

doca_error_t mmap_read(const doca_mmap *mmap, const void *addr, void *dst, size_t len) {
    if (dst == nullptr && len != 0) return DOCA_ERROR_INVALID_VALUE;
    if (doca_error_t r = check_access(mmap, addr, len); r != DOCA_SUCCESS) return r;
    if (len == 0) return DOCA_SUCCESS;
    if (!mmap->from_export) {
        std::memcpy(dst, addr, len);
        return DOCA_SUCCESS;
    }
    const mem::ImportLink &link = *mmap->import;
    if (link.shared)
        return shared_access(link, [&] { std::memcpy(dst, link.shared->local(remote_addr(addr)), len); });
    return link.remote->read(remote_addr(addr), dst, len);
}

doca_error_t mmap_copy_direct(const doca_mmap *src_mmap, const void *src, doca_mmap *dst_mmap, void *dst,
                              size_t len) {
    const bool src_local = local_range(src_mmap, src, len);
    if (src_local && local_range(dst_mmap, dst, len)) {
        std::memcpy(dst, src, len);
        return DOCA_SUCCESS;
    }
    if (src_local) {
        if (!shared_import_range(dst_mmap, dst, len) || !mmap_engine_writable(dst_mmap))
            return DOCA_ERROR_AGAIN;
        const mem::ImportLink &link = *dst_mmap->import;
        return shared_access(link, [&] { std::memcpy(link.shared->local(remote_addr(dst)), src, len); });
    }
    if (!local_range(dst_mmap, dst, len) || !shared_import_range(src_mmap, src, len)) return DOCA_ERROR_AGAIN;
    const mem::ImportLink &link = *src_mmap->import;
    return shared_access(link, [&] { std::memcpy(dst, link.shared->local(remote_addr(src)), len); });
}

doca_error_t mmap_write(doca_mmap *mmap, void *addr, const void *src, size_t len) {
    if (src == nullptr && len != 0) return DOCA_ERROR_INVALID_VALUE;
    if (mmap == nullptr) return DOCA_ERROR_INVALID_VALUE;
    if (!mmap->started) return DOCA_ERROR_BAD_STATE;
    if (!mem::mmap_contains(mmap, addr, len)) return DOCA_ERROR_INVALID_VALUE;
    if (!mmap_engine_writable(mmap)) return DOCA_ERROR_NOT_PERMITTED;
    if (doca_error_t r = check_access(mmap, addr, len); r != DOCA_SUCCESS) return r;
    if (len == 0) return DOCA_SUCCESS;
    if (!mmap->from_export) {
        std::memcpy(addr, src, len);
        return DOCA_SUCCESS;
    }
    const mem::ImportLink &link = *mmap->import;
    if (link.shared)
        return shared_access(link, [&] { std::memcpy(link.shared->local(remote_addr(addr)), src, len); });
    return link.remote->write(remote_addr(addr), src, len);
}

} // namespace skiff::core
