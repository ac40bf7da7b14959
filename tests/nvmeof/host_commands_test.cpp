// SQE layouts the initiator builds, checked field by field against the specification.
#include "skiff/nvmeof/host/commands.hpp"
#include "skiff/nvmeof/host/fabrics.hpp"
#include "skiff/nvmeof/host/nvme_status.hpp"

#include <gtest/gtest.h>

using namespace skiff::nvmeof;
using namespace skiff::nvmeof::host;
using skiff::Result;
using skiff::Status;

TEST(HostCommands, ReadWriteCarryLbaRangeZeroBased) {
    wire::Sqe r = cmd::read(1, 0x1'0000'0002ull, 8);
    EXPECT_EQ(r.opcode, nvme_cmd_read);
    EXPECT_EQ(r.nsid, 1u);
    EXPECT_EQ(r.slba(), 0x1'0000'0002ull);
    EXPECT_EQ(r.nlb(), 8u);
    EXPECT_EQ(r.cdw12, 7u);
    wire::Sqe w = cmd::write(2, 5, 65536);
    EXPECT_EQ(w.opcode, nvme_cmd_write);
    EXPECT_EQ(w.cdw12, 0xFFFFu);
}

TEST(HostCommands, GetLogPageSplitsDwordCount) {
    // 1 MiB + 4 bytes = 262145 dwords -> NUMD 262144 = 0x40000: NUMDL 0, NUMDU 4.
    wire::Sqe s = cmd::get_log_page(0x70, 0, (1u << 20) + 4, 0x2000'0000'0, true);
    EXPECT_EQ(s.opcode, nvme_admin_get_log_page);
    EXPECT_EQ(s.cdw10 & 0xFF, 0x70u);
    EXPECT_EQ(s.cdw10 & (1u << 15), 1u << 15);
    EXPECT_EQ(s.cdw10 >> 16, 0u);
    EXPECT_EQ(s.cdw11, 4u);
    EXPECT_EQ(s.cdw12, 0u);
    EXPECT_EQ(s.cdw13, 2u);
}

TEST(HostCommands, ConnectAndPropertyLayouts) {
    wire::Sqe s = cmd::connect(3, 127, 5000, true);
    const auto &c = wire::view_as<wire::ConnectCmd>(s);
    EXPECT_EQ(c.opcode, wire::kFabricsOpcode);
    EXPECT_EQ(c.fctype, wire::kFctConnect);
    EXPECT_EQ(c.qid, 3);
    EXPECT_EQ(c.sqsize, 127);
    EXPECT_EQ(c.kato, 5000u);
    EXPECT_EQ(c.cattr, 0x04);

    wire::Sqe g = cmd::property_get(wire::kPropCap, true);
    const auto &pg = wire::view_as<wire::PropertyCmd>(g);
    EXPECT_EQ(pg.fctype, wire::kFctPropertyGet);
    EXPECT_EQ(pg.attrib, 1);
    EXPECT_EQ(pg.offset, 0u);

    wire::Sqe p = cmd::property_set(wire::kPropCc, 0x460001, false);
    const auto &ps = wire::view_as<wire::PropertyCmd>(p);
    EXPECT_EQ(ps.fctype, wire::kFctPropertySet);
    EXPECT_EQ(ps.offset, 0x14u);
    EXPECT_EQ(ps.value, 0x460001u);
}

TEST(HostCommands, IdentifyFeaturesDsm) {
    wire::Sqe i = cmd::identify(NVME_IDENTIFY_CNS_NS_ACTIVE_LIST, 4);
    EXPECT_EQ(i.cdw10, 2u);
    EXPECT_EQ(i.nsid, 4u);
    wire::Sqe f = cmd::set_features(NVME_FEAT_FID_NUM_QUEUES, 0x00030003);
    EXPECT_EQ(f.opcode, nvme_admin_set_features);
    EXPECT_EQ(f.cdw10, 0x07u);
    EXPECT_EQ(f.cdw11, 0x00030003u);
    wire::Sqe d = cmd::dsm(1, 3, NVME_DSMGMT_AD);
    EXPECT_EQ(d.cdw10, 2u);
    EXPECT_EQ(d.cdw11, 4u);
}

TEST(HostStatus, NamesDecodeStatusField) {
    const uint16_t lba = static_cast<uint16_t>(wire::Status::make(0, 0x80, true));
    EXPECT_EQ(describe_status(lba), "sct 0h (generic) sc 80h (LBA Out of Range), DNR");
    const uint16_t opcode = wire::Status::make(0, 0x01);
    EXPECT_EQ(describe_status(opcode), "sct 0h (generic) sc 01h (Invalid Command Opcode)");
    const uint16_t host = wire::Status::make(1, 0x84);
    EXPECT_EQ(describe_status(host, true), "sct 1h (command specific) sc 84h (Connect Invalid Host)");
}

TEST(HostStatus, CompletionToStatusMapsCodes) {
    Completion c;
    EXPECT_TRUE(to_status(c, "Read").ok());
    c.cqe.status = wire::Status::make(0, 0x80);
    Status st = to_status(c, "Read");
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.error().code, DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(st.error().message, "Read failed with NVMe status sct 0h (generic) sc 80h (LBA Out of Range)");
    c.cqe.status = wire::Status::make(1, 0x84);
    st = to_status(c, "Connect", true);
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.error().code, DOCA_ERROR_NOT_PERMITTED);
}

TEST(HostIdentity, GeneratedNqnEmbedsTheHostId) {
    HostIdentity a = HostIdentity::generate(), b = HostIdentity::generate();
    EXPECT_NE(a.hostid, b.hostid);
    EXPECT_EQ(a.hostnqn, "nqn.2014-08.org.nvmexpress:uuid:" + uuid_string(a.hostid));
    EXPECT_EQ(a.hostnqn.size(), 32u + 36u);
}
