// The object behind doca_buf_arr, and what the (emulated) DPA reads through a doca_dpa_dev_buf_arr_t:
// the handle is the address of the array's element table, valid while the array is started.
#pragma once

#include <doca_buf_array.h>

#include <cstddef>
#include <cstdint>
#include <memory>

namespace skiff::core::mem {

// One element as the DPA sees it.
struct BufArrElement {
    uint8_t *addr;
    size_t len;
    doca_mmap *mmap;
};

// The element table behind a handle.
struct BufArrTable {
    size_t num_elem;
    const BufArrElement *elements;
};

// The table a DPA handle names (nullptr for 0).
inline const BufArrTable *buf_arr_table(doca_dpa_dev_buf_arr_t handle) {
    return reinterpret_cast<const BufArrTable *>(static_cast<uintptr_t>(handle));
}

} // namespace skiff::core::mem

struct doca_buf_arr {
    size_t num_elem = 0;
    doca_mmap *mmap = nullptr;
    size_t elem_size = 0;
    uint64_t start_offset = 0;
    bool params_set = false;
    doca_dpa *target_dpa = nullptr;
    doca_gpu *target_gpu = nullptr;
    bool started = false;
    bool ever_started = false;
    std::unique_ptr<skiff::core::mem::BufArrElement[]> elements; // allocated at start
    skiff::core::mem::BufArrTable table{};
};
