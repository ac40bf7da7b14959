// The running target: listeners, poll groups, round-robin assignment, many queues at once.
#include "../nvmeof/raw_tcp_client.hpp"
#include "../nvmeof/target_fixture.hpp"

#include <gtest/gtest.h>

#include <sys/socket.h>

#include <memory>
#include <thread>

namespace skiff::test {
namespace {

TEST(TargetService, ListenerThatCannotBindNamesTheAddressAndErrno) {
    LiveTarget running;
    nvmeof::target::Target other;
    dataplane::ServiceOptions opts;
    opts.listeners.push_back({"127.0.0.1", running.io_port});
    dataplane::TargetService service(other, opts);
    auto st = service.start();
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.error().message.find("127.0.0.1:" + std::to_string(running.io_port)), std::string::npos);
    EXPECT_NE(st.error().message.find("Address already in use"), std::string::npos);
}

TEST(TargetService, ConnectionsAreSpreadRoundRobinOverPollGroups) {
    LiveTarget t(64ull << 20, 512, 2);
    std::vector<std::unique_ptr<RawTcpClient>> clients;
    for (int i = 0; i < 4; ++i) {
        clients.push_back(std::make_unique<RawTcpClient>(t.io_port));
        clients.back()->icreq(); // answered: the connection is owned by a group now
    }
    EXPECT_EQ(t.service->group(0).connection_count(), 2u);
    EXPECT_EQ(t.service->group(1).connection_count(), 2u);
    EXPECT_NE(t.service->group(0).progress_engine(), nullptr);
    EXPECT_NE(t.service->group(0).progress_engine(), t.service->group(1).progress_engine());
}

// An association whose admin queue and I/O queues live in different poll groups works, and
// data written through one I/O queue is read back through another.
TEST(TargetService, OneAssociationAcrossPollGroups) {
    LiveTarget t(64ull << 20, 512, 2);
    RawTcpClient admin(t.io_port);
    uint16_t cntlid = admin.bring_up_admin(kSubNqn, kHostNqn);
    w::Sqe nq{};
    nq.opcode = nvme_admin_set_features;
    nq.cdw10 = NVME_FEAT_FID_NUM_QUEUES;
    nq.cdw11 = 1 | (1 << 16);
    ASSERT_EQ(admin.command(nq).status, 0);
    RawTcpClient q1(t.io_port), q2(t.io_port);
    q1.icreq();
    q2.icreq();
    ASSERT_EQ(q1.fabrics_connect(1, cntlid, kSubNqn, kHostNqn, 63).status, 0);
    ASSERT_EQ(q2.fabrics_connect(2, cntlid, kSubNqn, kHostNqn, 63).status, 0);
    std::vector<uint8_t> data(8192);
    for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i ^ 0x3C);
    w::Sqe wr{};
    wr.opcode = nvme_cmd_write;
    wr.nsid = 1;
    wr.cdw10 = 64;
    wr.cdw12 = 15;
    ASSERT_EQ(q1.command(wr, nullptr, 0, data.data(), 8192).status, 0);
    w::Sqe rd = wr;
    rd.opcode = nvme_cmd_read;
    std::vector<uint8_t> got;
    ASSERT_EQ(q2.command(rd, &got, 8192).status, 0);
    EXPECT_EQ(got, data);
}

TEST(TargetService, DisconnectDeletesTheIoQueueAndAdminCloseEndsTheAssociation) {
    LiveTarget t;
    auto admin = std::make_unique<RawTcpClient>(t.io_port);
    uint16_t cntlid = admin->bring_up_admin(kSubNqn, kHostNqn);
    RawTcpClient io(t.io_port);
    io.icreq();
    ASSERT_EQ(io.fabrics_connect(1, cntlid, kSubNqn, kHostNqn, 31).status, 0);
    w::Sqe disc{};
    auto &f = reinterpret_cast<w::FabricsCmd &>(disc);
    f.opcode = w::kFabricsOpcode;
    f.fctype = w::kFctDisconnect;
    EXPECT_EQ(io.command(disc).status, 0);
    // The queue is gone (its commands get Command Sequence Error) but its id is free again; the
    // connection stays until the host closes it (tests/nvmeof/disconnect_test.cpp).
    w::Sqe rd{};
    rd.opcode = nvme_cmd_read;
    rd.nsid = 1;
    EXPECT_EQ(w::Status::sc(io.command(rd, nullptr, 512).status), NVME_SC_CMD_SEQ_ERROR);

    // Closing the admin connection ends the association: its I/O queues are refused.
    RawTcpClient io2(t.io_port);
    io2.icreq();
    ASSERT_EQ(io2.fabrics_connect(1, cntlid, kSubNqn, kHostNqn, 31).status, 0);
    admin.reset();
    EXPECT_TRUE(io2.closed_by_peer());
    RawTcpClient io3(t.io_port);
    io3.icreq();
    EXPECT_EQ(w::Status::sc(io3.fabrics_connect(1, cntlid, kSubNqn, kHostNqn, 31).status),
              NVME_SC_CONNECT_INVALID_PARAM);
}

} // namespace
} // namespace skiff::test
