// DOCA Comch data path (doca_comch_producer / doca_comch_consumer) between two real processes:
// a tests/helpers/comch_peer server (DPU p0 + hpf0) and a comch_peer client (host pf0), each with
// its consumer and producer on their own PEs. The test drives both through their stdin and reads
// what they report. Each test uses its own SKIFF_COMCH_DIR.
#include <doca_comch.h>
#include <doca_comch_consumer.h>
#include <doca_comch_producer.h>
#include <doca_dev.h>

#include "comch_peer_process.hpp"
#include "mmap_fixture.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

namespace {

using skiff::test::ComchPeerProcess;

class ComchDir {
  public:
    ComchDir() {
        char tmpl[] = "/tmp/skiff-comch-dp-XXXXXX";
        dir_ = ::mkdtemp(tmpl);
        env_.emplace("SKIFF_COMCH_DIR", dir_);
    }
    ~ComchDir() {
        env_.reset();
        std::string cmd = "rm -rf " + dir_;
        (void)std::system(cmd.c_str());
    }

  private:
    std::string dir_;
    std::optional<skiff::test::ScopedEnv> env_;
};

// The number after `prefix` in a line "<prefix><number>".
std::string after(const std::string &line, const std::string &prefix) {
    return line.rfind(prefix, 0) == 0 ? line.substr(prefix.size()) : std::string("<missing: ") + prefix + ">";
}

// A server and a client process, connected.
struct Pair {
    ComchDir dir;
    ComchPeerProcess server{"server", "skiff-dp"};
    ComchPeerProcess client{"client", "skiff-dp"};
    Pair() {
        EXPECT_EQ(server.wait_for("CONNECTED"), "CONNECTED 1 1");
        EXPECT_EQ(client.wait_for("STATE RUNNING"), "STATE RUNNING");
    }
    // A consumer on `side` (k: the connection there) posting n buffers; its id as the other side
    // announced it.
    std::string consumer(ComchPeerProcess &side, ComchPeerProcess &other, int k, int other_k, int n,
                         size_t bytes) {
        side.command("CONSUMER " + std::to_string(k) + " " + std::to_string(n) + " " + std::to_string(bytes));
        std::string id = after(side.wait_for("CONSUMER_ID "), "CONSUMER_ID ");
        EXPECT_EQ(side.wait_for("CONSUMER_START"), "CONSUMER_START DOCA_ERROR_IN_PROGRESS");
        EXPECT_EQ(side.wait_for("CONSUMER_STATE RUNNING"), "CONSUMER_STATE RUNNING");
        EXPECT_EQ(other.wait_for("CONSUMER_NEW"), "CONSUMER_NEW " + std::to_string(other_k) + " " + id);
        return id;
    }
    std::string producer(ComchPeerProcess &side, int k) {
        side.command("PRODUCER " + std::to_string(k));
        return after(side.wait_for("PRODUCER_ID "), "PRODUCER_ID ");
    }
    ~Pair() {
        EXPECT_EQ(client.exit_normally(), 0);
        EXPECT_EQ(server.exit_normally(), 0);
    }
};

} // namespace

TEST(ComchDataPath, CapsNameTheLimitsOnBothSides) {
    doca_dev *pf0 = skiff::test::open_host_pf0();
    doca_dev *p0 = skiff::test::open_dpu_p0();
    for (doca_dev *d : {pf0, p0}) {
        const doca_devinfo *info = doca_dev_as_devinfo(d);
        uint32_t v = 0;
        EXPECT_EQ(doca_comch_producer_cap_is_supported(info), DOCA_SUCCESS);
        EXPECT_EQ(doca_comch_consumer_cap_is_supported(info), DOCA_SUCCESS);
        ASSERT_EQ(doca_comch_consumer_cap_get_max_imm_data_len(info, &v), DOCA_SUCCESS);
        EXPECT_EQ(v, 32u);
        ASSERT_EQ(doca_comch_producer_cap_get_max_buf_size(info, &v), DOCA_SUCCESS);
        EXPECT_EQ(v, 65536u);
        ASSERT_EQ(doca_comch_consumer_cap_get_max_buf_size(info, &v), DOCA_SUCCESS);
        EXPECT_EQ(v, 65536u);
        ASSERT_EQ(doca_comch_producer_cap_get_max_buf_list_len(info, &v), DOCA_SUCCESS);
        EXPECT_EQ(v, 1u);
        ASSERT_EQ(doca_comch_consumer_cap_get_max_num_tasks(info, &v), DOCA_SUCCESS);
        EXPECT_GE(v, 1024u);
        ASSERT_EQ(doca_comch_producer_cap_get_max_producers(info, &v), DOCA_SUCCESS);
        EXPECT_GE(v, 1u);
        ASSERT_EQ(doca_comch_consumer_cap_get_max_consumers(info, &v), DOCA_SUCCESS);
        EXPECT_GE(v, 1u);
    }
    uint32_t v = 0;
    EXPECT_EQ(doca_comch_producer_cap_get_max_buf_size(nullptr, &v), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_comch_consumer_cap_is_supported(nullptr), DOCA_ERROR_INVALID_VALUE);
    doca_comch_producer *p = nullptr;
    doca_comch_consumer *c = nullptr;
    EXPECT_EQ(doca_comch_producer_create(nullptr, &p), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_comch_consumer_create(nullptr, nullptr, &c), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_comch_producer_destroy(nullptr), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_dev_close(pf0), DOCA_SUCCESS);
    EXPECT_EQ(doca_dev_close(p0), DOCA_SUCCESS);
}

// The server's producer fills the client's posted buffers in order, with the immediate data and
// the producer id; then the other way round; a consumer that stops is announced as expired and
// a send to it fails with NOT_FOUND.
TEST(ComchDataPath, ProducerFillsPostedBuffersInOrderBothWaysAndExpiryIsAnnounced) {
    Pair pair;
    std::string cid = pair.consumer(pair.client, pair.server, 0, 1, 4, 256);
    std::string pid = pair.producer(pair.server, 1);
    for (int i = 0; i < 10; ++i) { // more sends than posted buffers: the client reposts each one
        std::string body = "payload-" + std::to_string(i);
        pair.server.command("PRODUCE " + cid + " imm" + std::to_string(i) + " " + body);
        EXPECT_EQ(pair.server.wait_for("PS"), "PSENT");
        EXPECT_EQ(pair.client.wait_for("CRECV"), "CRECV " + pid + " imm" + std::to_string(i) + " " +
                                                     std::to_string(body.size()) + " " + body);
    }
    // No immediate data: the consumer sees none.
    pair.server.command("PRODUCE " + cid + " - plain");
    EXPECT_EQ(pair.server.wait_for("PS"), "PSENT");
    EXPECT_EQ(pair.client.wait_for("CRECV"), "CRECV " + pid + " - 5 plain");

    // The other direction: a consumer on the server, a producer on the client.
    std::string cid2 = pair.consumer(pair.server, pair.client, 1, 0, 2, 64);
    EXPECT_NE(cid2, cid);
    std::string pid2 = pair.producer(pair.client, 0);
    pair.client.command("PRODUCE " + cid2 + " up hello-dpu");
    EXPECT_EQ(pair.client.wait_for("PS"), "PSENT");
    EXPECT_EQ(pair.server.wait_for("CRECV"), "CRECV " + pid2 + " up 9 hello-dpu");

    // The client's consumer goes: the server hears of it, and its sends to it fail.
    pair.client.command("CONSUMER_STOP");
    EXPECT_EQ(pair.client.wait_for("CONSUMER_GONE"), "CONSUMER_GONE");
    EXPECT_EQ(pair.server.wait_for("CONSUMER_EXPIRED"), "CONSUMER_EXPIRED 1 " + cid);
    pair.server.command("PRODUCE " + cid + " - too-late");
    EXPECT_EQ(pair.server.wait_for("PS"), "PSEND_ERR DOCA_ERROR_NOT_FOUND");
}

// A consumer without posted buffers holds what arrives until its queue is full; further sends wait
// inside the producer (20 x 60000 bytes exceed any socket buffer). Once buffers are posted,
// everything sent arrives, in submission order, and every send succeeds.
TEST(ComchDataPath, SendsWaitForAFullConsumerThenArriveInOrder) {
    Pair pair;
    std::string cid = pair.consumer(pair.client, pair.server, 0, 1, 0, 65536);
    std::string pid = pair.producer(pair.server, 1);
    constexpr int kSends = 20;
    for (int i = 0; i < kSends; ++i)
        pair.server.command("PRODUCESIZE " + cid + " 60000 m" + std::to_string(i));
    pair.client.command("POST " + std::to_string(kSends));
    for (int i = 0; i < kSends; ++i) {
        std::string line = pair.client.wait_for("CRECV");
        EXPECT_EQ(line.rfind("CRECV " + pid + " m" + std::to_string(i) + " 60000 yyyy", 0), 0u) << line;
    }
    for (int i = 0; i < kSends; ++i) EXPECT_EQ(pair.server.wait_for("PS"), "PSENT");
}

// A message longer than the posted buffer fails that receive (the producer's send had succeeded);
// the next message that fits is received normally.
TEST(ComchDataPath, MessageLongerThanThePostedBufferFailsThatReceive) {
    Pair pair;
    std::string cid = pair.consumer(pair.client, pair.server, 0, 1, 1, 16);
    pair.producer(pair.server, 1);
    pair.server.command("PRODUCE " + cid + " - this-message-is-longer-than-sixteen-bytes");
    EXPECT_EQ(pair.server.wait_for("PS"), "PSENT");
    EXPECT_EQ(pair.client.wait_for("CRECV"), "CRECV_ERR DOCA_ERROR_INVALID_VALUE");
    pair.server.command("PRODUCE " + cid + " - short");
    EXPECT_EQ(pair.server.wait_for("PS"), "PSENT");
    EXPECT_NE(pair.client.wait_for("CRECV").find(" - 5 short"), std::string::npos);
}
