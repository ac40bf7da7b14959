// The progress engine's wake-up: an eventfd that becomes readable when work is ready, but only
// while the application has armed it. Signalled from any thread (engine workers included).
#pragma once

#include <doca_error.h>

#include <atomic>

namespace skiff::core {

class Notifier {
  public:
    Notifier() = default;
    ~Notifier();
    Notifier(const Notifier &) = delete;
    Notifier &operator=(const Notifier &) = delete;

    doca_error_t open();
    int fd() const { return fd_; }

    // Arms for one wake-up. The caller then looks for ready work: the fence keeps those loads
    // (acquire or relaxed, not seq_cst) after the store, pairing with signal_if_armed's fence.
    // Without it a weakly ordered CPU (Arm's RCpc loads) or x86's store buffer may read the work
    // state before `armed` is visible, while the signaller misses `armed`: a lost wake-up.
    void arm() {
        armed_.store(true, std::memory_order_relaxed);
        std::atomic_thread_fence(std::memory_order_seq_cst);
    }
    // Makes the fd readable if armed, and disarms. Cheap (one load) when not armed.
    void signal_if_armed();
    // The same from the thread that arms (the PE's): program order already puts the armer's store
    // before this load, so no fence; one relaxed load when not armed.
    void signal_if_armed_same_thread() {
        if (armed_.load(std::memory_order_relaxed)) signal_if_armed();
    }
    // Drains the fd and disarms.
    doca_error_t clear();

  private:
    int fd_ = -1;
    std::atomic<bool> armed_{false};
};

} // namespace skiff::core
