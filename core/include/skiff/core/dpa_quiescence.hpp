// Grace periods on a DPA's execution units, for code that unpublishes an object the device code
// may still be looking at (the NVMe target's live namespace removal is the user): take a
// snapshot after unpublishing, and free the object once every EU has passed it. An EU has passed
// when it was not running device code at the snapshot (its next run starts after the unpublish
// and cannot find the object) or has started a later run since. Like the poll groups' loop
// counters, this costs the EUs two atomic increments per piece of work, not per I/O.
#pragma once

#include <cstdint>
#include <vector>

struct doca_dpa;

namespace skiff::core::dpa {

// Appends one sequence per execution unit of `dpa` (started) to `out`: odd while that EU runs
// work, advanced by two per piece of work. Appends nothing when the DPA has no EUs running.
void append_eu_run_sequences(const doca_dpa *dpa, std::vector<uint64_t> &out);

// Whether an EU whose sequence was `then` at a snapshot and is `now` has passed it.
inline bool eu_passed(uint64_t then, uint64_t now) {
    return (then & 1) == 0 || now > then;
}

} // namespace skiff::core::dpa
