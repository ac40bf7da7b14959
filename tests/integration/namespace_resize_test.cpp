// Growing a namespace while a host is connected: `skiff-ctl namespace resize` on the real
// skiff-target, the host gets the namespace-attribute-changed event naming it, reads the new
// size, keeps its data and writes at the new end, all without reconnecting.
#include "async_events.hpp"
#include "target_fixture.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>

namespace skiff::itest {
namespace {

namespace host = nvmeof::host;

class NamespaceResizeTest : public TargetTest {
  protected:
    void SetUp() override {
        char tmpl[] = "/tmp/skiff-resize-XXXXXX";
        dir_ = ::mkdtemp(tmpl);
        socket_ = dir_ + "/ctl.sock";
    }
    void TearDown() override {
        target_.reset();
        std::filesystem::remove_all(dir_);
    }
    // A host whose admin queue the test drives itself, with namespace notices enabled.
    std::unique_ptr<host::Controller> connect_host() {
        host::ConnectOptions o = options();
        o.kato_ms = 0;
        o.auto_keep_alive = false;
        auto c = connect(o);
        if (c) {
            EXPECT_TRUE(c->set_features(NVME_FEAT_FID_ASYNC_EVENT, 1u << 8).ok());
        }
        return c;
    }
    uint64_t nsze(host::Controller &c) {
        auto id = c.identify_namespace(1);
        EXPECT_TRUE(id.ok());
        return id.ok() ? id->nsze : 0;
    }
    // Grows namespace 1 to `size` and checks what the host sees: the event, the new size, the
    // old data in place, I/O at the new end.
    void grow_and_check(host::Controller &c, const std::string &size, uint64_t bytes) {
        const uint64_t old_blocks = nsze(c);
        const std::vector<uint8_t> old_tail = pattern(4096, 11);
        ASSERT_OK(c.write(0, 1, old_blocks - 8, 8, old_tail.data(), 4096));
        uint16_t aer = park_aer(c);

        CommandOutput r = run_ctl(socket_, "namespace resize " + std::string(kNqn) + " 1 --size " + size);
        ASSERT_EQ(r.exit_code, 0) << r.output;
        EXPECT_NE(r.output.find("grew to " + std::to_string(bytes) + " bytes"), std::string::npos)
            << r.output;
        auto result = wait_aer(c, aer);
        ASSERT_TRUE(result) << "no namespace-attribute-changed event";
        EXPECT_EQ(*result, uint32_t(NVME_AER_NOTICE | (NVME_LOG_LID_CHANGED_NS << 16)));
        EXPECT_EQ(changed_list(c), std::vector<uint32_t>{1});
        EXPECT_EQ(nsze(c), bytes / kBlock);

        std::vector<uint8_t> back(4096);
        ASSERT_OK(c.read(0, 1, old_blocks - 8, 8, back.data(), 4096));
        EXPECT_EQ(back, old_tail) << "data moved or was lost in the resize";
        const std::vector<uint8_t> new_tail = pattern(4096, 12);
        ASSERT_OK(c.write(0, 1, bytes / kBlock - 8, 8, new_tail.data(), 4096));
        ASSERT_OK(c.read(0, 1, bytes / kBlock - 8, 8, back.data(), 4096));
        EXPECT_EQ(back, new_tail);
        EXPECT_FALSE(c.read(0, 1, bytes / kBlock, 8, back.data(), 4096).ok()) << "read past the new end";
    }

    std::string dir_, socket_;
};

TEST_F(NamespaceResizeTest, ARamNamespaceGrowsUnderAConnectedHost) {
    start_target({"--size", "64MiB", "--management-socket", socket_});
    auto c = connect_host();
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(nsze(*c), (64ull << 20) / kBlock);
    grow_and_check(*c, "128MiB", 128ull << 20);

    // The running configuration says so (save writes the new size).
    CommandOutput list = run_ctl(socket_, "list");
    ASSERT_EQ(list.exit_code, 0) << list.output;
    auto doc = nlohmann::json::parse(list.output);
    ASSERT_EQ(doc["config"]["backends"].size(), 1u);
    EXPECT_EQ(doc["config"]["backends"][0]["size"], "128MiB") << doc["config"]["backends"][0].dump();

    // No shrinking, nothing past the RAM reservation; the namespace keeps its size.
    CommandOutput shrink = run_ctl(socket_, "namespace resize " + std::string(kNqn) + " 1 --size 64MiB");
    EXPECT_NE(shrink.exit_code, 0);
    EXPECT_NE(shrink.output.find("does not shrink"), std::string::npos) << shrink.output;
    CommandOutput huge = run_ctl(socket_, "namespace resize " + std::string(kNqn) + " 1 --size 1GiB");
    EXPECT_NE(huge.exit_code, 0);
    EXPECT_NE(huge.output.find("times the size it started with"), std::string::npos) << huge.output;
    EXPECT_EQ(nsze(*c), (128ull << 20) / kBlock);
    CommandOutput none = run_ctl(socket_, "namespace resize " + std::string(kNqn) + " 7 --size 1GiB");
    EXPECT_NE(none.exit_code, 0);
    EXPECT_NE(none.output.find("no namespace 7"), std::string::npos) << none.output;
}

TEST_F(NamespaceResizeTest, AnAioFileNamespaceGrowsAndTheFileWithIt) {
    const std::string file = dir_ + "/ns1.img";
    start_target({"--backend", "aio", "--path", file, "--size", "32MiB", "--management-socket", socket_});
    auto c = connect_host();
    ASSERT_NE(c, nullptr);
    grow_and_check(*c, "96MiB", 96ull << 20);
    EXPECT_EQ(std::filesystem::file_size(file), 96ull << 20);
}

TEST_F(NamespaceResizeTest, ANullNamespaceGrows) {
    start_target({"--backend", "null", "--size", "64MiB", "--management-socket", socket_});
    auto c = connect_host();
    ASSERT_NE(c, nullptr);
    CommandOutput r = run_ctl(socket_, "namespace resize " + std::string(kNqn) + " 1 --size 1TiB");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(nsze(*c), (1ull << 40) / kBlock);
}

} // namespace
} // namespace skiff::itest
