// Fabrics Disconnect on an I/O queue: the queue is deleted, yet every command the host sent on it
// is answered and the association lives on. SPDK's nvme_fuzz -a found this: its random I/O
// commands include opcode 7Fh with 08h in the NSID's low byte (a Disconnect, FCTYPE overlaps
// the NSID), and it keeps up to 128 commands in flight behind it. The target closed the
// connection after answering the Disconnect, so the commands behind it never completed; the
// fuzzer's I/O queue timed out, it stopped polling, and the association died at KATO.
#include "raw_tcp_client.hpp"
#include "target_fixture.hpp"
#include "skiff/nvmeof/target/io_gate.hpp"
#include "skiff/nvmeof/target/namespace.hpp"

#include <gtest/gtest.h>

#include <map>
#include <vector>

namespace skiff::test {
namespace {

w::Sqe disconnect_cmd() {
    w::Sqe sqe{};
    auto &f = reinterpret_cast<w::FabricsCmd &>(sqe);
    f.opcode = w::kFabricsOpcode;
    f.fctype = w::kFctDisconnect;
    return sqe;
}

w::Sqe read_cmd(uint64_t slba) {
    w::Sqe sqe{};
    sqe.opcode = nvme_cmd_read;
    sqe.nsid = 1;
    sqe.cdw10 = static_cast<uint32_t>(slba);
    sqe.cdw11 = static_cast<uint32_t>(slba >> 32);
    sqe.cdw12 = 0; // one block
    return sqe;
}

TEST(Disconnect, CommandsSentBehindADisconnectAreAnsweredAndTheAssociationLivesOn) {
    LiveTarget t;
    RawTcpClient admin(t.io_port);
    uint16_t cntlid = admin.bring_up_admin(kSubNqn, kHostNqn, 5000);
    RawTcpClient io(t.io_port);
    io.icreq();
    ASSERT_EQ(io.fabrics_connect(1, cntlid, kSubNqn, kHostNqn, 127).status, 0);

    // A fused first half whose data has not come yet (the transfer waits for H2CData), then a
    // Disconnect, as the fuzzer sends them: neither waits for the other's completion.
    w::Sqe cmp = read_cmd(0);
    cmp.opcode = nvme_cmd_compare;
    cmp.flags = 1; // fused, first command
    cmp.cid = io.next_cid();
    io.send_command(cmp, nullptr, 0, 512);
    w::Sqe disc = disconnect_cmd();
    disc.cid = io.next_cid();
    io.send_command(disc);

    // The first half's R2T, then the Disconnect's completion; the half is answered once its
    // data is in (its partner never came: Missing Fused Command).
    std::vector<uint8_t> block(512, 0x5A);
    EXPECT_EQ(io.wait_completion(disc.cid, nullptr, block.data()).status, 0);
    EXPECT_EQ(w::Status::sc(io.wait_completion(cmp.cid).status), NVME_SC_FUSED_MISSING);

    // Commands the host sent before it saw the Disconnect's completion: the queue is gone, each
    // is answered with Command Sequence Error (before the fix: no answer, the connection closed).
    for (uint64_t lba = 0; lba < 3; ++lba) {
        w::Cqe cqe = io.command(read_cmd(lba), nullptr, 512);
        EXPECT_EQ(w::Status::sc(cqe.status), NVME_SC_CMD_SEQ_ERROR);
        EXPECT_EQ(w::Status::sct(cqe.status), NVME_SCT_GENERIC);
    }

    // The association is untouched: its admin queue answers, and the deleted queue's id is free
    // for a new I/O queue that serves I/O.
    w::Sqe ka{};
    ka.opcode = nvme_admin_keep_alive;
    EXPECT_EQ(admin.command(ka).status, 0);
    RawTcpClient io2(t.io_port);
    io2.icreq();
    ASSERT_EQ(io2.fabrics_connect(1, cntlid, kSubNqn, kHostNqn, 127).status, 0);
    w::Sqe wr = read_cmd(8);
    wr.opcode = nvme_cmd_write;
    ASSERT_EQ(io2.command(wr, nullptr, 0, block.data(), 512).status, 0);
    std::vector<uint8_t> got;
    ASSERT_EQ(io2.command(read_cmd(8), &got, 512).status, 0);
    EXPECT_EQ(got, block);
}

// A write waiting behind a Compare and Write that holds its namespace (from another poll group)
// when the host deletes the queue: it is answered, Command Aborted due to SQ Deletion, and
// nothing was written (before the fix: the connection closed and the write was never answered).
TEST(Disconnect, CommandWaitingForTheNamespaceGateIsAbortedNotLost) {
    LiveTarget t;
    RawTcpClient admin(t.io_port);
    uint16_t cntlid = admin.bring_up_admin(kSubNqn, kHostNqn);
    RawTcpClient io(t.io_port);
    io.icreq();
    ASSERT_EQ(io.fabrics_connect(1, cntlid, kSubNqn, kHostNqn, 127).status, 0);
    auto &gate = t.target.find_subsystem(kSubNqn)->find_namespace(1)->gate();
    nvmeof::target::IoGate::set_thread_lane(7); // this thread plays another poll group
    int token = 0;
    ASSERT_TRUE(gate.try_exclusive(&token));

    std::vector<uint8_t> data(512, 0x6B);
    w::Sqe wr = read_cmd(5);
    wr.opcode = nvme_cmd_write;
    wr.cid = io.next_cid();
    io.send_command(wr, data.data(), 512);
    w::Sqe disc = disconnect_cmd();
    disc.cid = io.next_cid();
    io.send_command(disc);
    std::map<uint16_t, uint16_t> status; // cid -> status, in whichever order they come
    while (status.size() < 2) {
        auto pdu = io.recv_pdu();
        ASSERT_TRUE(pdu) << "connection closed with " << status.size() << " of 2 commands answered";
        ASSERT_EQ(pdu->ch.type, wt::kCapsuleResp);
        const w::Cqe &cqe = pdu->as<wt::CapsuleResp>().cqe;
        status[cqe.cid] = cqe.status;
    }
    EXPECT_EQ(status[disc.cid], 0);
    EXPECT_EQ(w::Status::sc(status[wr.cid]), NVME_SC_ABORT_QUEUE);
    EXPECT_EQ(w::Status::sct(status[wr.cid]), NVME_SCT_GENERIC);

    gate.leave_exclusive(&token);
    nvmeof::target::IoGate::set_thread_lane(0);
    RawTcpClient io2(t.io_port);
    io2.icreq();
    ASSERT_EQ(io2.fabrics_connect(1, cntlid, kSubNqn, kHostNqn, 127).status, 0);
    std::vector<uint8_t> got;
    ASSERT_EQ(io2.command(read_cmd(5), &got, 512).status, 0);
    EXPECT_EQ(got, std::vector<uint8_t>(512, 0)) << "the aborted write must not have reached the namespace";
}

} // namespace
} // namespace skiff::test
