// Internal: the DPA's handles of mmaps. DOCA's doca_dpa_dev_mmap_t is 32 bits (programs store it
// in uint32_t fields of structs they share with device code, as NVIDIA's dpa_ping_pong does), so
// it cannot be the doca_mmap pointer: it is an index into a process-wide table, with a
// generation so that the handle of a destroyed mmap never names the next one in its slot.
#pragma once

#include <doca_mmap.h>

namespace skiff::core::mem {

// The mmap's handle, given on first use (host side: doca_mmap_dev_get_dpa_handle,
// doca_buf_arr_start); 0 only when the table is full (16M mmaps alive), which is logged.
doca_dpa_dev_mmap_t dpa_mmap_handle(doca_mmap *mmap);
// The mmap behind a handle, or nullptr (0, never given, or its mmap destroyed). Lock-free: device
// code calls it per post.
doca_mmap *dpa_mmap_from_handle(doca_dpa_dev_mmap_t handle);
// Frees the mmap's slot (doca_mmap_destroy).
void dpa_mmap_handle_release(doca_mmap *mmap);

} // namespace skiff::core::mem
