#include "skiff/dataplane/hostmem_device.hpp"

#include "hostmem_channel.hpp"
#include "skiff/core/log.hpp"
#include "skiff/nvmeof/wire/command.hpp"

#include <nvme/types.h>

#include <cstring>

namespace skiff::dataplane {
namespace {

constexpr uint32_t kDefaultQueueDepth = 128; // DMA tasks per channel
constexpr int kWaitMs = 100;                 // how often the link thread looks at stop_

} // namespace

Result<std::shared_ptr<HostmemDevice>> HostmemDevice::create(HostmemOptions options) {
    if (options.size_bytes == 0 || options.size_bytes % 4096)
        return make_error(DOCA_ERROR_INVALID_VALUE, "hostmem namespace size " +
                                                        std::to_string(options.size_bytes) +
                                                        " is not a non-zero multiple of 4096 bytes");
    if (options.channel.empty())
        return make_error(
            DOCA_ERROR_INVALID_VALUE,
            "hostmem: the control channel name is empty (the comch name skiff-host --channel uses)");
    auto dev = core::Device::open_by_pci(options.dpu_pci);
    if (!dev) return dev.error();
    if (!dev->has_cap(core::DevCap::mmap_from_export_pci))
        return make_error(DOCA_ERROR_NOT_SUPPORTED, "hostmem: the device at PCI " + options.dpu_pci +
                                                        " cannot import host exports (is SKIFF_SIDE=dpu?)");
    auto channel = hostmem::ControlServer::create(dev->get(), options.host_pci, options.channel);
    if (!channel) return channel.error();
    std::shared_ptr<HostmemDevice> d(
        new HostmemDevice(std::move(options), std::move(*dev), std::move(*channel)));
    d->link_ = std::thread([raw = d.get()] { raw->link_loop(); });
    return d;
}

HostmemDevice::HostmemDevice(HostmemOptions options, core::Device dev,
                             std::unique_ptr<hostmem::ControlServer> channel)
    : options_(std::move(options)), dev_(std::move(dev)), channel_(std::move(channel)) {}

HostmemDevice::~HostmemDevice() {
    stop_.store(true);
    if (link_.joinable()) link_.join();
}

// Serves the channel: each export skiff-host sends is published (the namespace turns accessible),
// its revocation or the host's departure unpublishes it (inaccessible) until the next export.
void HostmemDevice::link_loop() {
    auto log = log::get("hostmem");
    log->info("hostmem {}: waiting for skiff-host", channel_->address());
    while (!stop_.load()) {
        hostmem::ExportRecord rec;
        switch (channel_->wait(kWaitMs, rec)) {
        case hostmem::ControlServer::Event::none:
            break;
        case hostmem::ControlServer::Event::exported:
            if (rec.length < options_.size_bytes) {
                log->error("hostmem {}: skiff-host exports {} bytes, the namespace needs {}; ignored",
                           channel_->address(), rec.length, options_.size_bytes);
                if (current_export()) publish(nullptr);
                break;
            }
            records_.push_back(std::make_unique<hostmem::ExportRecord>(std::move(rec)));
            publish(records_.back().get());
            log->info("hostmem {}: imported export {} ({} bytes at host {:#x}): namespace accessible",
                      channel_->address(), records_.back()->generation, records_.back()->length,
                      records_.back()->host_addr);
            break;
        case hostmem::ControlServer::Event::lost:
            publish(nullptr);
            log->warn("hostmem {}: host revoked its export or went away: namespace inaccessible",
                      channel_->address());
            break;
        }
    }
    channel_.reset(); // stops the server on the thread that ran it
}

void HostmemDevice::publish(const hostmem::ExportRecord *record) {
    current_.store(record, std::memory_order_release);
    ana_changes_.fetch_add(1, std::memory_order_acq_rel);
}

Result<std::unique_ptr<nvmeof::target::IoChannel>>
HostmemDevice::open_channel(nvmeof::target::PollContext &ctx, const nvmeof::target::ChannelParams &params) {
    uint32_t depth = params.queue_depth ? params.queue_depth : kDefaultQueueDepth;
    auto ch = std::make_unique<hostmem::HostmemChannel>(*this, ctx, depth, params.max_io_bytes);
    if (auto st = ch->start(); !st) return st.error();
    return std::unique_ptr<nvmeof::target::IoChannel>(std::move(ch));
}

void HostmemDevice::mark_lost(const hostmem::ExportRecord *record) {
    if (record && lost_.exchange(record, std::memory_order_acq_rel) != record)
        ana_changes_.fetch_add(1, std::memory_order_acq_rel);
}

} // namespace skiff::dataplane
