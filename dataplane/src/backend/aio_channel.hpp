// Internal: one poll group's channel to an AioDevice. Owns a kernel AIO context (io_setup,
// queue_depth deep), an eventfd every iocb signals (watched in the group's epoll loop), the
// iocb slots, and a few bounce buffers for Compare (which must read the stored bytes). All of
// it is allocated when the channel opens; submit() and the completion path allocate nothing.
// I/O that finds every slot (or every bounce buffer) taken waits in an intrusive list.
#pragma once

#include "skiff/core/log.hpp"
#include "skiff/dataplane/aio_device.hpp"
#include "io_wait_list.hpp"
#include "skiff/nvmeof/target/poll_context.hpp"

#include <libaio.h>

#include <cstdint>
#include <vector>

namespace skiff::dataplane {

class AioChannel final : public nvmeof::target::IoChannel {
  public:
    AioChannel(AioDevice &dev, nvmeof::target::PollContext &ctx, uint32_t depth, uint32_t max_io_bytes);
    ~AioChannel() override;
    AioChannel(const AioChannel &) = delete;
    AioChannel &operator=(const AioChannel &) = delete;

    Status start();

    void submit(nvmeof::target::BackendIo &io) override;
    uint32_t in_flight() const override { return in_flight_; }

  private:
    struct Slot {
        iocb cb;
        nvmeof::target::BackendIo *io = nullptr;
        uint8_t *bounce = nullptr; // Compare: the stored bytes land here
    };

    static void on_eventfd(void *self);
    // Starts io, or returns false when it must wait for a slot.
    bool start_io(nvmeof::target::BackendIo &io);
    uint16_t check(const nvmeof::target::BackendIo &io) const;
    void finish(nvmeof::target::BackendIo &io, uint16_t status);
    void reap();
    void start_waiting();
    uint16_t status_of(const Slot &slot, long res) const;

    AioDevice &dev_;
    nvmeof::target::PollContext &ctx_;
    uint32_t depth_;
    uint32_t max_io_;
    io_context_t aio_ = nullptr;
    int event_fd_ = -1;
    bool watching_ = false;
    bool fdsync_async_ = true; // the kernel takes IOCB_CMD_FDSYNC
    std::vector<Slot> slots_;
    std::vector<Slot *> free_slots_;
    std::vector<uint8_t *> free_bounce_;
    std::vector<io_event> events_;
    uint8_t *buffers_ = nullptr; // bounce buffers, then the zero buffer
    size_t buffers_len_ = 0;
    uint8_t *zero_buf_ = nullptr;
    uint32_t zero_len_ = 0;
    uint32_t in_flight_ = 0;
    IoWaitList waiting_;
    std::shared_ptr<spdlog::logger> log_ = skiff::log::get("dataplane");
};

} // namespace skiff::dataplane
