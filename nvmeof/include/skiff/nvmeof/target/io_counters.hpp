// I/O statistics for the SMART / health log. Each queue counts its own I/O (single writer:
// relaxed load + store, no read-modify-write, no lock); the admin queue sums them on demand.
#pragma once

#include <atomic>
#include <cstdint>

namespace skiff::nvmeof::target {

struct IoTotals {
    uint64_t read_commands = 0, write_commands = 0;
    uint64_t read_bytes = 0, write_bytes = 0;

    IoTotals &operator+=(const IoTotals &o) {
        read_commands += o.read_commands;
        write_commands += o.write_commands;
        read_bytes += o.read_bytes;
        write_bytes += o.write_bytes;
        return *this;
    }
};

// Written by one thread, read by any.
class IoCounters {
  public:
    void count_read(uint64_t bytes) {
        bump(read_commands_, 1);
        bump(read_bytes_, bytes);
    }
    void count_write(uint64_t bytes) {
        bump(write_commands_, 1);
        bump(write_bytes_, bytes);
    }
    IoTotals totals() const {
        return {read_commands_.load(std::memory_order_relaxed),
                write_commands_.load(std::memory_order_relaxed), read_bytes_.load(std::memory_order_relaxed),
                write_bytes_.load(std::memory_order_relaxed)};
    }

  private:
    static void bump(std::atomic<uint64_t> &c, uint64_t n) {
        c.store(c.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
    }
    std::atomic<uint64_t> read_commands_{0}, write_commands_{0}, read_bytes_{0}, write_bytes_{0};
};

// Totals that outlive queues (kept by the subsystem): many writers, control plane only.
class RetiredIo {
  public:
    void add(const IoTotals &t) {
        read_commands_.fetch_add(t.read_commands);
        write_commands_.fetch_add(t.write_commands);
        read_bytes_.fetch_add(t.read_bytes);
        write_bytes_.fetch_add(t.write_bytes);
    }
    IoTotals totals() const {
        return {read_commands_.load(), write_commands_.load(), read_bytes_.load(), write_bytes_.load()};
    }

  private:
    std::atomic<uint64_t> read_commands_{0}, write_commands_{0}, read_bytes_{0}, write_bytes_{0};
};

} // namespace skiff::nvmeof::target
