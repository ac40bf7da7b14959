// Internal: under AddressSanitizer, a poisoned gap after each request slot of a queue pair's buffer
// mapping. The slots are one anonymous mapping, so without it a write past a slot's end lands in
// the next slot and no sanitizer sees it (issue 36: in-capsule data larger than the slot). With
// it, the fuzz and ASan builds report such a write where it happens. Other builds: no gap, and
// these functions do nothing.
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SKIFF_SLOT_REDZONES 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) && !defined(SKIFF_SLOT_REDZONES)
#define SKIFF_SLOT_REDZONES 1
#endif

#ifdef SKIFF_SLOT_REDZONES
#include <sanitizer/asan_interface.h>
#endif

namespace skiff::nvmeof::tcp::slot_redzones {

#ifdef SKIFF_SLOT_REDZONES
constexpr size_t kGap = 4096; // whole pages keep every slot page-aligned
inline void poison(uint8_t *gap) {
    ASAN_POISON_MEMORY_REGION(gap, kGap);
}
// Before the mapping goes: ASan keeps the poison of unmapped memory, and a later mapping there
// would inherit it. Only the gap: clearing the shadow of a whole 17 MB mapping took about 5 ms
// per queue, and a thousand connections closing at once held the poll group for seconds.
inline void unpoison(uint8_t *gap) {
    ASAN_UNPOISON_MEMORY_REGION(gap, kGap);
}
#else
constexpr size_t kGap = 0;
inline void poison(uint8_t *) {}
inline void unpoison(uint8_t *) {}
#endif

} // namespace skiff::nvmeof::tcp::slot_redzones
