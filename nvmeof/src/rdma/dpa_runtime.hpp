// Internal: the DPA that runs NVMe/RDMA I/O queues in the dpa data path. One per RDMA
// transport, started with its first listener: the (emulated) DPA device, the application that
// registers the queue thread function (the stand-in for a DPACC-built program), and a started
// doca_dpa context with the configured number of execution units. Queues share it
// (shared_ptr): a queue may outlive the transport's listeners.
#pragma once

#include "skiff/core/device.hpp"
#include "skiff/core/status.hpp"

#include <doca_dpa.h>

#include <atomic>
#include <memory>

namespace skiff::nvmeof::rdma {

class DpaRuntime {
  public:
    // Opens the first device with the DPA capability and starts a DPA context on it with
    // `eus` execution units. The error says which step failed.
    static Result<std::shared_ptr<DpaRuntime>> start(unsigned eus);
    ~DpaRuntime();
    DpaRuntime(const DpaRuntime &) = delete;
    DpaRuntime &operator=(const DpaRuntime &) = delete;

    doca_dpa *dpa() const { return dpa_; }
    unsigned eus() const { return eus_; }
    // The device function every queue's DPA thread runs (registered in the app).
    static doca_dpa_func_t *queue_thread_function();
    // The IoGate lane of the next queue: lanes 32..63, round-robin (poll groups use 0..31 in
    // practice; a shared lane is still correct, its counter is atomic).
    int next_lane() { return 32 + static_cast<int>(lanes_.fetch_add(1) % 32); }

  private:
    DpaRuntime() = default;
    core::Device dev_;
    doca_dpa_app *app_ = nullptr;
    doca_dpa *dpa_ = nullptr;
    unsigned eus_ = 0;
    std::atomic<uint32_t> lanes_{0};
};

} // namespace skiff::nvmeof::rdma
