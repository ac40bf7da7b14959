#include "worker.hpp"

#include <cstdlib>
#include <cstring>

namespace skiff::perf {
namespace {

// xorshift64*: a few instructions per offset, good enough for spreading I/O.
uint64_t next_random(uint64_t &s) {
    s ^= s >> 12;
    s ^= s << 25;
    s ^= s >> 27;
    return s * 0x2545F4914F6CDD1Dull;
}

constexpr size_t kBufferAlign = 4096;

} // namespace

std::vector<QueueSlice> split_units(uint64_t units, size_t queues) {
    std::vector<QueueSlice> out(queues);
    for (size_t i = 0; i < queues; ++i) {
        out[i].first_unit = units * i / queues;
        out[i].units = units * (i + 1) / queues - out[i].first_unit;
    }
    return out;
}

Worker::Worker(const PerfOptions &o, const NamespaceGeometry &geo, std::vector<QueueAssignment> queues,
               VerifyState *verify)
    : o_(o), geo_(geo), nlb_(o.bs / geo.block_size), stamp_(geo.block_size, o.seed), verify_(verify) {
    const size_t per_queue = size_t(o.qd) * o.bs;
    const size_t total = per_queue * queues.size();
    memory_ = {static_cast<uint8_t *>(std::aligned_alloc(kBufferAlign, (total + kBufferAlign - 1) /
                                                                           kBufferAlign * kBufferAlign)),
               std::free};
    std::memset(memory_.get(), 0, total);
    for (size_t i = 0; i < queues.size(); ++i) {
        QueueState q;
        q.a = queues[i];
        q.rng = queues[i].seed * 0x9E3779B97F4A7C15ull + 1;
        q.slots.resize(o.qd);
        q.ready.reserve(o.qd);
        q.batch.resize(o.qd);
        q.done.resize(o.qd);
        for (uint32_t s = 0; s < o.qd; ++s) q.slots[s].buf = memory_.get() + i * per_queue + size_t(s) * o.bs;
        queues_.push_back(std::move(q));
    }
}

bool Worker::fail(std::string why) {
    if (result_.error.empty()) result_.error = std::move(why);
    return false;
}

uint64_t Worker::next_unit(QueueState &q) {
    const QueueSlice &s = q.a.slice;
    uint64_t u = is_random(o_.rw) ? next_random(q.rng) % s.units : q.cursor++ % s.units;
    if (verify_) {
        // Never two commands on one unit: the expected generation must be unambiguous.
        while (verify_->in_flight[s.first_unit + u]) u = (u + 1) % s.units;
        verify_->in_flight[s.first_unit + u] = 1;
    }
    return s.first_unit + u;
}

bool Worker::pick_write(QueueState &q) {
    switch (o_.rw) {
    case Pattern::kRead:
    case Pattern::kRandRead:
        return false;
    case Pattern::kWrite:
    case Pattern::kRandWrite:
        return true;
    case Pattern::kRandRw:
        return next_random(q.rng) % 100 >= o_.rwmixread;
    }
    return false;
}

bool Worker::submit_ready(QueueState &q, uint32_t count) {
    for (uint32_t i = 0; i < count; ++i) {
        Slot &slot = q.slots[q.ready[i]];
        slot.write = pick_write(q);
        slot.unit = next_unit(q);
        const uint64_t lba = slot.unit * nlb_;
        slot.gen = 0;
        if (slot.write && verify_) {
            slot.gen = q.next_gen++;
            stamp_.stamp(slot.buf, lba, nlb_, slot.gen);
        }
        q.batch[i] = {lba, nlb_, o_.bs, slot.buf, q.ready[i], slot.write};
    }
    // The batch leaves in one system call: one timestamp, taken just before it, for all of it.
    const auto now = PerfClock::now();
    for (uint32_t i = 0; i < count; ++i) q.slots[q.ready[i]].submitted = now;
    if (Status st = q.a.queue->submit(q.batch.data(), count); !st) return fail(st.error().describe());
    q.in_flight += count;
    return true;
}

bool Worker::complete(QueueState &q, const IoCompletion &c, PerfClock::time_point now, const RunWindow &w) {
    Slot &slot = q.slots[c.tag];
    --q.in_flight;
    if (!c.ok()) {
        char buf[96];
        std::snprintf(buf, sizeof(buf), "%s of LBA %llu failed with NVMe status sct %xh sc %02xh",
                      slot.write ? "write" : "read", static_cast<unsigned long long>(slot.unit * nlb_),
                      (c.status >> 9) & 0x7, (c.status >> 1) & 0xFF);
        return fail(buf);
    }
    if (verify_) {
        uint32_t &expected = verify_->generation[slot.unit];
        if (slot.write) {
            expected = slot.gen;
        } else {
            std::string why;
            if (!stamp_.check(slot.buf, slot.unit * nlb_, nlb_, expected, why)) return fail("verify: " + why);
            result_.verified_blocks += nlb_;
        }
        verify_->in_flight[slot.unit] = 0;
    }
    const uint64_t ns = static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(now - slot.submitted).count());
    ++local_ios_;
    ++(slot.write ? result_.all_writes : result_.all_reads);
    local_bytes_ += o_.bs;
    local_lat_ += ns;
    if (slot.submitted >= w.measure_start && now < w.end) {
        result_.latency.record(ns);
        ++(slot.write ? result_.writes : result_.reads);
    }
    return true;
}

void Worker::run(const RunWindow &window, const std::atomic<bool> &stop) {
    loop(window, stop);
    result_.all_ios = local_ios_;
    for (auto &q : queues_) {
        const TransportCalls c = q.a.queue->calls();
        result_.calls.sends += c.sends;
        result_.calls.reads += c.reads;
        result_.calls.empty_reads += c.empty_reads;
    }
}

void Worker::loop(const RunWindow &window, const std::atomic<bool> &stop) {
    for (auto &q : queues_) {
        q.ready.clear();
        for (uint32_t s = 0; s < o_.qd; ++s) q.ready.push_back(s);
        if (!submit_ready(q, o_.qd)) return;
    }
    uint32_t in_flight = o_.qd * static_cast<uint32_t>(queues_.size());
    bool submitting = true;
    while (in_flight > 0) {
        for (auto &q : queues_) {
            if (q.in_flight == 0) continue;
            Result<uint32_t> n = q.a.queue->poll(q.done.data(), o_.qd);
            if (!n) return void(fail(n.error().describe()));
            if (*n == 0) continue;
            const auto now = PerfClock::now();
            q.ready.clear();
            for (uint32_t i = 0; i < *n; ++i) {
                --in_flight;
                if (!complete(q, q.done[i], now, window)) return;
                q.ready.push_back(static_cast<uint32_t>(q.done[i].tag));
            }
            if (submitting && (now >= window.end || stop.load(std::memory_order_relaxed))) submitting = false;
            if (!submitting) continue;
            if (!submit_ready(q, static_cast<uint32_t>(q.ready.size()))) return;
            in_flight += static_cast<uint32_t>(q.ready.size());
        }
        live_.ios.store(local_ios_, std::memory_order_relaxed);
        live_.bytes.store(local_bytes_, std::memory_order_relaxed);
        live_.latency_ns.store(local_lat_, std::memory_order_relaxed);
    }
}

} // namespace skiff::perf
