// A counter with one writing thread and any number of readers: the writer adds with a relaxed
// load and store (no read-modify-write, so no locked instruction per I/O), readers load relaxed.
// Readers may see a value a few increments old, never a torn or decreasing one.
#pragma once

#include <atomic>
#include <cstdint>

namespace skiff::nvmeof::target {

inline void single_writer_add(std::atomic<uint64_t> &counter, uint64_t n) {
    counter.store(counter.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
}

inline uint64_t relaxed(const std::atomic<uint64_t> &counter) {
    return counter.load(std::memory_order_relaxed);
}

} // namespace skiff::nvmeof::target
