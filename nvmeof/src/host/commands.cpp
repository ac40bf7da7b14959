#include "skiff/nvmeof/host/commands.hpp"

#include "skiff/nvmeof/auth/messages.hpp"

#include <cstring>

namespace skiff::nvmeof::host::cmd {
namespace {

wire::Sqe blank(uint8_t opcode, uint32_t nsid = 0) {
    wire::Sqe s{};
    s.opcode = opcode;
    s.nsid = nsid;
    return s;
}

void set_lba_range(wire::Sqe &s, uint64_t slba, uint32_t nlb) {
    s.cdw10 = static_cast<uint32_t>(slba);
    s.cdw11 = static_cast<uint32_t>(slba >> 32);
    s.cdw12 = (nlb - 1u) & 0xFFFF;
}

} // namespace

wire::Sqe connect(uint16_t qid, uint16_t sqsize_0based, uint32_t kato_ms, bool disable_sq_flow_control) {
    wire::ConnectCmd c{};
    c.opcode = wire::kFabricsOpcode;
    c.fctype = wire::kFctConnect;
    c.recfmt = 0;
    c.qid = qid;
    c.sqsize = sqsize_0based;
    c.cattr = disable_sq_flow_control ? 0x04 : 0x00; // bit 2: SQ flow control disable
    c.kato = kato_ms;
    wire::Sqe s;
    std::memcpy(&s, &c, sizeof(s));
    return s;
}

namespace {

wire::Sqe auth_command(uint8_t fctype, uint32_t length) {
    auth::AuthCmd a{};
    a.opcode = wire::kFabricsOpcode;
    a.fctype = fctype;
    a.secp = auth::kSecpNvmeAuth;
    a.spsp0 = auth::kSpsp0;
    a.spsp1 = auth::kSpsp1;
    a.length = length;
    wire::Sqe s;
    std::memcpy(&s, &a, sizeof(s));
    return s;
}

} // namespace

wire::Sqe auth_send(uint32_t tl) {
    return auth_command(wire::kFctAuthSend, tl);
}

wire::Sqe auth_receive(uint32_t al) {
    return auth_command(wire::kFctAuthReceive, al);
}

wire::Sqe property_get(uint32_t offset, bool eight_bytes) {
    wire::PropertyCmd p{};
    p.opcode = wire::kFabricsOpcode;
    p.fctype = wire::kFctPropertyGet;
    p.attrib = eight_bytes ? 1 : 0;
    p.offset = offset;
    wire::Sqe s;
    std::memcpy(&s, &p, sizeof(s));
    return s;
}

wire::Sqe property_set(uint32_t offset, uint64_t value, bool eight_bytes) {
    wire::PropertyCmd p{};
    p.opcode = wire::kFabricsOpcode;
    p.fctype = wire::kFctPropertySet;
    p.attrib = eight_bytes ? 1 : 0;
    p.offset = offset;
    p.value = value;
    wire::Sqe s;
    std::memcpy(&s, &p, sizeof(s));
    return s;
}

wire::Sqe identify(uint8_t cns, uint32_t nsid, uint16_t cntid) {
    wire::Sqe s = blank(nvme_admin_identify, nsid);
    s.cdw10 = cns | (static_cast<uint32_t>(cntid) << 16);
    return s;
}

wire::Sqe get_log_page(uint8_t lid, uint32_t nsid, uint32_t bytes, uint64_t offset, bool retain_async) {
    wire::Sqe s = blank(nvme_admin_get_log_page, nsid);
    const uint32_t numd = bytes / 4 - 1; // 0's based dword count, split in NUMDL / NUMDU
    s.cdw10 = lid | (retain_async ? 1u << 15 : 0u) | ((numd & 0xFFFF) << 16);
    s.cdw11 = numd >> 16;
    s.cdw12 = static_cast<uint32_t>(offset);
    s.cdw13 = static_cast<uint32_t>(offset >> 32);
    return s;
}

wire::Sqe get_features(uint8_t fid, uint32_t nsid, uint8_t select, uint32_t cdw11) {
    wire::Sqe s = blank(nvme_admin_get_features, nsid);
    s.cdw10 = fid | (static_cast<uint32_t>(select & 0x7) << 8);
    s.cdw11 = cdw11;
    return s;
}

wire::Sqe set_features(uint8_t fid, uint32_t cdw11, uint32_t nsid, bool save) {
    wire::Sqe s = blank(nvme_admin_set_features, nsid);
    s.cdw10 = fid | (save ? 1u << 31 : 0u);
    s.cdw11 = cdw11;
    return s;
}

wire::Sqe keep_alive() {
    return blank(nvme_admin_keep_alive);
}

wire::Sqe read(uint32_t nsid, uint64_t slba, uint32_t nlb) {
    wire::Sqe s = blank(nvme_cmd_read, nsid);
    set_lba_range(s, slba, nlb);
    return s;
}

wire::Sqe write(uint32_t nsid, uint64_t slba, uint32_t nlb) {
    wire::Sqe s = blank(nvme_cmd_write, nsid);
    set_lba_range(s, slba, nlb);
    return s;
}

wire::Sqe flush(uint32_t nsid) {
    return blank(nvme_cmd_flush, nsid);
}

wire::Sqe write_zeroes(uint32_t nsid, uint64_t slba, uint32_t nlb, bool deallocate) {
    wire::Sqe s = blank(nvme_cmd_write_zeroes, nsid);
    set_lba_range(s, slba, nlb);
    if (deallocate) s.cdw12 |= 1u << 25; // DEAC
    return s;
}

wire::Sqe dsm(uint32_t nsid, uint32_t ranges, uint32_t attributes) {
    wire::Sqe s = blank(nvme_cmd_dsm, nsid);
    s.cdw10 = (ranges - 1u) & 0xFF;
    s.cdw11 = attributes;
    return s;
}

wire::Sqe verify(uint32_t nsid, uint64_t slba, uint32_t nlb) {
    wire::Sqe s = blank(nvme_cmd_verify, nsid);
    set_lba_range(s, slba, nlb);
    return s;
}

wire::Sqe copy(uint32_t nsid, uint64_t sdlba, uint32_t ranges, uint8_t format) {
    wire::Sqe s = blank(nvme_cmd_copy, nsid);
    s.cdw10 = static_cast<uint32_t>(sdlba);
    s.cdw11 = static_cast<uint32_t>(sdlba >> 32);
    s.cdw12 = ((ranges - 1u) & 0xFF) | (static_cast<uint32_t>(format & 0xF) << 8);
    return s;
}

} // namespace skiff::nvmeof::host::cmd
