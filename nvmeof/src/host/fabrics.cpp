#include "skiff/nvmeof/host/fabrics.hpp"

#include "skiff/nvmeof/host/commands.hpp"
#include "skiff/nvmeof/host/nvme_status.hpp"

#include <nvme/types.h>

#include <cstdio>
#include <cstring>
#include <random>

namespace skiff::nvmeof::host {

std::string uuid_string(const std::array<uint8_t, 16> &u) {
    char buf[40];
    std::snprintf(buf, sizeof(buf), "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
                  u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13],
                  u[14], u[15]);
    return buf;
}

HostIdentity HostIdentity::generate() {
    HostIdentity id;
    std::random_device rd;
    for (size_t i = 0; i < id.hostid.size(); i += 4) {
        const uint32_t r = rd();
        std::memcpy(&id.hostid[i], &r, 4);
    }
    id.hostid[6] = static_cast<uint8_t>((id.hostid[6] & 0x0F) | 0x40); // version 4
    id.hostid[8] = static_cast<uint8_t>((id.hostid[8] & 0x3F) | 0x80); // RFC 4122 variant
    id.hostnqn = "nqn.2014-08.org.nvmexpress:uuid:" + uuid_string(id.hostid);
    return id;
}

Result<Completion> fabrics_connect(TcpQueue &queue, const HostIdentity &host, const std::string &subnqn,
                                   uint16_t cntlid, uint32_t kato_ms, bool disable_sq_flow_control) {
    nvmf_connect_data data{};
    if (host.hostnqn.size() >= sizeof(data.hostnqn) || subnqn.size() >= sizeof(data.subsysnqn))
        return make_error(DOCA_ERROR_INVALID_VALUE, "host NQN and subsystem NQN must be shorter than " +
                                                        std::to_string(sizeof(data.hostnqn)) + " bytes");
    std::memcpy(data.hostid, host.hostid.data(), sizeof(data.hostid));
    data.cntlid = cntlid;
    std::memcpy(data.subsysnqn, subnqn.data(), subnqn.size());
    std::memcpy(data.hostnqn, host.hostnqn.data(), host.hostnqn.size());
    const wire::Sqe sqe = cmd::connect(queue.qid(), static_cast<uint16_t>(queue.config().queue_size - 1),
                                       kato_ms, disable_sq_flow_control);
    return queue.execute(sqe, DataDir::kHostToController, &data, sizeof(data));
}

Status to_status(const Completion &c, const std::string &what, bool fabrics) {
    if (c.nvme_ok()) return Status::success();
    doca_error_t code = DOCA_ERROR_IO_FAILED;
    if (c.sct() == NVME_SCT_GENERIC) {
        if (c.sc() == NVME_SC_INVALID_OPCODE) code = DOCA_ERROR_NOT_SUPPORTED;
        if (c.sc() == NVME_SC_INVALID_FIELD || c.sc() == NVME_SC_LBA_RANGE || c.sc() == NVME_SC_INVALID_NS)
            code = DOCA_ERROR_INVALID_VALUE;
    }
    if (fabrics && c.sct() == NVME_SCT_CMD_SPECIFIC && c.sc() == NVME_SC_CONNECT_INVALID_HOST)
        code = DOCA_ERROR_NOT_PERMITTED;
    return make_error(code, what + " failed with NVMe status " + describe_status(c.status(), fabrics));
}

} // namespace skiff::nvmeof::host
