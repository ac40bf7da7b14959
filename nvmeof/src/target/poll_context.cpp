#include "skiff/nvmeof/target/poll_context.hpp"

#include "skiff/core/log.hpp"
#include "skiff/nvmeof/target/io_gate.hpp"
#include "skiff/nvmeof/target/namespace.hpp"

#include <algorithm>

namespace skiff::nvmeof::target {

struct PollContext::Channel {
    std::weak_ptr<Namespace> ns; // expires when the namespace is gone
    bool watched = false;        // ns was shared-owned at open (else never swept)
    std::shared_ptr<BlockDevice> device;
    std::unique_ptr<IoChannel> io; // nullptr: opening failed (logged once)
};

PollContext::PollContext() = default;

PollContext::~PollContext() {
    close_channels();
}

IoChannel *PollContext::channel(Namespace &ns, const ChannelParams &params) {
    // uids start at 1 (namespace.cpp), so last_uid_ 0 matches none.
    if (ns.uid() == last_uid_) return last_;
    if (auto it = channels_.find(ns.uid()); it != channels_.end()) {
        last_uid_ = ns.uid();
        return last_ = it->second.io.get();
    }
    // First I/O of this namespace on this group: open its channel (allocates, once). Channels
    // of namespaces that are gone go first: a context that no loop sweeps (inline_context(),
    // one per thread for its whole life) would otherwise keep every device it ever served alive.
    sweep_channels();
    Channel c;
    c.ns = ns.weak_from_this();
    c.watched = !c.ns.expired();
    c.device = ns.device_ptr();
    auto opened = c.device->open_channel(*this, params);
    if (opened)
        c.io = std::move(*opened);
    else
        skiff::log::get("nvmeof")->error("poll group {}: cannot open a {} channel for namespace {}: {}",
                                         index(), c.device->kind(), ns.nsid(), opened.error().message);
    IoChannel *io = c.io.get();
    channels_.emplace(ns.uid(), std::move(c));
    last_uid_ = ns.uid();
    return last_ = io;
}

uint32_t PollContext::io_in_flight() const {
    uint32_t n = 0;
    for (const auto &[uid, c] : channels_)
        if (c.io) n += c.io->in_flight();
    return n;
}

void PollContext::sweep_channels() {
    const size_t before = channels_.size();
    std::erase_if(channels_, [](const auto &entry) {
        const Channel &c = entry.second;
        return c.watched && c.ns.expired() && (!c.io || c.io->in_flight() == 0);
    });
    if (channels_.size() != before) last_uid_ = 0, last_ = nullptr;
}

void PollContext::close_channels() {
    // Channels before their devices (member order of Channel does the rest).
    for (auto &[uid, c] : channels_) c.io.reset();
    channels_.clear();
    last_uid_ = 0;
    last_ = nullptr;
}

namespace {

// No loop: nothing to watch, no progress engine; synchronous backends need neither.
class InlineContext final : public PollContext {
  public:
    doca_pe *progress_engine() const override { return nullptr; }
    Status watch_fd(int, FdHandler, void *) override {
        return make_error(DOCA_ERROR_NOT_SUPPORTED,
                          "this queue is not driven by a poll group (no loop to watch completions in)");
    }
    void unwatch_fd(int) override {}
    int index() const override { return IoGate::thread_lane(); }
};

} // namespace

PollContext &PollContext::inline_context() {
    thread_local InlineContext ctx;
    return ctx;
}

} // namespace skiff::nvmeof::target
