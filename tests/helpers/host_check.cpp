// host_check: drives any NVMe/TCP target with skiff's initiator library and checks what a host
// relies on: discovery, connect, identify, write/read-verify at several sizes (with and without
// digests), several I/O queues with commands in flight, flush / write zeroes / deallocate / copy /
// verify (those ONCS offers), and the statuses of bad commands. Used to check the initiator
// against the Linux kernel target in the lab VM (scripts/lab-tests.sh initiator-vs-nvmet), and
// handy by hand against skiff-target.
//
//   host_check --addr 127.0.0.1 --port 4420 --nqn NQN [--expect-serial S] [--expect-model M]
// Prints one line per check; exit 0 only if every check passed.
#include "../support/pattern.hpp"
#include "skiff/core/log.hpp"
#include "skiff/nvmeof/host/commands.hpp"
#include "skiff/nvmeof/host/controller.hpp"
#include "skiff/nvmeof/host/nvme_status.hpp"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <thread>

using namespace skiff;
using namespace skiff::nvmeof;
using namespace skiff::nvmeof::host;

namespace {

int g_failed = 0, g_passed = 0;

void report(bool ok, const std::string &what, const std::string &detail = "") {
    (ok ? g_passed : g_failed)++;
    std::printf("%s %s%s%s\n", ok ? "ok  " : "FAIL", what.c_str(), detail.empty() ? "" : ": ",
                detail.c_str());
    std::fflush(stdout);
}

bool check(const Status &st, const std::string &what) {
    report(st.ok(), what, st.ok() ? "" : st.error().describe());
    return st.ok();
}

using skiff::test::pattern;

struct Args {
    std::string addr = "127.0.0.1";
    uint16_t port = 4420;
    uint16_t discovery_port = 0; // 0: the I/O port
    std::string nqn;
    std::string expect_serial, expect_model;
    uint16_t io_queues = 4;
};

void check_discovery(const Args &a, const ConnectOptions &base) {
    ConnectOptions o = base;
    o.port = a.discovery_port ? a.discovery_port : a.port;
    o.subnqn = NVME_DISC_SUBSYS_NAME;
    Result<std::unique_ptr<Controller>> c = Controller::connect(o);
    if (!check(c.ok() ? Status() : Status(c.error()), "discovery controller connect")) return;
    Result<DiscoveryLog> log = (*c)->discovery_log();
    if (!check(log.ok() ? Status() : Status(log.error()), "discovery log page")) return;
    bool listed = false;
    for (const auto &e : log->entries) {
        const std::string nqn = trim_field(e.subnqn, sizeof(e.subnqn));
        std::printf("     entry: subtype %u trtype %u traddr %s trsvcid %s subnqn %s\n", e.subtype, e.trtype,
                    trim_field(e.traddr, sizeof(e.traddr)).c_str(),
                    trim_field(e.trsvcid, sizeof(e.trsvcid)).c_str(), nqn.c_str());
        listed |= e.subtype == NVME_NQN_NVME && nqn == a.nqn;
    }
    report(listed, "discovery log lists " + a.nqn);
    check((*c)->shutdown(), "discovery controller shutdown");
}

void check_identity(const Args &a, Controller &c, uint32_t &block, uint64_t &nsze) {
    const nvme_id_ctrl &id = c.identity();
    const std::string sn = trim_field(id.sn, sizeof(id.sn)), mn = trim_field(id.mn, sizeof(id.mn));
    std::printf("     id-ctrl: sn '%s' mn '%s' cntlid %u mdts %u ioccsz %u -> max transfer %u\n", sn.c_str(),
                mn.c_str(), c.cntlid(), id.mdts, id.ioccsz, c.max_transfer_bytes());
    if (!a.expect_serial.empty()) report(sn == a.expect_serial, "serial is " + a.expect_serial, sn);
    if (!a.expect_model.empty()) report(mn == a.expect_model, "model is " + a.expect_model, mn);
    Result<std::vector<uint32_t>> active = c.active_namespaces();
    if (check(active.ok() ? Status() : Status(active.error()), "active namespace list"))
        report(!active->empty() && active->front() == 1, "namespace 1 is active");
    Result<nvme_id_ns> ns = c.identify_namespace(1);
    if (!check(ns.ok() ? Status() : Status(ns.error()), "identify namespace 1")) return;
    block = 1u << ns->lbaf[ns->flbas & 0xF].ds;
    nsze = ns->nsze;
    std::printf("     id-ns 1: nsze %llu, %u-byte blocks\n", static_cast<unsigned long long>(nsze), block);
}

void check_read_write(Controller &c, uint32_t block, const std::string &label) {
    uint64_t lba = 0;
    for (uint32_t bytes : {block, 4096u, 128u * 1024, c.max_transfer_bytes()}) {
        if (bytes < block) continue;
        const uint32_t nlb = bytes / block;
        const std::vector<uint8_t> data = pattern(bytes, bytes + lba);
        std::vector<uint8_t> back(bytes, 0xEE);
        const std::string what = label + " write+read " + std::to_string(bytes) + " B";
        Status st = c.write(0, 1, lba, nlb, data.data(), bytes);
        if (st.ok()) st = c.read(0, 1, lba, nlb, back.data(), bytes);
        if (st.ok() && back != data)
            st = make_error(DOCA_ERROR_UNEXPECTED, "read-back differs from what was written");
        check(st, what);
        lba += nlb;
    }
}

void check_queues_in_flight(Controller &c, uint32_t block) {
    constexpr uint32_t kDepth = 8, kIo = 8192;
    std::vector<std::string> errors(c.io_queue_count());
    auto run = [&](size_t qi) {
        TcpQueue &q = c.io_queue(qi);
        const uint32_t nlb = kIo / block;
        const uint64_t base = 4096 + qi * kDepth * nlb;
        std::vector<std::vector<uint8_t>> out(kDepth), in(kDepth, std::vector<uint8_t>(kIo));
        for (uint32_t i = 0; i < kDepth; ++i) out[i] = pattern(kIo, static_cast<uint32_t>(qi * 64 + i));
        for (int phase = 0; phase < 2; ++phase) {
            for (uint32_t i = 0; i < kDepth; ++i) {
                Result<uint16_t> cid = phase == 0
                                           ? q.submit(cmd::write(1, base + i * nlb, nlb),
                                                      DataDir::kHostToController, out[i].data(), kIo, i)
                                           : q.submit(cmd::read(1, base + i * nlb, nlb),
                                                      DataDir::kControllerToHost, in[i].data(), kIo, i);
                if (!cid) return void(errors[qi] = cid.error().describe());
            }
            for (uint32_t done = 0; done < kDepth;) {
                Result<uint32_t> n = q.poll(std::chrono::seconds(30));
                if (!n) return void(errors[qi] = n.error().describe());
                if (*n == 0) return void(errors[qi] = "no completion within 30 s");
                Completion comp;
                while (q.pop_completion(comp)) {
                    if (!comp.nvme_ok()) return void(errors[qi] = describe_status(comp.status()));
                    ++done;
                }
            }
        }
        for (uint32_t i = 0; i < kDepth; ++i)
            if (in[i] != out[i]) return void(errors[qi] = "read-back differs");
    };
    std::vector<std::thread> threads;
    for (size_t qi = 0; qi < c.io_queue_count(); ++qi) threads.emplace_back(run, qi);
    for (auto &t : threads) t.join();
    for (size_t qi = 0; qi < errors.size(); ++qi)
        report(errors[qi].empty(),
               "I/O queue " + std::to_string(qi + 1) + ": 8 writes then 8 reads in flight", errors[qi]);
}

void expect_status(Result<Completion> c, uint8_t sct, uint8_t sc, const std::string &what) {
    if (!c) return report(false, what, c.error().describe());
    report(c->sct() == sct && c->sc() == sc, what, describe_status(c->status()));
}

// Copy (where ONCS offers it): two source ranges land one after the other at the destination.
void check_copy(Controller &c, uint32_t block) {
    std::vector<uint8_t> data = pattern(8 * block, 13), back(6 * block);
    Status st = c.write(0, 1, 400, 8, data.data(), 8 * block);
    if (st.ok()) st = c.copy(0, 1, 500, {{404, 4}, {400, 2}});
    if (st.ok()) st = c.read(0, 1, 500, 6, back.data(), 6 * block);
    std::vector<uint8_t> want(data.begin() + 4 * block, data.end());
    want.insert(want.end(), data.begin(), data.begin() + 2 * block);
    if (st.ok() && back != want)
        st = make_error(DOCA_ERROR_UNEXPECTED, "the destination does not hold the sources");
    check(st, "copy");
}

void check_commands(Controller &c, uint32_t block, uint64_t nsze) {
    const uint16_t oncs = c.identity().oncs;
    check(c.flush(0, 1), "flush");
    if (oncs & NVME_CTRL_ONCS_WRITE_ZEROES) {
        std::vector<uint8_t> data = pattern(4 * block, 9), back(4 * block);
        Status st = c.write(0, 1, 200, 4, data.data(), 4 * block);
        if (st.ok()) st = c.write_zeroes(0, 1, 201, 2);
        if (st.ok()) st = c.read(0, 1, 200, 4, back.data(), 4 * block);
        std::fill(data.begin() + block, data.begin() + 3 * block, 0);
        if (st.ok() && back != data) st = make_error(DOCA_ERROR_UNEXPECTED, "blocks not zeroed as asked");
        check(st, "write zeroes");
    }
    if (oncs & NVME_CTRL_ONCS_DSM) {
        nvme_dsm_range r{};
        r.nlb = 8;
        r.slba = 300;
        check(c.deallocate(0, 1, {r}), "dataset management (deallocate)");
    }
    if (oncs & NVME_CTRL_ONCS_COPY) check_copy(c, block);
    if (oncs & NVME_CTRL_ONCS_VERIFY) check(c.verify(0, 1, 0, 64), "verify");
    std::vector<uint8_t> buf(2 * block);
    // The spec answer is LBA Out of Range (80h); Linux nvmet with a block device passes the range
    // to the block layer and answers Internal Error (06h). Either way it must be refused.
    Result<Completion> past =
        c.io_queue(0).execute(cmd::read(1, nsze - 1, 2), DataDir::kControllerToHost, buf.data(), 2 * block);
    if (!past) {
        report(false, "read past the end is refused", past.error().describe());
    } else {
        const bool spec = past->sct() == NVME_SCT_GENERIC && past->sc() == NVME_SC_LBA_RANGE;
        report(!past->nvme_ok(), "read past the end is refused",
               describe_status(past->status()) + (spec ? "" : " (the spec says LBA Out of Range)"));
    }
    wire::Sqe bad{};
    bad.opcode = 0x7E;
    bad.nsid = 1;
    expect_status(c.io_queue(0).execute(bad), NVME_SCT_GENERIC, NVME_SC_INVALID_OPCODE,
                  "unknown I/O opcode gets Invalid Opcode");
    check(c.keep_alive(), "keep alive");
}

void check_subsystem(const Args &a, ConnectOptions o, bool digests) {
    const std::string label = digests ? "[hdgst+ddgst]" : "[no digests]";
    o.header_digest = o.data_digest = digests;
    Result<std::unique_ptr<Controller>> c = Controller::connect(o);
    if (!check(c.ok() ? Status() : Status(c.error()), label + " connect " + a.nqn)) return;
    Controller &ctrl = **c;
    report(ctrl.io_queue_count() == a.io_queues, label + " " + std::to_string(a.io_queues) + " I/O queues",
           std::to_string(ctrl.io_queue_count()));
    report(ctrl.io_queue(0).params().header_digest == digests &&
               ctrl.io_queue(0).params().data_digest == digests,
           label + " digests negotiated as asked");
    uint32_t block = 512;
    uint64_t nsze = 0;
    if (!digests) check_identity(a, ctrl, block, nsze);
    check_read_write(ctrl, block, label);
    if (!digests) {
        check_queues_in_flight(ctrl, block);
        check_commands(ctrl, block, nsze);
    }
    check(ctrl.shutdown(), label + " shutdown (CC.SHN -> CSTS.SHST complete)");
}

} // namespace

int main(int argc, char **argv) {
    Args a;
    std::string log_level = "warn";
    CLI::App app{"host_check: checks an NVMe/TCP target with skiff's initiator library"};
    app.add_option("--addr", a.addr, "target address");
    app.add_option("--port", a.port, "I/O port");
    app.add_option("--discovery-port", a.discovery_port, "discovery port (default: the I/O port)");
    app.add_option("--nqn", a.nqn, "subsystem NQN")->required();
    app.add_option("--expect-serial", a.expect_serial, "serial number the controller must report");
    app.add_option("--expect-model", a.expect_model, "model number the controller must report");
    app.add_option("--io-queues", a.io_queues, "I/O queues to connect")->check(CLI::Range(1, 64));
    app.add_option("--log-level", log_level, "trace|debug|info|warn|error");
    CLI11_PARSE(app, argc, argv);
    if (auto level = log::parse_level(log_level)) log::set_level(*level);

    ConnectOptions o;
    o.addr = a.addr;
    o.port = a.port;
    o.subnqn = a.nqn;
    o.io_queues = a.io_queues;
    o.io_queue_size = 32;
    o.kato_ms = 30000;
    o.timeout = std::chrono::seconds(30);

    check_discovery(a, o);
    check_subsystem(a, o, false);
    check_subsystem(a, o, true);
    std::printf("host_check: %d passed, %d failed: %s\n", g_passed, g_failed, g_failed ? "FAIL" : "PASS");
    return g_failed ? 1 : 0;
}
