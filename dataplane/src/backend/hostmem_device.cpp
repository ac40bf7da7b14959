#include "skiff/dataplane/hostmem_device.hpp"

#include "hostmem_channel.hpp"
#include "skiff/core/log.hpp"
#include "skiff/nvmeof/wire/command.hpp"

#include <nvme/types.h>

#include <algorithm>
#include <cstring>

namespace skiff::dataplane {
namespace {

constexpr uint32_t kDefaultQueueDepth = 128; // DMA tasks per channel
constexpr int kBackoffFirstMs = 50;
constexpr int kBackoffMaxMs = 1000;
constexpr int kHealthPeriodMs = 100; // how often the link looks at the channel

} // namespace

Result<std::shared_ptr<HostmemDevice>> HostmemDevice::create(HostmemOptions options) {
    if (options.size_bytes == 0 || options.size_bytes % 4096)
        return make_error(DOCA_ERROR_INVALID_VALUE, "hostmem namespace size " +
                                                        std::to_string(options.size_bytes) +
                                                        " is not a non-zero multiple of 4096 bytes");
    if (options.channel.empty())
        return make_error(DOCA_ERROR_INVALID_VALUE, "hostmem: the control channel path is empty");
    auto dev = core::Device::open_by_pci(options.dpu_pci);
    if (!dev) return dev.error();
    if (!dev->has_cap(core::DevCap::mmap_from_export_pci))
        return make_error(DOCA_ERROR_NOT_SUPPORTED, "hostmem: the device at PCI " + options.dpu_pci +
                                                        " cannot import host exports (is SKIFF_SIDE=dpu?)");
    std::shared_ptr<HostmemDevice> d(new HostmemDevice(std::move(options), std::move(*dev)));
    d->link_ = std::thread([raw = d.get()] { raw->link_loop(); });
    return d;
}

HostmemDevice::HostmemDevice(HostmemOptions options, core::Device dev)
    : options_(std::move(options)), dev_(std::move(dev)),
      channel_(hostmem::make_unix_control_client(options_.channel)) {}

HostmemDevice::~HostmemDevice() {
    stop_.store(true);
    if (link_.joinable()) link_.join();
}

// Connect, fetch the export, publish it, watch for loss; after a loss or a failed attempt wait
// (doubling up to kBackoffMaxMs) and try again.
void HostmemDevice::link_loop() {
    auto log = log::get("hostmem");
    int backoff = kBackoffFirstMs;
    bool reported = false;
    while (!stop_.load()) {
        Result<hostmem::ExportRecord> rec = make_error(DOCA_ERROR_NOT_CONNECTED, "");
        if (auto st = channel_->connect(); !st) {
            rec = st.error();
        } else {
            rec = channel_->fetch_export();
        }
        if (rec && rec->length < options_.size_bytes)
            rec = make_error(DOCA_ERROR_INVALID_VALUE, "skiff-host exports " + std::to_string(rec->length) +
                                                           " bytes, the namespace needs " +
                                                           std::to_string(options_.size_bytes));
        if (!rec) {
            if (!reported) log->warn("hostmem {}: {}; retrying", channel_->address(), rec.error().message);
            reported = true;
            channel_->close();
            for (int waited = 0; waited < backoff && !stop_.load(); waited += 10)
                std::this_thread::sleep_for(std::chrono::milliseconds(10));
            backoff = std::min(backoff * 2, kBackoffMaxMs);
            continue;
        }
        records_.push_back(std::make_unique<hostmem::ExportRecord>(std::move(*rec)));
        publish(records_.back().get());
        log->info("hostmem {}: imported export {} ({} bytes at host {:#x}): namespace accessible",
                  channel_->address(), records_.back()->generation, records_.back()->length,
                  records_.back()->host_addr);
        backoff = kBackoffFirstMs;
        reported = false;
        while (!stop_.load() && !channel_->wait_for_loss(kHealthPeriodMs)) {
        }
        if (stop_.load()) break;
        publish(nullptr);
        log->warn("hostmem {}: host revoked its export or went away: namespace inaccessible",
                  channel_->address());
    }
    channel_->close();
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
