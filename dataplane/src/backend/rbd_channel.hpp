// Internal: one poll group's channel to an RbdDevice. Owns `depth` preallocated slots (one per
// librbd I/O in flight), a completion queue whose eventfd sits in the group's epoll set, and a
// few bounce buffers for Compare. librbd's callbacks (on librbd's threads) only record the
// result and push the slot; the group completes the command when the eventfd fires.
//
// The age watchdog: a timerfd in the same epoll set checks the slots a few times a second. An
// I/O inside librbd for longer than the device's op_timeout_s makes the channel "stalled" (the
// namespace turns ANA inaccessible) and, where librbd no longer needs the request's buffer
// (everything but Read: librbd copies a write's bytes when it takes the write, and Compare
// reads into the channel's bounce buffer), the command completes at once with ANA
// Inaccessible; its slot stays with librbd until librbd calls back ("abandoned").
#pragma once

#include "io_wait_list.hpp"
#include "skiff/core/log.hpp"
#include "skiff/dataplane/rbd_completion_queue.hpp"
#include "skiff/dataplane/rbd_device.hpp"
#include "skiff/nvmeof/target/poll_context.hpp"

#include <sys/uio.h>

#include <cstdint>
#include <vector>

namespace skiff::dataplane {

class RbdChannel final : public nvmeof::target::IoChannel {
  public:
    RbdChannel(RbdDevice &dev, nvmeof::target::PollContext &ctx, uint32_t depth, uint32_t max_io_bytes);
    ~RbdChannel() override;
    RbdChannel(const RbdChannel &) = delete;
    RbdChannel &operator=(const RbdChannel &) = delete;

    Status start();

    void submit(nvmeof::target::BackendIo &io) override;
    // Abandoned slots count too: the channel must outlive librbd's callbacks into them.
    uint32_t in_flight() const override { return in_flight_ + abandoned_; }

  private:
    struct Slot : RbdCompletionNode {
        RbdChannel *channel = nullptr;
        nvmeof::target::BackendIo *io = nullptr;
        uint8_t *bounce = nullptr; // Compare: the stored bytes land here
        iovec iov{};
        ssize_t result = 0;        // librbd's return value, set by the callback
        uint64_t mismatch_off = 0; // compare-and-write: librbd's first differing byte
        uint64_t started_ms = 0;   // when librbd took it (the watchdog's clock)
        nvmeof::target::IoOp op = nvmeof::target::IoOp::kRead;
        bool busy = false;      // librbd holds this slot
        bool abandoned = false; // its command already completed (the watchdog); only librbd's
                                // callback is still to come
    };

    static void on_rbd_complete(rbd_completion_t c, void *arg); // librbd's thread
    static void on_eventfd(void *self);                         // the group's thread
    static void on_watchdog(void *self);                        // the group's thread
    void check_ages();
    void set_stalled(bool stalled);
    bool start_io(nvmeof::target::BackendIo &io);
    uint16_t check(const nvmeof::target::BackendIo &io) const;
    uint16_t status_of(const Slot &slot) const;
    void finish(nvmeof::target::BackendIo &io, uint16_t status);
    void release(Slot &slot);
    void reap();
    void start_waiting();

    RbdDevice &dev_;
    nvmeof::target::PollContext &ctx_;
    uint32_t depth_;
    uint32_t max_io_;
    RbdCompletionQueue done_;
    bool watching_ = false;
    std::vector<Slot> slots_;
    std::vector<Slot *> free_slots_;
    std::vector<uint8_t *> free_bounce_;
    uint8_t *buffers_ = nullptr;
    size_t buffers_len_ = 0;
    uint32_t in_flight_ = 0;
    uint32_t abandoned_ = 0; // slots whose command completed early, still inside librbd
    int timer_fd_ = -1;
    bool stalled_ = false;
    IoWaitList waiting_;
    std::shared_ptr<spdlog::logger> log_ = skiff::log::get("dataplane");
};

} // namespace skiff::dataplane
