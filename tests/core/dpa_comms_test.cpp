// DPA comms without an RDMA device (spec 1.20; checklist 5.7 / 5.9): attaching a verbs CQ is
// validated, the DPA RDMA calls refuse bad arguments, a device-side RDMA post with a bad handle is
// the fatal error, completions of other producers carry no work completion, and the remote-net
// sync event refuses what it cannot export or import. The RDMA traffic itself (send/receive,
// write with immediate, atomics, signals, read, submit flags) runs in the lab
// (tests/helpers/dpa_rdma_pingpong.cpp, scripts/lab-tests.sh dpa-rdma-pingpong).
#include "dpa_support.hpp"

#include <doca_ctx.h>
#include <doca_dpa_dev_rdma.h>
#include <doca_mmap.h>
#include <doca_rdma.h>
#include <skiff/core/dpa_verbs_cq.hpp>

#include <atomic>
#include <cstdio>
#include <unistd.h>
#include <fstream>
#include <iterator>

namespace {

using skiff::test::dpa_fn;
using skiff::test::eventually;

uint64_t bad_rdma_post_rpc(uint64_t) {
    doca_dpa_dev_rdma_post_send(0, 0, 0, 0, 8, DOCA_DPA_DEV_SUBMIT_FLAG_FLUSH);
    return 0;
}

uint64_t bad_receive_ack_rpc(uint64_t) {
    doca_dpa_dev_rdma_receive_ack(0, 1);
    return 0;
}

struct Seen {
    doca_dpa_dev_completion_t comp = 0;
    std::atomic<int> completions{0};
    std::atomic<int> with_wc{0};
    std::atomic<uint32_t> wr_index{99};
};

// Polls an unattached completion context (no thread): what an async-ops completion carries.
uint64_t poll_rpc(uint64_t arg) {
    auto *s = reinterpret_cast<Seen *>(arg);
    doca_dpa_dev_completion_element_t e;
    int n = 0;
    while (doca_dpa_dev_get_completion(s->comp, &e)) {
        if (skiff::core::dpa::dev_completion_verbs_wc(e) != nullptr) s->with_wc.fetch_add(1);
        s->wr_index = doca_dpa_dev_rdma_completion_get_wr_index(e);
        ++n;
    }
    if (n) doca_dpa_dev_completion_ack(s->comp, n);
    s->completions.fetch_add(n);
    return 0;
}

uint64_t memcpy_rpc(uint64_t ao, uint64_t mmap, uint64_t dst, uint64_t src) {
    doca_dpa_dev_post_memcpy(ao, mmap, dst, mmap, src, 16, DOCA_DPA_DEV_SUBMIT_FLAG_FLUSH);
    return 0;
}

std::string read_file(const std::filesystem::path &p) {
    std::ifstream in(p);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

struct DpaComms : skiff::test::DpaTest {
    void SetUp() override {
        DpaTest::SetUp();
        rpc(&bad_rdma_post_rpc, 1, "bad_rdma_post_rpc");
        rpc(&bad_receive_ack_rpc, 1, "bad_receive_ack_rpc");
        rpc(&poll_rpc, 1, "poll_rpc");
        rpc(&memcpy_rpc, 4, "memcpy_rpc");
        start();
    }
    std::string crash_report() {
        return read_file(dir / ("doca_dpa_fatal." + std::to_string(::getpid()) + ".crash"));
    }
};

} // namespace

TEST_F(DpaComms, AttachingAVerbsCqIsValidated) {
    using namespace skiff::core::dpa;
    doca_dpa_completion *comp = nullptr;
    ASSERT_EQ(doca_dpa_completion_create(dpa, 16, &comp), DOCA_SUCCESS);
    // Stand-ins: validation refuses before either is touched.
    auto *cq = reinterpret_cast<ibv_cq *>(0x1000);
    auto *channel = reinterpret_cast<ibv_comp_channel *>(0x2000);
    VerbsCqAttachment *att = nullptr;
    VerbsCqConfig cfg;
#ifdef SKIFF_HAVE_RDMA
    EXPECT_EQ(attach_verbs_cq(comp, cfg, &att), DOCA_ERROR_INVALID_VALUE) << "no CQ";
    cfg.cq = cq;
    EXPECT_EQ(attach_verbs_cq(comp, cfg, &att), DOCA_ERROR_INVALID_VALUE) << "no channel";
    cfg.channel = channel;
    EXPECT_EQ(attach_verbs_cq(nullptr, cfg, &att), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(attach_verbs_cq(comp, cfg, nullptr), DOCA_ERROR_INVALID_VALUE);
    cfg.poll_batch = 0;
    EXPECT_EQ(attach_verbs_cq(comp, cfg, &att), DOCA_ERROR_INVALID_VALUE);
    cfg.poll_batch = 65;
    EXPECT_EQ(attach_verbs_cq(comp, cfg, &att), DOCA_ERROR_INVALID_VALUE);
    cfg.poll_batch = 16;
    EXPECT_EQ(attach_verbs_cq(comp, cfg, &att), DOCA_ERROR_BAD_STATE)
        << "the completion context is not started";
#else
    cfg.cq = cq;
    cfg.channel = channel;
    EXPECT_EQ(attach_verbs_cq(comp, cfg, &att), DOCA_ERROR_NOT_SUPPORTED);
#endif
    EXPECT_EQ(att, nullptr);
    EXPECT_EQ(detach_verbs_cq(nullptr), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_dpa_completion_destroy(comp), DOCA_SUCCESS) << "a refused attach leaves nothing attached";
}

TEST_F(DpaComms, RdmaDpaCallsRefuseNullArguments) {
    doca_dpa_dev_rdma_t h = 0;
#ifdef SKIFF_HAVE_RDMA
    EXPECT_EQ(doca_rdma_get_dpa_handle(nullptr, &h), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_rdma_dpa_completion_attach(nullptr, nullptr), DOCA_ERROR_INVALID_VALUE);
#else
    EXPECT_EQ(doca_rdma_get_dpa_handle(nullptr, &h), DOCA_ERROR_NOT_SUPPORTED);
    EXPECT_EQ(doca_rdma_dpa_completion_attach(nullptr, nullptr), DOCA_ERROR_NOT_SUPPORTED);
#endif
}

#ifdef SKIFF_HAVE_RDMA
// doca_ctx.h: start is NOT_CONNECTED only when the ctx has no PE *and* no DPA data path. An RDMA
// ctx connected with doca_rdma_export / doca_rdma_connect and driven by device code (NVIDIA's
// dpa_ping_pong) never gets a PE. Here the SF names an rdma-core device that does not exist, so
// the start fails later, at the device, and the ctx stays IDLE.
TEST_F(DpaComms, AnRdmaCtxOnTheDpaStartsWithoutAProgressEngine) {
    char path[] = "/tmp/skiff-topology-XXXXXX";
    int fd = mkstemp(path);
    ASSERT_GE(fd, 0);
    close(fd);
    std::ofstream(path) << R"({"dpu":[{"name":"p0s0","pci":"03:00.0","type":"sf","caps":["rdma","dpa"],)"
                           R"("ibdev":"skiff-no-such-ibdev"}]})";
    skiff::test::ScopedEnv topo("SKIFF_TOPOLOGY", path);
    doca_devinfo **list = nullptr;
    uint32_t n = 0;
    ASSERT_EQ(doca_devinfo_create_list(&list, &n), DOCA_SUCCESS);
    doca_dev *sf = nullptr;
    for (uint32_t i = 0; i < n && !sf; ++i) {
        char ibdev[DOCA_DEVINFO_IBDEV_NAME_SIZE] = {};
        doca_devinfo_get_ibdev_name(list[i], ibdev, sizeof(ibdev));
        if (std::string(ibdev) == "skiff-no-such-ibdev") {
            ASSERT_EQ(doca_dev_open(list[i], &sf), DOCA_SUCCESS);
        }
    }
    doca_devinfo_destroy_list(list);
    ASSERT_NE(sf, nullptr);
    for (bool on_dpa : {false, true}) {
        doca_rdma *rdma = nullptr;
        ASSERT_EQ(doca_rdma_create(sf, &rdma), DOCA_SUCCESS);
        doca_ctx *ctx = doca_rdma_as_ctx(rdma);
        if (on_dpa) {
            ASSERT_EQ(doca_ctx_set_datapath_on_dpa(ctx, dpa), DOCA_SUCCESS);
        }
        doca_error_t r = doca_ctx_start(ctx);
        if (on_dpa) {
            EXPECT_NE(r, DOCA_ERROR_NOT_CONNECTED) << "a DPA data path needs no PE";
        } else {
            EXPECT_EQ(r, DOCA_ERROR_NOT_CONNECTED) << "a host data path needs a PE";
        }
        EXPECT_NE(r, DOCA_SUCCESS) << "the named rdma-core device does not exist";
        doca_ctx_states s{};
        EXPECT_EQ(doca_ctx_get_state(ctx, &s), DOCA_SUCCESS);
        EXPECT_EQ(s, DOCA_CTX_STATE_IDLE);
        EXPECT_EQ(doca_rdma_destroy(rdma), DOCA_SUCCESS);
    }
    EXPECT_EQ(doca_dev_close(sf), DOCA_SUCCESS);
    std::remove(path);
}
#endif

// doca_mmap.h: with a DPA memrange "adding DOCA devices using doca_mmap_add_dev() is not allowed";
// the mmap's device is the DPA context's, which NVIDIA's dpa_ping_pong then names in
// doca_mmap_dev_get_dpa_handle and doca_mmap_export_rdma. Another device stays foreign to it.
TEST_F(DpaComms, ADpaMemrangeMmapBelongsToTheDpaContextsDevice) {
    doca_dpa_dev_uintptr_t mem = 0;
    ASSERT_EQ(doca_dpa_mem_alloc(dpa, 64, &mem), DOCA_SUCCESS);
    doca_mmap *mmap = nullptr;
    ASSERT_EQ(doca_mmap_create(&mmap), DOCA_SUCCESS);
    ASSERT_EQ(
        doca_mmap_set_permissions(mmap, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_WRITE),
        DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_set_dpa_memrange(mmap, dpa, mem, 64), DOCA_SUCCESS);
    EXPECT_EQ(doca_mmap_set_dpa_memrange(mmap, dpa, mem, 64), DOCA_ERROR_NOT_PERMITTED) << "set once";
    EXPECT_EQ(doca_mmap_add_dev(mmap, dev), DOCA_ERROR_NOT_PERMITTED);
    ASSERT_EQ(doca_mmap_start(mmap), DOCA_SUCCESS);
    doca_dpa_dev_mmap_t h = 0;
    EXPECT_EQ(doca_mmap_dev_get_dpa_handle(mmap, dev, &h), DOCA_SUCCESS);
    doca_dev *other = skiff::test::open_dpu_p1();
    ASSERT_NE(other, nullptr);
    const void *blob = nullptr;
    size_t len = 0;
    EXPECT_EQ(doca_mmap_export_rdma(mmap, other, &blob, &len), DOCA_ERROR_NOT_FOUND)
        << "p1 is not the mmap's";
    // p0 is the mmap's device: the export goes on to the device, which (no rdma cap) cannot do it.
    EXPECT_NE(doca_mmap_export_rdma(mmap, dev, &blob, &len), DOCA_ERROR_NOT_FOUND);
    EXPECT_EQ(doca_mmap_destroy(mmap), DOCA_SUCCESS);
    EXPECT_EQ(doca_dev_close(other), DOCA_SUCCESS);
    EXPECT_EQ(doca_dpa_mem_free(dpa, mem), DOCA_SUCCESS);
}

TEST_F(DpaComms, AnRdmaPostWithABadHandleIsTheFatalError) {
    uint64_t r = 0;
    EXPECT_EQ(doca_dpa_rpc(dpa, dpa_fn(&bad_rdma_post_rpc), &r, uint64_t{0}), DOCA_ERROR_BAD_STATE);
    EXPECT_EQ(doca_dpa_peek_at_last_error(dpa), DOCA_ERROR_BAD_STATE);
    std::string report = crash_report();
    EXPECT_NE(report.find("doca_dpa_dev_rdma_post_send"), std::string::npos) << report;
}

TEST_F(DpaComms, AReceiveAckWithABadHandleIsTheFatalError) {
    uint64_t r = 0;
    EXPECT_EQ(doca_dpa_rpc(dpa, dpa_fn(&bad_receive_ack_rpc), &r, uint64_t{0}), DOCA_ERROR_BAD_STATE);
    EXPECT_EQ(doca_dpa_peek_at_last_error(dpa), DOCA_ERROR_BAD_STATE);
}

// Only completions from an attached verbs CQ (or doca_rdma on the DPA) carry a work completion.
TEST_F(DpaComms, AsyncOpsCompletionsCarryNoWorkCompletion) {
    Seen s;
    doca_dpa_completion *comp = nullptr;
    ASSERT_EQ(doca_dpa_completion_create(dpa, 16, &comp), DOCA_SUCCESS);
    ASSERT_EQ(doca_dpa_completion_start(comp), DOCA_SUCCESS);
    ASSERT_EQ(doca_dpa_completion_get_dpa_handle(comp, &s.comp), DOCA_SUCCESS);
    doca_dpa_async_ops *ao = nullptr;
    ASSERT_EQ(doca_dpa_async_ops_create(dpa, 4, 7, &ao), DOCA_SUCCESS);
    ASSERT_EQ(doca_dpa_async_ops_attach(ao, comp), DOCA_SUCCESS);
    ASSERT_EQ(doca_dpa_async_ops_start(ao), DOCA_SUCCESS);
    doca_dpa_dev_async_ops_t ao_h = 0;
    ASSERT_EQ(doca_dpa_async_ops_get_dpa_handle(ao, &ao_h), DOCA_SUCCESS);
    std::vector<uint8_t> memory(64, 0x5a);
    doca_mmap *mmap = nullptr;
    ASSERT_EQ(doca_mmap_create(&mmap), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_add_dev(mmap, dev), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_set_memrange(mmap, memory.data(), memory.size()), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_start(mmap), DOCA_SUCCESS);
    doca_dpa_dev_mmap_t mmap_h = 0;
    ASSERT_EQ(doca_mmap_dev_get_dpa_handle(mmap, dev, &mmap_h), DOCA_SUCCESS);

    uint64_t r = 0;
    auto base = reinterpret_cast<uint64_t>(memory.data());
    ASSERT_EQ(doca_dpa_rpc(dpa, dpa_fn(&memcpy_rpc), &r, ao_h, uint64_t{mmap_h}, base + 32, base),
              DOCA_SUCCESS);
    ASSERT_TRUE(eventually([&] {
        uint64_t x = 0;
        doca_dpa_rpc(dpa, dpa_fn(&poll_rpc), &x, reinterpret_cast<uint64_t>(&s));
        return s.completions.load() == 1;
    }));
    EXPECT_EQ(s.with_wc.load(), 0);
    EXPECT_EQ(s.wr_index.load(), 0u) << "no RDMA work request behind it";
    EXPECT_EQ(doca_dpa_peek_at_last_error(dpa), DOCA_SUCCESS);

    EXPECT_EQ(doca_dpa_async_ops_stop(ao), DOCA_SUCCESS);
    EXPECT_EQ(doca_dpa_async_ops_destroy(ao), DOCA_SUCCESS);
    EXPECT_EQ(doca_dpa_completion_stop(comp), DOCA_SUCCESS);
    EXPECT_EQ(doca_dpa_completion_destroy(comp), DOCA_SUCCESS);
    EXPECT_EQ(doca_mmap_stop(mmap), DOCA_SUCCESS);
    EXPECT_EQ(doca_mmap_destroy(mmap), DOCA_SUCCESS);
}

TEST_F(DpaComms, RemoteNetSyncEventRefusesWhatItCannotExport) {
    doca_sync_event *ev = nullptr;
    ASSERT_EQ(doca_sync_event_create(&ev), DOCA_SUCCESS);
    ASSERT_EQ(doca_sync_event_add_publisher_location_cpu(ev, dev), DOCA_SUCCESS);
    ASSERT_EQ(doca_sync_event_add_subscriber_location_cpu(ev, dev), DOCA_SUCCESS);
    const uint8_t *data = nullptr;
    size_t sz = 0;
    EXPECT_EQ(doca_sync_event_export_to_remote_net(ev, &data, &sz), DOCA_ERROR_NOT_PERMITTED)
        << "no remote-net publisher";
    ASSERT_EQ(doca_sync_event_add_publisher_location_remote_net(ev), DOCA_SUCCESS);
    EXPECT_EQ(doca_sync_event_export_to_remote_net(ev, &data, &sz), DOCA_ERROR_BAD_STATE) << "not started";
    ASSERT_EQ(doca_sync_event_start(ev), DOCA_SUCCESS);
    EXPECT_EQ(doca_sync_event_add_publisher_location_remote_net(ev), DOCA_ERROR_BAD_STATE) << "after start";
    EXPECT_EQ(doca_sync_event_export_to_remote_net(ev, &data, &sz), DOCA_ERROR_NOT_SUPPORTED)
        << "p0 has no RDMA to register the counter on";
    EXPECT_EQ(doca_sync_event_export_to_remote_net(ev, nullptr, &sz), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_sync_event_stop(ev), DOCA_SUCCESS);
    EXPECT_EQ(doca_sync_event_destroy(ev), DOCA_SUCCESS);
}

TEST_F(DpaComms, RemoteNetSyncEventImportChecksTheDescriptor) {
    doca_sync_event_remote_net *rn = nullptr;
    const uint8_t junk[16] = {1, 2, 3, 4};
    EXPECT_EQ(doca_sync_event_remote_net_create_from_export(dev, junk, sizeof junk, &rn),
              DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_sync_event_remote_net_create_from_export(dev, junk, 0, &rn), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_sync_event_remote_net_create_from_export(nullptr, junk, sizeof junk, &rn),
              DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(rn, nullptr);
    doca_dpa_dev_sync_event_remote_net_t h = 0;
    EXPECT_EQ(doca_sync_event_remote_net_get_dpa_handle(nullptr, dpa, &h), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_sync_event_remote_net_destroy(nullptr), DOCA_ERROR_INVALID_VALUE);
}
