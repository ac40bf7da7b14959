// The discovery log page: one entry per (subsystem, port) the connecting host may reach, the
// current discovery subsystem on the port it came through, and one referral entry per other
// target's discovery service (Target::referrals). A discovery controller that did not
// authenticate its host lists no subsystem for which that host has a DH-HMAC-CHAP secret: a
// peer that only claims the host's NQN learns nothing the secret protects.
#include "discovery.hpp"

#include "commands.hpp"
#include "skiff/nvmeof/target/target.hpp"
#include "skiff/nvmeof/transport/ip_address.hpp"

#include <cstring>

namespace skiff::nvmeof::target::detail {
namespace {

nvmf_disc_log_entry make_entry(const Port &port, const std::string &nqn, uint8_t subtype) {
    nvmf_disc_log_entry e{};
    bool rdma = port.trtype == "rdma";
    e.trtype = rdma ? NVMF_TRTYPE_RDMA : NVMF_TRTYPE_TCP;
    // TRADDR is the address alone, IPv6 without brackets, as Linux nvmet and nvme-cli write it.
    const bool ipv6 = transport::ip_family(port.traddr) == transport::IpFamily::kIpv6;
    e.adrfam = ipv6 ? NVMF_ADDR_FAMILY_IP6 : NVMF_ADDR_FAMILY_IP4;
    e.subtype = subtype;
    // TREQ bits 1:0: secure channel 01b required, 10b not required (TLS optional or none:
    // a plain connection is accepted). SQ flow control may be disabled either way.
    bool tls = !rdma && port.secure_channel != SecureChannel::kNone;
    e.treq = NVMF_TREQ_DISABLE_SQFLOW;
    if (tls)
        e.treq |=
            port.secure_channel == SecureChannel::kRequired ? NVMF_TREQ_REQUIRED : NVMF_TREQ_NOT_REQUIRED;
    e.portid = port.id;
    e.cntlid = 0xFFFF; // dynamic controller model
    e.asqsz = 32;
    std::strncpy(e.trsvcid, port.trsvcid.c_str(), sizeof(e.trsvcid) - 1);
    std::strncpy(e.subnqn, nqn.c_str(), sizeof(e.subnqn) - 1);
    std::strncpy(e.traddr, port.traddr.c_str(), sizeof(e.traddr) - 1);
    if (rdma) {
        e.tsas.rdma.qptype = NVMF_RDMA_QPTYPE_CONNECTED;
        e.tsas.rdma.prtype = NVMF_RDMA_PRTYPE_NOT_SPECIFIED;
        e.tsas.rdma.cms = NVMF_RDMA_CMS_RDMA_CM;
    } else {
        e.tsas.tcp.sectype = tls ? NVMF_TCP_SECTYPE_TLS13 : NVMF_TCP_SECTYPE_NONE;
    }
    return e;
}

} // namespace

void execute_discovery_log(Request &req) {
    Queue &q = *req.queue;
    Target &target = q.target();
    const std::string &hostnqn = q.controller()->hostnqn();
    const bool authenticated = q.controller()->auth() != nullptr; // the queue serves only once it did
    uint64_t offset = req.cmd.cdw12 | (static_cast<uint64_t>(req.cmd.cdw13) << 32);
    PageWindow w(req.buf, offset, req.data_len);

    uint64_t numrec = 0;
    auto add = [&](const nvmf_disc_log_entry &e) {
        w.put(sizeof(nvmf_discovery_log) + numrec * sizeof(nvmf_disc_log_entry), &e, sizeof(e));
        ++numrec;
    };
    for (const Port &port : target.ports()) {
        if (port.discovery_only) continue;
        for (const auto &subsys : target.subsystems())
            if (port.lists(subsys->nqn()) && subsys->host_allowed(hostnqn) &&
                (authenticated || !target.host_auth(hostnqn, subsys->nqn())))
                add(make_entry(port, subsys->nqn(), NVME_NQN_NVME));
    }
    add(make_entry(q.port(), kDiscoveryNqn, NVME_NQN_CURR));
    for (const Port &referral : target.referrals()) add(make_entry(referral, kDiscoveryNqn, NVME_NQN_DISC));

    nvmf_discovery_log header{};
    header.genctr = target.discovery_generation();
    q.controller()->discovery_log_read(header.genctr, log_retains_events(req));
    header.numrec = numrec;
    header.recfmt = 0;
    w.put(0, &header, sizeof(header));
    complete(req);
}

} // namespace skiff::nvmeof::target::detail
