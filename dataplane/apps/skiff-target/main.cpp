// skiff-target: the NVMe-over-Fabrics target (the DPU-side process). Serves what a skiff JSON
// configuration (--config), a Linux nvmet configuration (--nvmetcli) or the command line
// describes, with live management over a Unix socket (skiff-ctl) and SIGHUP reloads.
#include "command_line.hpp"
#include "skiff/config/load.hpp"
#include "skiff/config/nvmetcli.hpp"
#include "skiff/core/log.hpp"
#include "skiff/dataplane/live_config.hpp"
#include "skiff/dataplane/management_server.hpp"
#include "skiff/dataplane/management_socket_path.hpp"
#include "skiff/dataplane/mdns_announcer.hpp"
#include "skiff/dataplane/metrics/metrics_server.hpp"
#include "skiff/dataplane/metrics/target_metrics.hpp"
#include "skiff/dataplane/service_notify.hpp"
#include "skiff/dataplane/target_service.hpp"
#include "skiff/nvmeof/target/target.hpp"

#include <csignal>
#include <cstdio>
#include <memory>
#include <string>

namespace {

using namespace skiff;
namespace tgt = skiff::nvmeof::target;

int fail(const std::string &message) {
    std::fprintf(stderr, "skiff-target: %s\n", message.c_str());
    return 1;
}

void print_lines(const std::vector<std::string> &lines, const char *prefix) {
    for (auto &l : lines) std::fprintf(stderr, "%s%s\n", prefix, l.c_str());
}

// Reads the configuration file the target was started with (or nothing: command line mode).
struct Source {
    std::string path;
    bool nvmetcli = false;
    config::LoadResult load() const {
        return nvmetcli ? config::import_nvmetcli_file(path) : config::load_config_file(path);
    }
};

int check_config(const std::string &path) {
    config::LoadResult r = config::load_config_file(path);
    print_lines(r.warnings, "warning: ");
    if (!r.ok()) {
        print_lines(r.errors, "");
        std::fprintf(stderr, "%s: %zu error(s)\n", path.c_str(), r.errors.size());
        return 1;
    }
    std::printf("%s: valid\n%s", path.c_str(), config::summarize(*r.config).c_str());
    return 0;
}

// Applies the file again; the difference goes live or is refused whole.
Result<std::vector<std::string>> reload(const Source &source, dataplane::LiveConfig &live,
                                        const target_app::Options &o) {
    if (source.path.empty())
        return make_error(DOCA_ERROR_NOT_SUPPORTED, "the target was started without a configuration file");
    config::LoadResult r = source.load();
    if (!r.ok()) {
        std::string text = r.error_text();
        text.pop_back();
        return make_error(DOCA_ERROR_INVALID_VALUE, source.path + " is invalid:\n" + text);
    }
    if (!o.management_socket.empty()) r.config->target.management_socket = o.management_socket;
    // The command line's limits hold for the reloaded file as they did at start.
    if (auto st = target_app::apply_limit_options(o, *r.config); !st) return st.error();
    if (auto st = target_app::apply_metrics_option(o, *r.config); !st) return st.error();
    return live.apply(*r.config);
}

// The management socket: the one the configuration (or --management-socket) names, none for
// "none", else the default (management_socket_path.hpp). A named socket another target holds
// stops the start; a default one held by another target leaves this one without a socket.
struct ManagementSocket {
    dataplane::ManagementSocketClaim claim; // empty path: no socket
    std::string error;                      // set: do not start
};

ManagementSocket choose_management_socket(const std::string &setting) {
    auto logger = log::get("target");
    ManagementSocket out;
    if (setting == "none") {
        logger->info("management socket: none (skiff-ctl cannot reach this target)");
        return out;
    }
    if (!setting.empty()) {
        auto claim = dataplane::ManagementSocketClaim::take(setting, false);
        if (!claim)
            out.error = "management socket: " + claim.error().message +
                        "; name another path or \"none\" (--management-socket)";
        else
            out.claim = std::move(*claim);
        return out;
    }
    std::vector<std::string> notes;
    auto claim = dataplane::claim_default_management_socket(notes);
    for (auto &n : notes) logger->info("management socket: passed over {}", n);
    if (claim)
        out.claim = std::move(*claim);
    else
        logger->warn("management socket: {}; this target runs without one (give --management-socket PATH "
                     "for one)",
                     claim.error().message);
    return out;
}

} // namespace

int main(int argc, char **argv) {
    target_app::Options o;
    if (auto exit_code = target_app::parse_command_line(argc, argv, o)) return *exit_code;

    if (!o.check_file.empty()) return check_config(o.check_file);
    if (o.idle_poll_us < 0 || o.idle_poll_us > 10000000)
        return fail("--idle-poll-us " + std::to_string(o.idle_poll_us) + ": use 0..10000000 (10 s)");
    if (!o.config_file.empty() && !o.nvmetcli_file.empty())
        return fail("--config and --nvmetcli: give one configuration file, not both");

    Source source{o.config_file.empty() ? o.nvmetcli_file : o.config_file, !o.nvmetcli_file.empty()};
    config::Config cfg;
    if (!source.path.empty()) {
        config::LoadResult r = source.load();
        print_lines(r.warnings, "skiff-target: warning: ");
        if (!r.ok()) {
            print_lines(r.errors, "skiff-target: ");
            return fail(source.path + ": " + std::to_string(r.errors.size()) + " error(s); nothing started");
        }
        cfg = *r.config;
        if (!o.management_socket.empty()) cfg.target.management_socket = o.management_socket;
    } else {
        auto made = target_app::config_from_options(o);
        if (!made) return fail(made.error().message);
        cfg = *made;
    }

    if (auto st = target_app::apply_limit_options(o, cfg); !st) return fail(st.error().message);
    if (auto st = target_app::apply_metrics_option(o, cfg); !st) return fail(st.error().message);

    auto level = log::parse_level(cfg.target.log_level);
    log::set_level(*level);
    auto logger = log::get("target");

    // Block the signals before any thread starts so only sigwait() below sees them.
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &set, nullptr);

    ManagementSocket socket = choose_management_socket(cfg.target.management_socket);
    if (!socket.error.empty()) return fail(socket.error);

    tgt::Target target(dataplane::limits_from(cfg.transport()));
    // Before any queue connects: queues decide at Connect whether they keep metrics.
    if (cfg.metrics.accounting_on()) target.enable_metrics();
    dataplane::LiveConfig live(target, cfg);
    if (auto st = live.build(); !st) return fail(st.error().message);
    dataplane::ServiceOptions sopts;
    sopts.poll_groups = cfg.target.cores;
    sopts.poll.idle_poll_us = static_cast<uint32_t>(o.idle_poll_us);
    if (cfg.target.datapath == "dpa") {
        sopts.datapath.mode = nvmeof::transport::DataPathOptions::Mode::dpa;
        sopts.datapath.dpa_eus = static_cast<unsigned>(cfg.target.dpa_eus);
    }
    dataplane::TargetService service(target, sopts);
    if (auto st = service.start(); !st) return fail(st.error().message);
    if (auto st = live.attach(service); !st) return fail(st.error().message);
    for (auto &s : target.subsystems())
        for (auto &ns : s->namespaces())
            logger->info("namespace {} of {}: {} backend, {} bytes, {}-byte blocks", ns->nsid(), s->nqn(),
                         ns->device().kind(), ns->device().size_bytes(), ns->block_size());
    logger->info("{} poll group(s), data path {}", cfg.target.cores, cfg.target.datapath);
    logger->info("limits: {}", config::describe_limits(cfg.transport()));

    std::unique_ptr<dataplane::metrics::MetricsServer> metrics;
    if (!cfg.metrics.listen.empty()) {
        auto addr = nvmeof::transport::parse_listen_address(cfg.metrics.listen); // checked by the loader
        if (!addr) return fail("metrics.listen " + addr.error().message);
        metrics = std::make_unique<dataplane::metrics::MetricsServer>(
            *addr, [&] { return dataplane::metrics::render_target_metrics(target, &service); });
        if (auto st = metrics->start(); !st) return fail(st.error().message);
    }

    // mDNS: the discovery listener as it is bound, announced again after every reload (it may move).
    std::unique_ptr<dataplane::MdnsAnnouncer> mdns;
    if (cfg.mdns.announce) {
        auto made = dataplane::MdnsAnnouncer::create(cfg.mdns.name);
        if (!made) return fail(made.error().message);
        mdns = std::move(*made);
        mdns->announce(live.discovery_address());
    }

    std::unique_ptr<dataplane::ManagementServer> management;
    if (!socket.claim.path().empty()) {
        management = std::make_unique<dataplane::ManagementServer>(live, socket.claim.path(), [&] {
            auto r = reload(source, live, o);
            if (r && mdns) mdns->announce(live.discovery_address());
            return r;
        });
        if (auto st = management->start(); !st) return fail(st.error().message);
    }

    // Under systemd (Type=notify): serving now; the watchdog follows the poll groups.
    dataplane::notify_ready(std::to_string(target.subsystems().size()) + " subsystem(s), management socket " +
                            (management ? socket.claim.path() : std::string("none")));
    dataplane::PollGroupWatchdog watchdog(service);
    watchdog.start();

    for (;;) {
        int sig = 0;
        sigwait(&set, &sig);
        if (sig != SIGHUP) {
            logger->info("signal {} received: shutting down", sig == SIGINT ? "SIGINT" : "SIGTERM");
            break;
        }
        auto r = reload(source, live, o);
        if (!r) {
            logger->error("SIGHUP: reload refused, nothing changed: {}", r.error().message);
            dataplane::notify_status("last reload refused: " + r.error().message);
        } else {
            if (mdns) mdns->announce(live.discovery_address());
            logger->info("SIGHUP: reload applied ({} change(s))", r->size());
            dataplane::notify_status("last reload applied: " + std::to_string(r->size()) + " change(s)");
        }
    }
    dataplane::notify_stopping("shutting down");
    watchdog.stop();
    if (management) management->stop();
    if (metrics) metrics->stop();
    mdns.reset(); // withdraws the announcement
    service.stop();
    return 0;
}
