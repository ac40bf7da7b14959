#include "dma/memcpy_op.hpp"

#include "dma/dma_limits.hpp"
#include "mem/buf.hpp"
#include "mem/mem_access.hpp"

#include <doca_buf.h>

#include <algorithm>
#include <cstring>

namespace skiff::core::dma {

namespace {

// The geometry of one list element, read straight from the descriptor (mem/buf.hpp): this runs
// for every task, and the public getters cost a call and a check each (ten per 4 KiB task).
struct Element {
    doca_buf *buf = nullptr;
    doca_mmap *mmap = nullptr;
    uint8_t *data = nullptr; // start of the data region
    size_t data_len = 0;
    size_t tailroom = 0; // bytes after the data region, up to the end of the buffer
};

inline Element element(const doca_buf *b) {
    Element e;
    e.buf = const_cast<doca_buf *>(b);
    e.mmap = b->mmap;
    e.data = b->data;
    e.data_len = b->data_len;
    e.tailroom = static_cast<size_t>(b->head + b->len - (b->data + b->data_len));
    return e;
}

inline doca_buf *next_of(const doca_buf *b) {
    return b->next;
}

// The pairs mmap_copy_direct does not take: a memcpy through CPU pointers where both sides have
// them, else through mmap_read / mmap_write (imports of private memory), else a bounce buffer.
[[gnu::noinline]] doca_error_t move_bytes_general(doca_mmap *src_mmap, const uint8_t *src,
                                                  doca_mmap *dst_mmap, uint8_t *dst, size_t n,
                                                  std::span<uint8_t> bounce) {
    void *src_cpu = mmap_cpu_ptr(src_mmap, src, n);
    void *dst_cpu = mmap_cpu_ptr(dst_mmap, dst, n);
    if (src_cpu && dst_cpu) {
        std::memcpy(dst_cpu, src_cpu, n);
        return DOCA_SUCCESS;
    }
    if (src_cpu) return mmap_write(dst_mmap, dst, src_cpu, n);
    if (dst_cpu) return mmap_read(src_mmap, src, dst_cpu, n);
    for (size_t done = 0; done < n;) { // imported to imported: through the bounce buffer
        size_t chunk = std::min(n - done, bounce.size());
        if (doca_error_t r = mmap_read(src_mmap, src + done, bounce.data(), chunk); r != DOCA_SUCCESS)
            return r;
        if (doca_error_t r = mmap_write(dst_mmap, dst + done, bounce.data(), chunk); r != DOCA_SUCCESS)
            return r;
        done += chunk;
    }
    return DOCA_SUCCESS;
}

// Copies n bytes between two mmap ranges by the cheapest path the contract offers.
inline doca_error_t move_bytes(doca_mmap *src_mmap, const uint8_t *src, doca_mmap *dst_mmap, uint8_t *dst,
                               size_t n, std::span<uint8_t> bounce) {
    doca_error_t r = mmap_copy_direct(src_mmap, src, dst_mmap, dst, n);
    return r != DOCA_ERROR_AGAIN ? r : move_bytes_general(src_mmap, src, dst_mmap, dst, n, bounce);
}

} // namespace

MemcpyResult check_memcpy(const doca_buf *src, const doca_buf *dst) {
    if (!src || !dst) return {DOCA_ERROR_INVALID_VALUE, "the source or the destination buf is NULL"};
    uint64_t bytes = 0;
    uint32_t n = 0;
    for (const doca_buf *b = src; b; b = next_of(b)) {
        if (++n > kMaxBufListLen)
            return {DOCA_ERROR_INVALID_VALUE, "the source list is longer than 16 elements"};
        bytes += element(b).data_len;
    }
    if (bytes == 0)
        return {DOCA_ERROR_INVALID_VALUE, "the source holds no data (the hardware rejects 0 bytes)"};
    if (bytes > kMaxBufSize) return {DOCA_ERROR_INVALID_VALUE, "the source holds more than 2 GiB"};
    uint64_t room = 0;
    n = 0;
    for (const doca_buf *b = dst; b; b = next_of(b)) {
        if (++n > kMaxBufListLen)
            return {DOCA_ERROR_INVALID_VALUE, "the destination list is longer than 16 elements"};
        if (!mmap_engine_writable(buf_mmap(b)))
            return {DOCA_ERROR_NOT_PERMITTED,
                    "the destination mmap does not let the engine write (LOCAL_READ_WRITE, or PCI_READ_WRITE "
                    "for an import)"};
        room += element(b).tailroom;
    }
    if (room < bytes)
        return {DOCA_ERROR_INVALID_VALUE, "the destination tailroom is smaller than the source data"};
    return {DOCA_SUCCESS, "", static_cast<size_t>(bytes)};
}

namespace {

// The common case, one buf on each side: the same checks and the same outcome as the general path
// below, reading each buf's geometry once instead of three times (a third of a 4 KiB task's
// instructions went to those reads).
MemcpyResult run_single(const doca_buf *src, doca_buf *dst, std::span<uint8_t> bounce) {
    const Element s = element(src), d = element(dst);
    if (s.data_len == 0)
        return {DOCA_ERROR_INVALID_VALUE, "the source holds no data (the hardware rejects 0 bytes)"};
    if (s.data_len > kMaxBufSize) return {DOCA_ERROR_INVALID_VALUE, "the source holds more than 2 GiB"};
    doca_mmap *dst_mmap = d.mmap;
    if (!mmap_engine_writable(dst_mmap))
        return {DOCA_ERROR_NOT_PERMITTED,
                "the destination mmap does not let the engine write (LOCAL_READ_WRITE, "
                "or PCI_READ_WRITE for an import)"};
    if (d.tailroom < s.data_len)
        return {DOCA_ERROR_INVALID_VALUE, "the destination tailroom is smaller than the source data"};
    doca_error_t r = move_bytes(s.mmap, s.data, dst_mmap, d.data + d.data_len, s.data_len, bounce);
    if (r != DOCA_SUCCESS)
        return {r, r == DOCA_ERROR_NOT_CONNECTED ? "the exporter revoked the memory or is gone"
                                                 : "the memory could not be reached through its mmap"};
    dst->data_len = d.data_len + s.data_len; // fits: the tailroom was checked
    return {DOCA_SUCCESS, "", s.data_len};
}

} // namespace

MemcpyResult run_memcpy(const doca_buf *src, doca_buf *dst, std::span<uint8_t> bounce) {
    if (src && dst && !next_of(src) && !next_of(dst)) return run_single(src, dst, bounce);
    MemcpyResult checked = check_memcpy(src, dst);
    if (checked.status != DOCA_SUCCESS) return checked;
    const size_t total = checked.bytes;

    // Walk both lists with a cursor each; every step copies the largest piece both sides allow.
    Element s = element(src), d = element(dst);
    size_t s_off = 0, d_off = 0, left = total;
    while (left > 0) {
        while (s_off == s.data_len) s = element(next_of(s.buf)), s_off = 0;
        while (d_off == d.tailroom) d = element(next_of(d.buf)), d_off = 0;
        size_t n = std::min({left, s.data_len - s_off, d.tailroom - d_off});
        doca_error_t r = move_bytes(buf_mmap(s.buf), s.data + s_off, buf_mmap(d.buf),
                                    d.data + d.data_len + d_off, n, bounce);
        if (r != DOCA_SUCCESS)
            return {r, r == DOCA_ERROR_NOT_CONNECTED ? "the exporter revoked the memory or is gone"
                                                     : "the memory could not be reached through its mmap"};
        s_off += n;
        d_off += n;
        left -= n;
    }

    // Every byte landed: grow the destination data lengths in list order.
    left = total;
    for (doca_buf *b = dst; b && left > 0; b = next_of(b)) {
        Element e = element(b);
        size_t take = std::min(left, e.tailroom);
        if (take > 0) doca_buf_set_data(b, e.data, e.data_len + take);
        left -= take;
    }
    return {DOCA_SUCCESS, "", total};
}

uint64_t source_digest(const doca_buf *src) {
    uint64_t h = 14695981039346656037ull;
    auto mix = [&h](const uint8_t *p, size_t n) {
        for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ull;
    };
    for (const doca_buf *b = src; b; b = next_of(b)) {
        Element e = element(b);
        doca_mmap *m = buf_mmap(b);
        if (const void *cpu = mmap_cpu_ptr(m, e.data, e.data_len)) {
            mix(static_cast<const uint8_t *>(cpu), e.data_len);
            continue;
        }
        uint8_t chunk[512];
        for (size_t off = 0; off < e.data_len; off += sizeof(chunk)) {
            size_t n = std::min(sizeof(chunk), e.data_len - off);
            if (mmap_read(m, e.data + off, chunk, n) != DOCA_SUCCESS) return 0;
            mix(chunk, n);
        }
    }
    return h;
}

} // namespace skiff::core::dma
