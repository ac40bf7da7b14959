// C++ handle for a progress engine: owns the doca_pe, destroys it last (after its contexts).
#pragma once

#include <skiff/core/status.hpp>

#include <doca_pe.h>

#include <cstddef>
#include <utility>

namespace skiff::core {

class ProgressEngine {
  public:
    ProgressEngine() = default;
    explicit ProgressEngine(doca_pe *pe) : pe_(pe) {}
    ProgressEngine(ProgressEngine &&other) noexcept : pe_(std::exchange(other.pe_, nullptr)) {}
    ProgressEngine &operator=(ProgressEngine &&other) noexcept;
    ProgressEngine(const ProgressEngine &) = delete;
    ProgressEngine &operator=(const ProgressEngine &) = delete;
    ~ProgressEngine();

    static Result<ProgressEngine> create();

    doca_pe *get() const { return pe_; }
    explicit operator bool() const { return pe_ != nullptr; }

    Status connect(doca_ctx *ctx);
    // One unit of work; true if something happened.
    bool progress() { return doca_pe_progress(pe_) != 0; }
    // Progresses until nothing is left; returns how many units of work ran.
    size_t drain();
    size_t inflight() const;

    // Notification mode: wait on fd() (epoll/poll) after arm(); clear() after waking.
    int fd() const;
    Status arm();
    Status clear();

  private:
    doca_pe *pe_ = nullptr;
};

} // namespace skiff::core
