// Internal: the PollContext of one NVMe/RDMA I/O queue in the dpa data path. Its DPA thread is
// the only thread that uses it while the queue runs there (backend channels open on the
// thread's first I/O to a namespace); the poll group closes them after stopping the thread.
// There is no loop to watch fds in and no progress engine, so only backends that complete
// inside submit (ram, null) can open a channel; the config validator refuses the others.
#pragma once

#include "skiff/nvmeof/target/poll_context.hpp"

namespace skiff::nvmeof::rdma {

class DpaPollContext final : public target::PollContext {
  public:
    explicit DpaPollContext(int lane) : lane_(lane) {}
    ~DpaPollContext() override { close_channels(); }

    doca_pe *progress_engine() const override { return nullptr; }
    Status watch_fd(int, FdHandler, void *) override {
        return make_error(DOCA_ERROR_NOT_SUPPORTED,
                          "the dpa data path has no poll loop: use a ram or null backend (or target.datapath "
                          "\"poll\")");
    }
    void unwatch_fd(int) override {}
    int index() const override { return lane_; }

  private:
    int lane_;
};

} // namespace skiff::nvmeof::rdma
