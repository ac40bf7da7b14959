// Debug mode of a ctx: delivers completions in a seeded pseudo-random order instead of the order
// the engine finished them, so that no application silently relies on FIFO completion. The ctx
// holds completions until everything in flight has finished, so the order is reproducible.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

struct doca_task;

namespace skiff::core {

class CompletionOrder {
  public:
    void set_seed(uint64_t seed) { seed_ = seed; }
    uint64_t seed() const { return seed_; }
    bool shuffling() const { return seed_ != 0; }

    // Sizes the holding area at ctx start (no allocation afterwards).
    void prepare(size_t capacity) {
        held_.clear();
        held_.reserve(capacity);
        state_ = seed_ ? seed_ : 1;
    }
    void hold(doca_task *task) { held_.push_back(task); }
    bool empty() const { return held_.empty(); }
    size_t held() const { return held_.size(); }

    // Removes and returns a pseudo-randomly chosen held task (nullptr when none).
    doca_task *pick() {
        if (held_.empty()) return nullptr;
        size_t i = next_random() % held_.size();
        doca_task *task = held_[i];
        held_[i] = held_.back();
        held_.pop_back();
        return task;
    }

  private:
    uint64_t next_random() { // xorshift64
        state_ ^= state_ << 13;
        state_ ^= state_ >> 7;
        state_ ^= state_ << 17;
        return state_;
    }

    uint64_t seed_ = 0;
    uint64_t state_ = 1;
    std::vector<doca_task *> held_;
};

} // namespace skiff::core
