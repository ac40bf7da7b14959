#include "verify.hpp"

#include <cstring>

namespace skiff::perf {
namespace {

constexpr uint64_t kMagic = 0x534b494646504552ull; // "SKIFFPER"
constexpr uint32_t kHeaderWords = 3;               // magic, lba, gen | seed

uint64_t load(const uint8_t *p) {
    uint64_t v;
    std::memcpy(&v, p, sizeof(v));
    return v;
}

void store(uint8_t *p, uint64_t v) {
    std::memcpy(p, &v, sizeof(v));
}

std::string hex(uint64_t v) {
    char buf[24];
    std::snprintf(buf, sizeof(buf), "%llx", static_cast<unsigned long long>(v));
    return buf;
}

} // namespace

uint64_t BlockStamp::word(uint64_t lba, uint32_t gen, uint32_t i) const {
    // A cheap mix (splitmix64 finaliser) so neighbouring words, blocks and generations differ.
    uint64_t z = lba * 0x9E3779B97F4A7C15ull ^ (uint64_t(gen) << 32 | i) ^ seed_;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

void BlockStamp::stamp(uint8_t *buf, uint64_t lba, uint32_t nlb, uint32_t gen) const {
    const uint32_t words = block_size_ / 8;
    for (uint32_t b = 0; b < nlb; ++b, ++lba) {
        uint8_t *p = buf + size_t(b) * block_size_;
        store(p, kMagic);
        store(p + 8, lba);
        store(p + 16, uint64_t(gen) | (seed_ << 32));
        for (uint32_t i = kHeaderWords; i < words; ++i) store(p + 8 * i, word(lba, gen, i));
    }
}

bool BlockStamp::check(const uint8_t *buf, uint64_t lba, uint32_t nlb, uint32_t expected_gen,
                       std::string &why) const {
    const uint32_t words = block_size_ / 8;
    for (uint32_t b = 0; b < nlb; ++b, ++lba) {
        const uint8_t *p = buf + size_t(b) * block_size_;
        const uint64_t magic = load(p);
        if (magic != kMagic) {
            bool zero = expected_gen == 0;
            for (uint32_t i = 0; zero && i < words; ++i) zero = load(p + 8 * i) == 0;
            if (zero) continue;
            why = "LBA " + std::to_string(lba) + ": no stamp (first word " + hex(magic) + ")" +
                  (expected_gen ? ", expected generation " + std::to_string(expected_gen) : "");
            return false;
        }
        if (load(p + 8) != lba) {
            why = "LBA " + std::to_string(lba) + ": holds the block written for LBA " +
                  std::to_string(load(p + 8));
            return false;
        }
        const uint64_t tag = load(p + 16);
        const uint32_t gen = static_cast<uint32_t>(tag);
        if ((tag >> 32) != seed_ && expected_gen != 0) {
            why = "LBA " + std::to_string(lba) + ": written by another run (seed " + hex(tag >> 32) + ")";
            return false;
        }
        if (expected_gen != 0 && gen != expected_gen) {
            why = "LBA " + std::to_string(lba) + ": generation " + std::to_string(gen) + ", expected " +
                  std::to_string(expected_gen) + " (stale data)";
            return false;
        }
        // The pattern words depend on the seed of the run that wrote them.
        const BlockStamp writer(block_size_, tag >> 32);
        for (uint32_t i = kHeaderWords; i < words; ++i) {
            if (load(p + 8 * i) != writer.word(lba, gen, i)) {
                why = "LBA " + std::to_string(lba) + ": byte " + std::to_string(8 * i) +
                      " differs from the written pattern (torn or corrupted block)";
                return false;
            }
        }
    }
    return true;
}

} // namespace skiff::perf
