// The PollContext of an NVMe/RDMA I/O queue on the dpa data path (nvmeof/TARGET.md, "The dpa
// data path"): synchronous backends open channels on it and complete inside submit; a backend
// that needs a poll loop (aio) cannot open one, with a message saying why.
#include "../../nvmeof/src/rdma/dpa_poll_context.hpp"
#include "skiff/dataplane/aio_device.hpp"
#include "skiff/dataplane/ram_device.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <unistd.h>

namespace skiff::test {
namespace {

namespace tgt = nvmeof::target;

TEST(DpaPollContext, RamCompletesInsideSubmit) {
    nvmeof::rdma::DpaPollContext ctx(40);
    EXPECT_EQ(ctx.index(), 40);
    EXPECT_EQ(ctx.progress_engine(), nullptr);
    auto dev = dataplane::RamDevice::create(1 << 20);
    ASSERT_TRUE(dev.ok()) << dev.error().message;
    auto ch = (*dev)->open_channel(ctx, {.max_io_bytes = 4096, .queue_depth = 0});
    ASSERT_TRUE(ch.ok()) << ch.error().message;

    alignas(4096) static uint8_t out[4096], in[4096];
    std::memset(out, 0x5A, sizeof(out));
    struct Done {
        int calls = 0;
        uint16_t status = 0xFFFF;
    } done;
    auto on_done = [](tgt::BackendIo &io, uint16_t status) {
        auto *d = static_cast<Done *>(io.owner);
        ++d->calls;
        d->status = status;
    };
    tgt::BackendIo w{
        .op = tgt::IoOp::kWrite, .offset = 8192, .len = 4096, .buf = out, .done = on_done, .owner = &done};
    (*ch)->submit(w);
    EXPECT_EQ(done.calls, 1); // no loop to come back to: done before submit returned
    EXPECT_EQ(done.status, 0);
    tgt::BackendIo r{
        .op = tgt::IoOp::kRead, .offset = 8192, .len = 4096, .buf = in, .done = on_done, .owner = &done};
    (*ch)->submit(r);
    EXPECT_EQ(done.calls, 2);
    EXPECT_EQ(std::memcmp(in, out, sizeof(in)), 0);
}

TEST(DpaPollContext, AioCannotOpenAChannelAndSaysWhy) {
    nvmeof::rdma::DpaPollContext ctx(33);
    std::string path = std::filesystem::temp_directory_path() / ("skiff-dpa-aio-" + std::to_string(getpid()));
    auto dev =
        dataplane::AioDevice::open({.path = path, .buffered = true, .size_bytes = 1 << 20, .create = true});
    ASSERT_TRUE(dev.ok()) << dev.error().message;
    auto ch = (*dev)->open_channel(ctx, {.max_io_bytes = 4096, .queue_depth = 8});
    std::filesystem::remove(path);
    ASSERT_FALSE(ch.ok());
    EXPECT_NE(ch.error().message.find("the dpa data path has no poll loop"), std::string::npos)
        << ch.error().message;
}

} // namespace
} // namespace skiff::test
