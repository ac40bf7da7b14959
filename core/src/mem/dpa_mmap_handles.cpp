// The table behind doca_dpa_dev_mmap_t (dpa_mmap_handles.hpp). A handle is
// (slot + 1) << kGenerationBits | generation: slots live in chunks allocated as the table grows
// and never freed, so a lookup reads two atomics and takes no lock; giving and freeing slots take
// the table's mutex (host calls only).
#include "mem/dpa_mmap_handles.hpp"

#include "mem/mmap.hpp"

#include <skiff/core/log.hpp>

#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

namespace skiff::core::mem {
namespace {

constexpr unsigned kGenerationBits = 8;
constexpr uint32_t kChunkSlots = 4096;
constexpr uint32_t kMaxSlots = (UINT32_MAX >> kGenerationBits) - 1; // 16M - 1: slot + 1 fits

struct Slot {
    std::atomic<doca_mmap *> mmap{nullptr};
    std::atomic<uint32_t> handle{0}; // the handle given to the mmap in it now
    uint8_t generation = 0;          // under the mutex
};

struct Table {
    std::mutex mu;
    std::array<std::atomic<Slot *>, kMaxSlots / kChunkSlots + 1> chunks{};
    uint32_t used = 0;          // slots ever handed out (under mu)
    std::vector<uint32_t> free; // released slots (under mu)
};

Table &table() {
    static Table *t = new Table; // never destroyed: device threads may look up during exit
    return *t;
}

// Device side: the slot, or nullptr when its chunk was never allocated (a made-up handle).
Slot *slot_at(Table &t, uint32_t index) {
    Slot *chunk = t.chunks[index / kChunkSlots].load(std::memory_order_acquire);
    return chunk ? &chunk[index % kChunkSlots] : nullptr;
}

// Host side, under the mutex: a slot handed out before, whose chunk exists.
Slot &held_slot(Table &t, uint32_t index) {
    return t.chunks[index / kChunkSlots].load(std::memory_order_relaxed)[index % kChunkSlots];
}

} // namespace

doca_dpa_dev_mmap_t dpa_mmap_handle(doca_mmap *mmap) {
    if (uint32_t h = mmap->dpa_handle.load(std::memory_order_acquire)) return h;
    Table &t = table();
    std::lock_guard lock(t.mu);
    if (uint32_t h = mmap->dpa_handle.load(std::memory_order_relaxed)) return h;
    uint32_t index;
    if (!t.free.empty()) {
        index = t.free.back();
        t.free.pop_back();
    } else {
        if (t.used == kMaxSlots) {
            skiff::log::get("mem")->error("DPA mmap handles: {} mmaps have one already; no more", kMaxSlots);
            return 0;
        }
        index = t.used++;
        if (index % kChunkSlots == 0)
            t.chunks[index / kChunkSlots].store(new Slot[kChunkSlots], std::memory_order_release);
    }
    Slot &s = held_slot(t, index);
    uint32_t h = (index + 1) << kGenerationBits | s.generation;
    s.mmap.store(mmap, std::memory_order_relaxed);
    s.handle.store(h, std::memory_order_release);
    mmap->dpa_handle.store(h, std::memory_order_release);
    return h;
}

doca_mmap *dpa_mmap_from_handle(doca_dpa_dev_mmap_t handle) {
    uint32_t index = (handle >> kGenerationBits);
    if (index == 0) return nullptr;
    Slot *s = slot_at(table(), index - 1);
    if (!s || s->handle.load(std::memory_order_acquire) != handle) return nullptr;
    return s->mmap.load(std::memory_order_relaxed);
}

void dpa_mmap_handle_release(doca_mmap *mmap) {
    uint32_t h = mmap->dpa_handle.load(std::memory_order_relaxed);
    if (h == 0) return;
    Table &t = table();
    std::lock_guard lock(t.mu);
    uint32_t index = (h >> kGenerationBits) - 1;
    Slot &s = held_slot(t, index);
    s.handle.store(0, std::memory_order_release);
    s.mmap.store(nullptr, std::memory_order_relaxed);
    ++s.generation; // wraps after 256 reuses of one slot
    t.free.push_back(index);
    mmap->dpa_handle.store(0, std::memory_order_relaxed);
}

} // namespace skiff::core::mem
