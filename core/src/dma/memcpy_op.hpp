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

// The outcome of checking or running a memcpy: a status, why it failed (a static string), and the
// number of bytes it moves / moved.
struct MemcpyResult {
    doca_error_t status = DOCA_SUCCESS;
    const char *why = "";
    size_t bytes = 0;
};

// Checks a memcpy before any byte moves.
//   DOCA_ERROR_INVALID_VALUE  a NULL buf, a list longer than kMaxBufListLen, no source data or more
//                             than kMaxBufSize bytes, or a destination tailroom smaller than the
//                             source data
//   DOCA_ERROR_NOT_PERMITTED  a destination element whose memory the engine may not write
MemcpyResult check_memcpy(const doca_buf *src, const doca_buf *dst);

// Checks, then moves the bytes and grows the destination data lengths. On failure the destination
// data lengths are unchanged (NOT_CONNECTED: an exporter vanished mid-copy). `bounce` serves
// copies between two imported mmaps.
MemcpyResult run_memcpy(const doca_buf *src, doca_buf *dst, std::span<uint8_t> bounce);

// A 64-bit digest (FNV-1a) of the source data (every element of a list), for the debug check that
// nobody modifies the source of a task in flight. Reads imported memory in stack-sized chunks.
uint64_t source_digest(const doca_buf *src);

} // namespace skiff::core::dma
