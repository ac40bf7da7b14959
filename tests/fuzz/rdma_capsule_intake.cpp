// Fuzz harness: how an NVMe/RDMA queue pair takes command capsules in (RdmaQueuePair::on_recv and
// the replay when a response SEND completes), under limits drawn from the input: the depth, the
// in-capsule data size (up to the 1 MiB the loader accepts, including sizes above 64 KiB and above
// MDTS) and MDTS. Verbs cannot run in a fuzzer, so the harness plays the queue pair's steps with
// its own parts: target::in_capsule_limit sizes the receive buffers, a capsule arrives with any
// byte count up to that, takes a free request slot or waits in the CapsuleBacklog (a full
// backlog closes the connection), and is planned with plan_sgl from its byte count when started,
// at once or on replay.
//
// Input: [depth: 1 byte][in-capsule size index][MDTS index] then operations, each
// [kind: 1 byte] followed by, for an arrival, [byte count: 4 bytes][SQE: 64 bytes].
// Properties: every capsule is started once, in arrival order; a plan's in-capsule range lies
// within the bytes that arrived (each capsule is an exact heap allocation of its byte count, and
// the harness reads the planned range, so ASan sees any overrun); no plan moves more than MDTS.
#include "fuzz_input.hpp"

#include "skiff/nvmeof/rdma/capsule_backlog.hpp"
#include "skiff/nvmeof/rdma/rdma_sgl.hpp"
#include "skiff/nvmeof/target/limits.hpp"

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

using namespace skiff::nvmeof;

namespace {

constexpr uint32_t kSqe = sizeof(wire::Sqe);
constexpr uint32_t kInCapsuleSizes[] = {0, 4096, 8192, 16384, 65472, 65536, 262144, 1u << 20};
constexpr uint32_t kMdts[] = {4096, 16384, 131072, 1u << 20};

struct Capsule {
    std::unique_ptr<uint8_t[]> bytes; // exactly what the receive completion reported
    uint32_t byte_len = 0;
    uint32_t serial = 0; // arrival order
};

class Intake {
  public:
    Intake(uint16_t depth, uint32_t capsule_len, uint32_t mdts)
        : slots_(depth), backlog_(depth), received_(depth * 2u), capsule_len_(capsule_len), mdts_(mdts) {}

    // A receive completed with `byte_len` bytes. False: the host overran its queue (closed).
    bool arrive(skiff::fuzz::Input &in) {
        uint32_t byte_len = kSqe + in.u32() % (capsule_len_ - kSqe + 1);
        Capsule c;
        c.bytes = std::make_unique<uint8_t[]>(byte_len);
        auto sqe = in.bytes(kSqe);
        std::memcpy(c.bytes.get(), sqe.data(), sqe.size());
        std::memset(c.bytes.get() + kSqe, 0x5A, byte_len - kSqe);
        c.byte_len = byte_len;
        c.serial = next_serial_++;
        // The receive buffer index stands for the capsule, as in the queue pair.
        uint16_t recv = static_cast<uint16_t>(c.serial % received_.size());
        received_[recv] = std::move(c);
        auto slot = std::find_if(slots_.begin(), slots_.end(), [](const Slot &s) { return !s.busy; });
        if (slot != slots_.end()) return start(*slot, recv, byte_len), true;
        if (backlog_.full()) return false;
        backlog_.push({recv, byte_len});
        return true;
    }

    // The response SEND of a busy slot completed: the slot frees and the oldest waiting capsule
    // takes it.
    void send_done(uint8_t pick) {
        std::vector<Slot *> busy;
        for (auto &s : slots_)
            if (s.busy) busy.push_back(&s);
        if (busy.empty()) return;
        Slot &slot = *busy[pick % busy.size()];
        slot.busy = false;
        if (backlog_.empty()) return;
        rdma::CapsuleBacklog::Capsule next = backlog_.pop();
        start(slot, next.recv, next.byte_len);
    }

  private:
    struct Slot {
        bool busy = false;
    };

    void start(Slot &slot, uint16_t recv, uint32_t byte_len) {
        Capsule &c = received_[recv];
        SKIFF_FUZZ_CHECK(c.bytes && c.byte_len == byte_len); // the count came back whole
        SKIFF_FUZZ_CHECK(c.serial == next_started_);         // in arrival order
        ++next_started_;
        slot.busy = true;
        wire::Sqe cmd;
        std::memcpy(&cmd, c.bytes.get(), kSqe);
        rdma::SglPlan plan = rdma::plan_sgl(cmd, byte_len - kSqe, mdts_);
        if (plan.status == 0) {
            SKIFF_FUZZ_CHECK(plan.length <= mdts_);
            if (plan.kind == rdma::SglPlan::kInCapsule) {
                SKIFF_FUZZ_CHECK(uint64_t(plan.offset) + plan.length <= byte_len - kSqe);
                // Use the data where it landed, as the command would: ASan checks the range.
                const uint8_t *data = c.bytes.get() + kSqe + plan.offset;
                uint32_t sum = 0;
                for (uint32_t i = 0; i < plan.length; i += 61) sum += data[i];
                if (plan.length) sum += data[plan.length - 1];
                sink_ = sink_ + sum;
            }
            if (plan.kind == rdma::SglPlan::kKeyed) SKIFF_FUZZ_CHECK(byte_len == kSqe);
        }
        c.bytes.reset(); // the receive is reposted once the command is done
    }

    std::vector<Slot> slots_;
    rdma::CapsuleBacklog backlog_;
    std::vector<Capsule> received_;
    uint32_t capsule_len_, mdts_;
    uint32_t next_serial_ = 0, next_started_ = 0;
    volatile uint32_t sink_ = 0;
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    skiff::fuzz::Input in(data, size);
    uint16_t depth = static_cast<uint16_t>(1 + in.u8() % 32);
    target::Limits limits;
    limits.in_capsule_data = kInCapsuleSizes[in.u8() % std::size(kInCapsuleSizes)];
    limits.max_transfer = kMdts[in.u8() % std::size(kMdts)];
    // The receive buffers, as RdmaQueuePair and the SRQ size them.
    uint32_t capsule_len = kSqe + target::in_capsule_limit(limits);
    SKIFF_FUZZ_CHECK(capsule_len - kSqe <= limits.max_transfer);
    Intake intake(depth, capsule_len, limits.max_transfer);
    for (int ops = 0; ops < 256 && !in.empty(); ++ops) {
        uint8_t kind = in.u8();
        if (kind & 1) {
            intake.send_done(static_cast<uint8_t>(kind >> 1));
        } else if (!intake.arrive(in)) {
            break; // queue size exceeded: the queue pair closes the connection
        }
    }
    return 0;
}
