// Fuzz harness: the private data of an RDMA CM connect request (what any host on the fabric
// sends before a queue exists) and the SGL descriptor of an RDMA command capsule.
// Input: [initiator depth][max_io_queues lo][admin depth][io depth][device_max_wr][private data...]
// Property: the decision is either a reject with a known status, or an accept whose depth lies in
// 2..the queue maximum; the SGL plan never promises more than the transfer maximum in a capsule.
#include "fuzz_input.hpp"

#include "skiff/nvmeof/rdma/cm_private_data.hpp"
#include "skiff/nvmeof/rdma/rdma_sgl.hpp"

#include <cstring>

using namespace skiff::nvmeof;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    skiff::fuzz::Input in(data, size);
    uint8_t initiator_depth = in.u8();
    rdma::CmLimits limits;
    limits.max_io_queues = in.u8();
    limits.max_admin_depth = static_cast<uint16_t>(in.u8() + 1);
    limits.max_io_depth = static_cast<uint16_t>(in.u8() * 4 + 1);
    limits.device_max_wr = in.u8() * 16u;
    auto rest = in.rest();
    auto d = rdma::check_connect(rest.empty() ? nullptr : rest.data(), rest.size(), initiator_depth, limits);
    if (d.accepted()) {
        uint32_t max = d.qid == 0 ? limits.max_admin_depth : limits.max_io_depth;
        SKIFF_FUZZ_CHECK(d.depth >= 2 && d.depth <= max);
        SKIFF_FUZZ_CHECK(d.qid <= limits.max_io_queues);
        auto a = rdma::make_accept(d);
        SKIFF_FUZZ_CHECK(a.crqsize == d.depth);
    } else {
        SKIFF_FUZZ_CHECK(d.status >= rdma::kRejectInvalidLength && d.status <= rdma::kRejectInvalidOrd);
        SKIFF_FUZZ_CHECK(rdma::to_string(static_cast<rdma::CmRejectStatus>(d.status))[0] != '?');
    }
    // The same bytes as a command capsule: its SGL descriptor planned against an in-capsule length.
    if (rest.size() >= sizeof(wire::Sqe)) {
        wire::Sqe sqe;
        std::memcpy(&sqe, rest.data(), sizeof(sqe));
        uint32_t in_capsule = static_cast<uint32_t>(rest.size() - sizeof(sqe));
        uint32_t max_transfer = 128u * 1024u;
        auto plan = rdma::plan_sgl(sqe, in_capsule, max_transfer);
        if (plan.status == 0) {
            SKIFF_FUZZ_CHECK(plan.length <= max_transfer);
            if (plan.kind == rdma::SglPlan::kInCapsule)
                SKIFF_FUZZ_CHECK(uint64_t(plan.offset) + plan.length <= in_capsule);
        }
    }
    return 0;
}
