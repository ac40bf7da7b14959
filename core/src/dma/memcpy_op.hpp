// One DMA memcpy over buf geometry: the source data region (every element of a source list) is
// appended into the destination tailroom (element after element for a destination list), and
// the destination data length grows by what it received. Bytes are reached only through the
// memory module's contract (mem_access.hpp): a plain memcpy for local memory, mmap_read /
// mmap_write for memory imported from another process.
#pragma once

#include <doca_error.h>

#include <cstddef>
#include <cstdint>
#include <span>

struct doca_buf;

namespace skiff::core::dma {

// Checks a memcpy before any byte moves; sets *total to the number of bytes it will move.
//   DOCA_ERROR_INVALID_VALUE  a NULL buf, a list longer than kMaxBufListLen, more than kMaxBufSize
//                             bytes, or a destination tailroom smaller than the source data
//   DOCA_ERROR_NOT_PERMITTED  a destination element whose memory the engine may not write
doca_error_t check_memcpy(const doca_buf *src, const doca_buf *dst, size_t *total);

// Checks, then moves the bytes and grows the destination data lengths. On failure the
// destination data lengths are unchanged. `bounce` serves copies between two imported mmaps.
doca_error_t run_memcpy(const doca_buf *src, doca_buf *dst, std::span<uint8_t> bounce);

} // namespace skiff::core::dma
