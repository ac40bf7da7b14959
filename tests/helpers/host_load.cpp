// host_load: a small load generator on skiff's initiator library, to show that one I/O queue
// sustains deep queues (QD32) and to measure what the initiator plus a target deliver:
//   host_load --port 4420 --nqn NQN [--rw randread|randwrite] [--bs 4096] [--qd 32]
//             [--queues 1] [--seconds 5] [--digests] [--batch]
// One thread per I/O queue, each keeping qd commands in flight (submit, poll, resubmit) from
// buffers allocated once up front. Prints IOPS, MiB/s and mean latency; exit 0 unless an I/O failed.
#include "skiff/core/log.hpp"
#include "skiff/nvmeof/host/commands.hpp"
#include "skiff/nvmeof/host/controller.hpp"
#include "skiff/nvmeof/host/nvme_status.hpp"

#include <CLI/CLI.hpp>

#include <atomic>
#include <cstdio>
#include <random>
#include <thread>

using namespace skiff;
using namespace skiff::nvmeof;
using namespace skiff::nvmeof::host;

namespace {

struct Job {
    bool write = false;
    uint32_t bs = 4096;
    uint32_t qd = 32;
    uint32_t block = 512;
    uint64_t nsze = 0;
    std::chrono::seconds duration{5};
    bool batch = false; // the capsules of one refill leave together (one sendmsg)
};

struct QueueStats {
    uint64_t ios = 0;
    double latency_sum_us = 0;
    std::string error;
};

void run_queue(TcpQueue &q, const Job &job, uint32_t seed, QueueStats &stats) {
    const uint32_t nlb = job.bs / job.block;
    const uint64_t slots = job.nsze / nlb;
    std::mt19937_64 rng(seed);
    std::vector<std::vector<uint8_t>> bufs(job.qd, std::vector<uint8_t>(job.bs, static_cast<uint8_t>(seed)));
    std::vector<Clock::time_point> started(job.qd);
    auto submit = [&](uint32_t i, bool more) -> bool {
        const uint64_t lba = (rng() % slots) * nlb;
        const wire::Sqe sqe = job.write ? cmd::write(1, lba, nlb) : cmd::read(1, lba, nlb);
        started[i] = Clock::now();
        Result<uint16_t> cid =
            q.submit(sqe, job.write ? DataDir::kHostToController : DataDir::kControllerToHost, bufs[i].data(),
                     job.bs, i, more && job.batch);
        if (!cid) stats.error = cid.error().describe();
        return cid.ok();
    };
    for (uint32_t i = 0; i < job.qd; ++i)
        if (!submit(i, i + 1 < job.qd)) return;
    const Deadline end = Clock::now() + job.duration;
    uint32_t in_flight = job.qd;
    std::vector<uint32_t> again(job.qd); // slots to resubmit after this poll, as one batch
    while (in_flight > 0) {
        Result<uint32_t> n = q.poll(std::chrono::milliseconds(1000));
        if (!n) return void(stats.error = n.error().describe());
        Completion c;
        const auto now = Clock::now();
        uint32_t count = 0;
        while (q.pop_completion(c)) {
            --in_flight;
            if (!c.nvme_ok()) return void(stats.error = describe_status(c.status()));
            ++stats.ios;
            stats.latency_sum_us += std::chrono::duration<double, std::micro>(now - started[c.tag]).count();
            if (now < end) again[count++] = static_cast<uint32_t>(c.tag);
        }
        for (uint32_t i = 0; i < count; ++i) {
            if (!submit(again[i], i + 1 < count)) return;
            ++in_flight;
        }
    }
}

} // namespace

int main(int argc, char **argv) {
    ConnectOptions o;
    Job job;
    std::string rw = "randread";
    uint16_t queues = 1;
    int seconds = 5;
    bool digests = false;
    CLI::App app{"host_load: random 4k-style load through skiff's NVMe/TCP initiator"};
    app.add_option("--addr", o.addr, "target address");
    app.add_option("--port", o.port, "target port");
    app.add_option("--nqn", o.subnqn, "subsystem NQN")->required();
    app.add_option("--rw", rw, "randread|randwrite")->check(CLI::IsMember({"randread", "randwrite"}));
    app.add_option("--bs", job.bs, "bytes per I/O (a multiple of the block size)");
    app.add_option("--qd", job.qd, "commands in flight per queue")->check(CLI::Range(1, 1023));
    app.add_option("--queues", queues, "I/O queues, one thread each")->check(CLI::Range(1, 64));
    app.add_option("--seconds", seconds, "run time")->check(CLI::Range(1, 3600));
    app.add_flag("--digests", digests, "header and data digests on");
    app.add_flag("--batch", job.batch, "submit the refills of one poll as one batch (one sendmsg)");
    CLI11_PARSE(app, argc, argv);
    log::set_level(spdlog::level::warn);
    job.write = rw == "randwrite";
    job.duration = std::chrono::seconds(seconds);
    o.io_queues = queues;
    o.io_queue_size = static_cast<uint16_t>(job.qd + 1);
    o.header_digest = o.data_digest = digests;

    Result<std::unique_ptr<Controller>> ctrl = Controller::connect(o);
    if (!ctrl) return std::fprintf(stderr, "host_load: %s\n", ctrl.error().describe().c_str()), 1;
    Result<nvme_id_ns> ns = (*ctrl)->identify_namespace(1);
    if (!ns) return std::fprintf(stderr, "host_load: %s\n", ns.error().describe().c_str()), 1;
    job.block = 1u << ns->lbaf[ns->flbas & 0xF].ds;
    job.nsze = ns->nsze;
    if (job.bs % job.block != 0 || job.bs > (*ctrl)->max_transfer_bytes())
        return std::fprintf(stderr, "host_load: --bs %u must be a multiple of %u and at most %u\n", job.bs,
                            job.block, (*ctrl)->max_transfer_bytes()),
               2;

    std::vector<QueueStats> stats((*ctrl)->io_queue_count());
    std::vector<std::thread> threads;
    const auto t0 = Clock::now();
    for (size_t i = 0; i < stats.size(); ++i)
        threads.emplace_back(
            [&, i] { run_queue((*ctrl)->io_queue(i), job, static_cast<uint32_t>(i + 1), stats[i]); });
    for (auto &t : threads) t.join();
    const double secs = std::chrono::duration<double>(Clock::now() - t0).count();
    uint64_t ios = 0;
    double lat = 0;
    int failed = 0;
    for (size_t i = 0; i < stats.size(); ++i) {
        ios += stats[i].ios;
        lat += stats[i].latency_sum_us;
        if (!stats[i].error.empty()) {
            ++failed;
            std::fprintf(stderr, "host_load: queue %zu: %s\n", i + 1, stats[i].error.c_str());
        }
    }
    std::printf("host_load: %s bs %u qd %u queues %zu%s%s: %.0f IOPS, %.1f MiB/s, mean latency %.1f us\n",
                rw.c_str(), job.bs, job.qd, stats.size(), digests ? " digests" : "",
                job.batch ? " batched" : "", ios / secs, ios * job.bs / secs / (1 << 20),
                ios ? lat / ios : 0.0);
    return failed ? 1 : 0;
}
