// A PollContext's channel table keeps each namespace's device alive while its channel exists
// (nvmeof/include/skiff/nvmeof/target/poll_context.hpp). These tests prove that the table lets
// go of the devices of namespaces that are gone, also on a context that no poll group's loop
// sweeps: PollContext::inline_context() lives as long as its thread.
#include "skiff/dataplane/ram_device.hpp"
#include "skiff/nvmeof/target/namespace.hpp"
#include "skiff/nvmeof/target/poll_context.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <thread>

namespace skiff::test {
namespace {

namespace tgt = nvmeof::target;

std::shared_ptr<tgt::Namespace> ram_namespace(uint32_t nsid, std::weak_ptr<tgt::BlockDevice> &device) {
    auto dev = dataplane::RamDevice::create(1 << 20);
    EXPECT_TRUE(dev.ok()) << dev.error().message;
    device = *dev;
    return std::make_shared<tgt::Namespace>(nsid, 512, *dev,
                                            tgt::derive_namespace_ids("nqn.2026-11.io.skiff:poll-ctx", nsid));
}

// Runs in a thread of its own: the inline context is per thread, and this one starts empty.
template <typename F>
void on_a_new_thread(F f) {
    std::thread t(f);
    t.join();
}

TEST(PollContextChannels, TheInlineContextReleasesTheDeviceOfARemovedNamespace) {
    on_a_new_thread([] {
        tgt::PollContext &ctx = tgt::PollContext::inline_context();
        std::weak_ptr<tgt::BlockDevice> first_device, second_device;
        auto first = ram_namespace(1, first_device);
        ASSERT_NE(ctx.channel(*first, {.max_io_bytes = 4096, .queue_depth = 0}), nullptr);
        first.reset(); // the namespace is removed; only the channel table still holds its device
        EXPECT_FALSE(first_device.expired());

        // The next namespace's first I/O opens a channel, and the dead one's goes.
        auto second = ram_namespace(2, second_device);
        ASSERT_NE(ctx.channel(*second, {.max_io_bytes = 4096, .queue_depth = 0}), nullptr);
        EXPECT_TRUE(first_device.expired());
        EXPECT_FALSE(second_device.expired());
        ctx.close_channels();
        second.reset();
        EXPECT_TRUE(second_device.expired());
    });
}

TEST(PollContextChannels, AChannelOfALiveNamespaceStaysOpenWhenAnotherOpens) {
    on_a_new_thread([] {
        tgt::PollContext &ctx = tgt::PollContext::inline_context();
        std::weak_ptr<tgt::BlockDevice> d1, d2;
        auto ns1 = ram_namespace(1, d1);
        auto ns2 = ram_namespace(2, d2);
        tgt::IoChannel *c1 = ctx.channel(*ns1, {.max_io_bytes = 4096, .queue_depth = 0});
        ASSERT_NE(c1, nullptr);
        ASSERT_NE(ctx.channel(*ns2, {.max_io_bytes = 4096, .queue_depth = 0}), nullptr);
        // The same channel as before: the sweep did not close a live namespace's.
        EXPECT_EQ(ctx.channel(*ns1, {.max_io_bytes = 4096, .queue_depth = 0}), c1);
        ctx.close_channels();
    });
}

} // namespace
} // namespace skiff::test
