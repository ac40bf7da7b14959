#include "skiff/nvmeof/target/qos_bucket.hpp"

#include <algorithm>

namespace skiff::nvmeof::target {

uint64_t QosSharedBucket::cost_ns(uint64_t tokens, uint64_t rate) {
    // 128 bits: a chunk of bytes at tens of GB/s times 1e9 overflows 64.
    const unsigned __int128 scaled = static_cast<unsigned __int128>(tokens) * 1'000'000'000u;
    return static_cast<uint64_t>((scaled + rate - 1) / rate);
}

void QosSharedBucket::set_rate(uint64_t per_sec, uint64_t now_ns) {
    rate_.store(per_sec, std::memory_order_relaxed);
    // Start the new rate without the old one's reservations and with no saved burst.
    paid_until_ns_.store(now_ns, std::memory_order_relaxed);
    epoch_.fetch_add(1, std::memory_order_release);
}

uint64_t QosSharedBucket::reserve(uint64_t tokens, uint64_t now_ns) {
    const uint64_t cost = cost_ns(tokens, std::max<uint64_t>(rate_.load(std::memory_order_relaxed), 1));
    const uint64_t oldest = now_ns > kQosBurstNs ? now_ns - kQosBurstNs : 0;
    uint64_t paid = paid_until_ns_.load(std::memory_order_relaxed);
    for (;;) {
        const uint64_t due = std::max(paid, oldest); // an idle bucket saves at most the burst
        if (paid_until_ns_.compare_exchange_weak(paid, due + cost, std::memory_order_relaxed))
            return std::max(due, now_ns);
    }
}

bool QosLocalTokens::ensure(QosSharedBucket &shared, uint64_t need, uint64_t now_ns, uint64_t *wait_ns) {
    const uint64_t rate = shared.rate();
    if (rate == 0) return true; // no limit (any more): nothing to take
    if (epoch != shared.epoch()) {
        // The limit changed: what was reserved at the old rate is void.
        *this = QosLocalTokens{};
        epoch = shared.epoch();
    }
    if (due_ns > now_ns) { // one reservation at a time: wait for it
        *wait_ns = due_ns - now_ns;
        return false;
    }
    if (tokens >= need) return true;
    // About kQosChunkNs worth (at least one token), plus what this I/O lacks.
    const uint64_t chunk = std::max<uint64_t>(rate / (1'000'000'000u / kQosChunkNs), 1);
    const uint64_t want = need - tokens + chunk;
    tokens += want;
    due_ns = shared.reserve(want, now_ns);
    if (due_ns <= now_ns) return true;
    *wait_ns = due_ns - now_ns;
    return false;
}

} // namespace skiff::nvmeof::target
