// What the emulated DMA engine advertises through the doca_dma_cap_* queries.
#pragma once

#include <cstddef>
#include <cstdint>

namespace skiff::core::dma {

// Largest num_memcpy_tasks of one DMA context (its task pool and rings are this big at most).
constexpr uint32_t kMaxNumTasks = 1u << 16;
// Longest source or destination buf list of one memcpy task.
constexpr uint32_t kMaxBufListLen = 16;
// Most bytes one memcpy task moves.
constexpr uint64_t kMaxBufSize = uint64_t{1} << 31;
// Bounce buffer for copies between two imported mmaps (neither side is CPU-reachable here).
constexpr size_t kBounceBytes = 64 * 1024;

} // namespace skiff::core::dma
