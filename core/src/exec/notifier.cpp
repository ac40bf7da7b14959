#include "exec/notifier.hpp"

#include <skiff/core/log.hpp>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <sys/eventfd.h>
#include <unistd.h>

namespace skiff::core {

Notifier::~Notifier() {
    if (fd_ >= 0) ::close(fd_);
}

doca_error_t Notifier::open() {
    fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (fd_ < 0) {
        log::get("exec")->error("progress engine: eventfd() failed: {}", std::strerror(errno));
        return DOCA_ERROR_OPERATING_SYSTEM;
    }
    return DOCA_SUCCESS;
}

void Notifier::signal_if_armed() {
    // The seq_cst fence pairs with arm(): either the armer sees the work when it looks for ready
    // work after arming, or we see it armed here. No wake-up is lost.
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (!armed_.load(std::memory_order_relaxed)) return;
    if (!armed_.exchange(false, std::memory_order_acq_rel)) return;
    const uint64_t one = 1;
    // The eventfd counter cannot overflow from single increments; EAGAIN is impossible here.
    [[maybe_unused]] ssize_t n = ::write(fd_, &one, sizeof(one));
}

doca_error_t Notifier::clear() {
    armed_.store(false, std::memory_order_seq_cst);
    uint64_t value = 0;
    if (::read(fd_, &value, sizeof(value)) < 0 && errno != EAGAIN) {
        log::get("exec")->error("progress engine: reading the notification eventfd failed: {}",
                                std::strerror(errno));
        return DOCA_ERROR_OPERATING_SYSTEM;
    }
    return DOCA_SUCCESS;
}

} // namespace skiff::core
