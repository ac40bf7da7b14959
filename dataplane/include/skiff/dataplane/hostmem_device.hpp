// The hostmem backend: the namespace's bytes live in memory that skiff-host exported from the
// host; the target imports the export on its DPU-side device and moves data with DMA memcpy
// tasks between the host region and the transport's I/O buffers. A link thread keeps the import
// current over the control channel (a DOCA Comch server skiff-host connects to): when the host revokes or
// vanishes the namespace becomes ANA-inaccessible (I/O fails with a retryable path error), and when the host
// exports again the link re-imports with back-off, without restarting the target. See src/backend/README.md.
#pragma once

#include "skiff/core/device.hpp"
#include "skiff/core/status.hpp"
#include "skiff/dataplane/hostmem/control_channel.hpp"
#include "skiff/nvmeof/target/block_device.hpp"

#include <atomic>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace skiff::dataplane {

struct HostmemOptions {
    std::string channel;             // the control channel: the comch server name skiff-host connects to
    uint64_t size_bytes = 0;         // namespace size; the host's region must be at least this big
    std::string dpu_pci = "03:00.0"; // DPU PF that manages the exporting host function
    std::string host_pci;            // the exporting host function (empty: the PF's first one)
};

class HostmemDevice final : public nvmeof::target::BlockDevice {
  public:
    // Opens the DPU device and starts the link; the host need not be up yet (the namespace is
    // inaccessible until it is).
    static Result<std::shared_ptr<HostmemDevice>> create(HostmemOptions options);
    ~HostmemDevice() override;
    HostmemDevice(const HostmemDevice &) = delete;
    HostmemDevice &operator=(const HostmemDevice &) = delete;

    const char *kind() const override { return "hostmem"; }
    uint64_t size_bytes() const override { return options_.size_bytes; }
    // Deallocate writes zeroes (the host's memory has no notion of unmapped blocks).
    nvmeof::target::DeallocateMode deallocate_mode() const override {
        return nvmeof::target::DeallocateMode::kReadsZeroes;
    }
    // On the poll group's thread: the channel's DMA context joins the group's progress engine.
    Result<std::unique_ptr<nvmeof::target::IoChannel>>
    open_channel(nvmeof::target::PollContext &ctx, const nvmeof::target::ChannelParams &params) override;

    bool accessible() const override {
        const hostmem::ExportRecord *r = current_.load(std::memory_order_acquire);
        return r != nullptr && r != lost_.load(std::memory_order_acquire);
    }
    uint64_t ana_changes() const override { return ana_changes_.load(std::memory_order_acquire); }

    // For the channels (any poll group thread): the export to DMA against (nullptr: none), and
    // the report that a DMA found `record` gone (ANA inaccessible at once, before the link
    // thread hears of it).
    const hostmem::ExportRecord *current_export() const { return current_.load(std::memory_order_acquire); }
    void mark_lost(const hostmem::ExportRecord *record);
    doca_dev *doca_device() const { return dev_.get(); }

  private:
    HostmemDevice(HostmemOptions options, core::Device dev, std::unique_ptr<hostmem::ControlServer> channel);
    void link_loop();
    void publish(const hostmem::ExportRecord *record);

    HostmemOptions options_;
    core::Device dev_;
    std::unique_ptr<hostmem::ControlServer> channel_; // used by the link thread only
    std::atomic<const hostmem::ExportRecord *> current_{nullptr};
    std::atomic<const hostmem::ExportRecord *> lost_{nullptr}; // a DMA found this export gone
    std::atomic<uint64_t> ana_changes_{0};
    // Every record published stays alive until the device goes: channels compare against them.
    std::vector<std::unique_ptr<hostmem::ExportRecord>> records_;
    std::atomic<bool> stop_{false};
    std::thread link_;
};

} // namespace skiff::dataplane
