// A poll-group-like loop on the test's own thread: an epoll set in which backends watch their
// completion fds (aio's eventfd), offered to queues and channels as their PollContext. Tests
// drive it by hand (run_once / drain) where a PollGroup would run its thread.
#pragma once

#include "skiff/nvmeof/target/poll_context.hpp"

#include <cerrno>
#include <cstring>
#include <string>
#include <sys/epoll.h>
#include <unistd.h>
#include <vector>

namespace skiff::test {

class TestLoop final : public nvmeof::target::PollContext {
  public:
    TestLoop() : epfd_(epoll_create1(EPOLL_CLOEXEC)) {}
    ~TestLoop() override {
        drain();
        close_channels();
        ::close(epfd_);
    }

    doca_pe *progress_engine() const override { return nullptr; }
    int index() const override { return 0; }
    Status watch_fd(int fd, FdHandler handler, void *arg) override {
        epoll_event ev{};
        ev.events = EPOLLIN;
        ev.data.fd = fd;
        if (epoll_ctl(epfd_, EPOLL_CTL_ADD, fd, &ev) != 0)
            return make_error(DOCA_ERROR_OPERATING_SYSTEM, std::string("test loop: ") + std::strerror(errno));
        watches_.push_back({fd, handler, arg});
        return Status::success();
    }
    void unwatch_fd(int fd) override {
        epoll_ctl(epfd_, EPOLL_CTL_DEL, fd, nullptr);
        std::erase_if(watches_, [fd](const Watch &w) { return w.fd == fd; });
    }

    // Runs the handlers of the fds that are ready, waiting up to timeout_ms for one.
    int run_once(int timeout_ms) {
        epoll_event events[16];
        int n = epoll_wait(epfd_, events, 16, timeout_ms);
        for (int i = 0; i < n; ++i)
            for (const Watch &w : watches_)
                if (w.fd == events[i].data.fd) {
                    w.handler(w.arg);
                    break;
                }
        return n;
    }
    // Runs completions until no backend I/O is in flight (at most ~10 s).
    void drain() {
        for (int i = 0; i < 1000 && io_in_flight() > 0; ++i) run_once(10);
    }

  private:
    struct Watch {
        int fd;
        FdHandler handler;
        void *arg;
    };
    int epfd_;
    std::vector<Watch> watches_;
};

} // namespace skiff::test
