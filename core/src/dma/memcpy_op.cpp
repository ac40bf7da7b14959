#include "dma/memcpy_op.hpp"

#include "dma/dma_limits.hpp"
#include "mem/mem_access.hpp"

#include <doca_buf.h>

#include <algorithm>
#include <cstring>

namespace skiff::core::dma {

namespace {

// The geometry of one list element, read through the public buf API.
struct Element {
    doca_buf *buf = nullptr;
    uint8_t *data = nullptr; // start of the data region
    size_t data_len = 0;
    size_t tailroom = 0; // bytes after the data region, up to the end of the buffer
};

Element element(const doca_buf *b) {
    Element e;
    e.buf = const_cast<doca_buf *>(b);
    void *head = nullptr, *data = nullptr;
    size_t len = 0;
    doca_buf_get_head(b, &head);
    doca_buf_get_len(b, &len);
    doca_buf_get_data(b, &data);
    doca_buf_get_data_len(b, &e.data_len);
    e.data = static_cast<uint8_t *>(data);
    e.tailroom = static_cast<size_t>(static_cast<uint8_t *>(head) + len - (e.data + e.data_len));
    return e;
}

doca_buf *next_of(const doca_buf *b) {
    doca_buf *next = nullptr;
    doca_buf_get_next_in_list(const_cast<doca_buf *>(b), &next);
    return next;
}

// Copies n bytes between two mmap ranges by the cheapest path the contract offers.
doca_error_t move_bytes(doca_mmap *src_mmap, const uint8_t *src, doca_mmap *dst_mmap, uint8_t *dst, size_t n,
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

} // namespace

doca_error_t check_memcpy(const doca_buf *src, const doca_buf *dst, size_t *total) {
    if (!src || !dst) return DOCA_ERROR_INVALID_VALUE;
    uint64_t bytes = 0;
    uint32_t n = 0;
    for (const doca_buf *b = src; b; b = next_of(b)) {
        if (++n > kMaxBufListLen) return DOCA_ERROR_INVALID_VALUE;
        bytes += element(b).data_len;
    }
    if (bytes > kMaxBufSize) return DOCA_ERROR_INVALID_VALUE;
    uint64_t room = 0;
    n = 0;
    for (const doca_buf *b = dst; b; b = next_of(b)) {
        if (++n > kMaxBufListLen) return DOCA_ERROR_INVALID_VALUE;
        if (!mmap_engine_writable(buf_mmap(b))) return DOCA_ERROR_NOT_PERMITTED;
        room += element(b).tailroom;
    }
    if (room < bytes) return DOCA_ERROR_INVALID_VALUE;
    *total = static_cast<size_t>(bytes);
    return DOCA_SUCCESS;
}

doca_error_t run_memcpy(const doca_buf *src, doca_buf *dst, std::span<uint8_t> bounce) {
    size_t total = 0;
    if (doca_error_t r = check_memcpy(src, dst, &total); r != DOCA_SUCCESS) return r;

    // Walk both lists with a cursor each; every step copies the largest piece both sides allow.
    Element s = element(src), d = element(dst);
    size_t s_off = 0, d_off = 0, left = total;
    while (left > 0) {
        while (s_off == s.data_len) s = element(next_of(s.buf)), s_off = 0;
        while (d_off == d.tailroom) d = element(next_of(d.buf)), d_off = 0;
        size_t n = std::min({left, s.data_len - s_off, d.tailroom - d_off});
        doca_error_t r = move_bytes(buf_mmap(s.buf), s.data + s_off, buf_mmap(d.buf),
                                    d.data + d.data_len + d_off, n, bounce);
        if (r != DOCA_SUCCESS) return r;
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
    return DOCA_SUCCESS;
}

} // namespace skiff::core::dma
