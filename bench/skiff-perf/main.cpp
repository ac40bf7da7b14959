// skiff-perf: an NVMe-oF load generator on skiff's own initiator. See options.cpp (--help) for
// the job options, worker.hpp for the polling loop and histogram.hpp for how latency is kept.
#include "options.hpp"
#include "report.hpp"
#include "session.hpp"
#include "worker.hpp"

#include "skiff/core/log.hpp"

#include <nlohmann/json.hpp>

#include <sched.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <thread>

using namespace skiff;
using namespace skiff::perf;

namespace {

std::atomic<bool> g_stop{false};

void pin_to(int core) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(core, &set);
    if (sched_setaffinity(0, sizeof(set), &set) != 0)
        std::fprintf(stderr, "skiff-perf: cannot pin a thread to core %d (continuing unpinned)\n", core);
}

int fail(const std::string &why) {
    std::fprintf(stderr, "skiff-perf: %s\n", why.c_str());
    return 1;
}

// Prints one line per second until the window ends, Ctrl-C, or every worker has stopped (a
// failed I/O stops its worker: skiff-perf then exits at once, not at the end of --time).
void show_progress(const PerfOptions &o, const RunWindow &w, std::vector<std::unique_ptr<Worker>> &workers,
                   const std::atomic<size_t> &stopped_workers) {
    const auto start = PerfClock::now();
    uint64_t last_ios = 0, last_bytes = 0, last_lat = 0;
    auto all_stopped = [&] { return stopped_workers.load() == workers.size(); };
    for (int second = 1; !g_stop.load(); ++second) {
        const auto tick = std::min(start + std::chrono::seconds(second), w.end);
        while (PerfClock::now() < tick && !g_stop.load() && !all_stopped())
            std::this_thread::sleep_for(
                std::min<PerfClock::duration>(tick - PerfClock::now(), std::chrono::milliseconds(20)));
        if (PerfClock::now() >= w.end || all_stopped()) break;
        uint64_t ios = 0, bytes = 0, lat = 0;
        for (auto &wk : workers) {
            ios += wk->live().ios.load(std::memory_order_relaxed);
            bytes += wk->live().bytes.load(std::memory_order_relaxed);
            lat += wk->live().latency_ns.load(std::memory_order_relaxed);
        }
        if (o.progress) {
            const uint64_t d = ios - last_ios;
            std::fprintf(stderr, "[%3ds]%s %s IOPS  %.1f MiB/s  avg %.1f us\n", second,
                         tick <= w.measure_start ? " ramp" : "", short_count(double(d)).c_str(),
                         double(bytes - last_bytes) / (1 << 20),
                         d ? double(lat - last_lat) / d / 1000.0 : 0.0);
        }
        last_ios = ios, last_bytes = bytes, last_lat = lat;
    }
}

} // namespace

int main(int argc, char **argv) {
    Result<PerfOptions> parsed = parse_options(argc, argv);
    if (!parsed) {
        if (parsed.error().code == DOCA_ERROR_AGAIN)
            return std::printf("%s", parsed.error().message.c_str()), 0;
        return fail(parsed.error().message + " (see --help)");
    }
    const PerfOptions o = *parsed;
    log::set_level(spdlog::level::warn);

    Result<std::unique_ptr<Session>> session = connect_session(o);
    if (!session) return fail("connect: " + session.error().describe());
    const NamespaceGeometry geo = (*session)->geometry();
    if (o.bs % geo.block_size != 0 || o.bs > geo.max_transfer)
        return fail("--bs " + std::to_string(o.bs) + ": the namespace needs a multiple of " +
                    std::to_string(geo.block_size) + " bytes, at most " + std::to_string(geo.max_transfer));
    const uint64_t units = geo.blocks / (o.bs / geo.block_size);
    const std::vector<QueueSlice> slices = split_units(units, o.queues);
    if (slices.back().units <= (o.verify ? o.qd : 0))
        return fail("the namespace (" + std::to_string(geo.blocks) + " blocks) is too small for " +
                    std::to_string(o.queues) + " queue(s) of --bs " + std::to_string(o.bs) +
                    (o.verify ? " with --verify (each queue needs more than --qd units)" : ""));

    VerifyState verify;
    if (o.verify) {
        verify.generation.assign(units, 0);
        verify.in_flight.assign(units, 0);
    }
    const size_t threads = std::min<size_t>(o.cores.empty() ? 1 : o.cores.size(), o.queues);
    std::vector<std::vector<QueueAssignment>> per_thread(threads);
    for (size_t i = 0; i < o.queues; ++i)
        per_thread[i % threads].push_back({&(*session)->queue(i), slices[i], o.seed + i});
    std::vector<std::unique_ptr<Worker>> workers;
    for (auto &qs : per_thread)
        workers.push_back(std::make_unique<Worker>(o, geo, std::move(qs), o.verify ? &verify : nullptr));

    if (!o.json)
        std::fprintf(stderr, "skiff-perf: %s, %s bs=%u qd=%u queues=%u threads=%zu, %.1f s + %.1f s ramp\n",
                     (*session)->describe().c_str(), pattern_name(o.rw), o.bs, o.qd, o.queues, threads,
                     o.time.count() / 1000.0, o.ramp.count() / 1000.0);
    std::signal(SIGINT, [](int) { g_stop.store(true); });
    std::signal(SIGTERM, [](int) { g_stop.store(true); });

    RunWindow window;
    window.measure_start = PerfClock::now() + o.ramp;
    window.end = window.measure_start + o.time;
    std::vector<std::thread> pool;
    std::atomic<size_t> stopped_workers{0};
    for (size_t t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
            if (!o.cores.empty()) pin_to(o.cores[t]);
            workers[t]->run(window, g_stop);
            // A failed I/O ends the whole run: the other workers stop too.
            if (!workers[t]->result().error.empty()) g_stop.store(true);
            stopped_workers.fetch_add(1);
        });
    show_progress(o, window, workers, stopped_workers);
    for (auto &th : pool) th.join();
    const auto finished = std::min(PerfClock::now(), window.end);

    RunSummary summary;
    summary.seconds = std::chrono::duration<double>(finished - window.measure_start).count();
    std::string errors;
    for (auto &w : workers) {
        const WorkerResult &r = w->result();
        summary.latency.merge(r.latency);
        summary.reads += r.reads;
        summary.writes += r.writes;
        summary.verified_blocks += r.verified_blocks;
        summary.all_ios += r.all_ios;
        summary.all_reads += r.all_reads;
        summary.all_writes += r.all_writes;
        summary.calls.sends += r.calls.sends;
        summary.calls.reads += r.calls.reads;
        summary.calls.empty_reads += r.calls.empty_reads;
        if (!r.error.empty()) errors += (errors.empty() ? "" : "; ") + r.error;
    }
    const std::string target = (*session)->describe();
    if (!errors.empty()) return fail(errors);
    if (Status st = (*session)->shutdown(); !st)
        std::fprintf(stderr, "skiff-perf: shutdown: %s\n", st.error().describe().c_str());
    if (o.json)
        std::printf("%s\n", to_json(o, summary, target).dump().c_str());
    else
        std::printf("%s", to_text(o, summary).c_str());
    if (summary.ios() == 0) return fail("no I/O completed inside the measured window");
    return 0;
}
