// Buffers on the DPA: elements of a doca_buf_arr targeting the DPA, read through its handle.
#include "dpa/device_call.hpp"
#include "mem/buf_array.hpp"
#include "mem/dpa_mmap_handles.hpp"

#include <doca_dpa_dev_buf.h>

using skiff::core::mem::BufArrElement;

namespace {

const BufArrElement &element_of(doca_dpa_dev_buf_t buf) {
    return *reinterpret_cast<const BufArrElement *>(static_cast<uintptr_t>(buf));
}

} // namespace

extern "C" {

doca_dpa_dev_buf_t doca_dpa_dev_buf_array_get_buf(doca_dpa_dev_buf_arr_t buf_arr, uint64_t buf_idx) {
    auto *call = skiff::core::dpa::device_call("doca_dpa_dev_buf_array_get_buf");
    if (!call) return 0;
    const auto *table = skiff::core::mem::buf_arr_table(buf_arr);
    if (!table || buf_idx >= table->num_elem) {
        skiff::core::dpa::device_fault(*call,
                                       "doca_dpa_dev_buf_array_get_buf: invalid array handle or index " +
                                           std::to_string(buf_idx));
        return 0;
    }
    return static_cast<doca_dpa_dev_buf_t>(reinterpret_cast<uintptr_t>(&table->elements[buf_idx]));
}

uintptr_t doca_dpa_dev_buf_get_addr(doca_dpa_dev_buf_t buf) {
    return reinterpret_cast<uintptr_t>(element_of(buf).addr);
}

uint64_t doca_dpa_dev_buf_get_len(doca_dpa_dev_buf_t buf) {
    return element_of(buf).len;
}

doca_dpa_dev_mmap_t doca_dpa_dev_buf_get_mmap(doca_dpa_dev_buf_t buf) {
    return skiff::core::mem::dpa_mmap_handle(element_of(buf).mmap); // given at doca_buf_arr_start
}

} // extern "C"
