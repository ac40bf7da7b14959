// Internal: one poll group's channel to an RbdDevice. Owns `depth` preallocated slots (one per
// librbd I/O in flight), a completion queue whose eventfd sits in the group's epoll set, and a
// few bounce buffers for Compare. librbd's callbacks (on librbd's threads) only record the
// result and push the slot; the group completes the command when the eventfd fires.
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
    uint32_t in_flight() const override { return in_flight_; }

  private:
    struct Slot : RbdCompletionNode {
        RbdChannel *channel = nullptr;
        nvmeof::target::BackendIo *io = nullptr;
        uint8_t *bounce = nullptr; // Compare: the stored bytes land here
        iovec iov{};
        ssize_t result = 0; // librbd's return value, set by the callback
    };

    static void on_rbd_complete(rbd_completion_t c, void *arg); // librbd's thread
    static void on_eventfd(void *self);                         // the group's thread
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
    IoWaitList waiting_;
    std::shared_ptr<spdlog::logger> log_ = skiff::log::get("dataplane");
};

} // namespace skiff::dataplane
