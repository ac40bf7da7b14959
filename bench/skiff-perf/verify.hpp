// --verify: every logical block a write carries is stamped with a self-describing pattern (a
// magic word, its LBA, the writer's generation and the run's seed, then words derived from
// those), so a read can tell a correct block from a stale, misplaced or torn one. Queues own
// disjoint slices of the namespace and never have two commands on the same unit in flight, so the
// generation a block must hold after a completed write is known exactly; blocks this run has not
// written must be all zeroes or carry a valid stamp for their own LBA.
#pragma once

#include <cstdint>
#include <string>

namespace skiff::perf {

class BlockStamp {
  public:
    BlockStamp(uint32_t block_size, uint64_t seed) : block_size_(block_size), seed_(seed & 0xFFFFFFFFu) {}

    // Fills nlb blocks starting at lba with generation `gen` (> 0).
    void stamp(uint8_t *buf, uint64_t lba, uint32_t nlb, uint32_t gen) const;
    // Checks nlb blocks read from lba. expected_gen 0: not written by this run (zeroes or any
    // valid stamp for that LBA pass). On a mismatch, returns false and says what was wrong.
    bool check(const uint8_t *buf, uint64_t lba, uint32_t nlb, uint32_t expected_gen, std::string &why) const;

  private:
    uint64_t word(uint64_t lba, uint32_t gen, uint32_t i) const;

    uint32_t block_size_;
    uint64_t seed_; // 32 bits: stored in the high half of the generation word
};

} // namespace skiff::perf
