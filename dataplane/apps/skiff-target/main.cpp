// skiff-target: the NVMe-over-Fabrics target (the DPU-side process). Serves what a skiff JSON
// configuration (--config), a Linux nvmet configuration (--nvmetcli) or the command line
// describes, with live management over a Unix socket (skiff-ctl) and SIGHUP reloads.
#include "command_line.hpp"
#include "skiff/config/load.hpp"
#include "skiff/config/nvmetcli.hpp"
#include "skiff/core/log.hpp"
#include "skiff/dataplane/live_config.hpp"
#include "skiff/dataplane/management_server.hpp"
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
                                        const std::string &socket_override) {
    if (source.path.empty())
        return make_error(DOCA_ERROR_NOT_SUPPORTED, "the target was started without a configuration file");
    config::LoadResult r = source.load();
    if (!r.ok()) {
        std::string text = r.error_text();
        text.pop_back();
        return make_error(DOCA_ERROR_INVALID_VALUE, source.path + " is invalid:\n" + text);
    }
    if (!socket_override.empty()) r.config->target.management_socket = socket_override;
    return live.apply(*r.config);
}

} // namespace

int main(int argc, char **argv) {
    target_app::Options o;
    CLI::App app{
        "skiff-target: NVMe-over-Fabrics target (the DPU-side process).\n"
        "With no arguments: a 1 GiB RAM namespace in nqn.2026-11.io.skiff:default on 127.0.0.1:4420,\n"
        "discovery on 127.0.0.1:8009. From a Linux host:\n"
        "  nvme discover -t tcp -a 127.0.0.1 -s 8009\n"
        "  nvme connect -t tcp -a 127.0.0.1 -s 4420 -n nqn.2026-11.io.skiff:default\n"
        "With --config FILE (or --nvmetcli FILE): everything the file describes; change it live with\n"
        "skiff-ctl (target.management_socket or --management-socket) or edit the file and send SIGHUP.\n"
        "Stop with Ctrl-C (SIGINT) or SIGTERM."};
    target_app::add_options(app, o);
    CLI11_PARSE(app, argc, argv);

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

    tgt::Target target(dataplane::limits_from(cfg.transport()));
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

    std::unique_ptr<dataplane::ManagementServer> management;
    if (!cfg.target.management_socket.empty()) {
        management = std::make_unique<dataplane::ManagementServer>(
            live, cfg.target.management_socket, [&] { return reload(source, live, o.management_socket); });
        if (auto st = management->start(); !st) return fail(st.error().message);
    }

    for (;;) {
        int sig = 0;
        sigwait(&set, &sig);
        if (sig != SIGHUP) {
            logger->info("signal {} received: shutting down", sig == SIGINT ? "SIGINT" : "SIGTERM");
            break;
        }
        auto r = reload(source, live, o.management_socket);
        if (!r)
            logger->error("SIGHUP: reload refused, nothing changed: {}", r.error().message);
        else
            logger->info("SIGHUP: reload applied ({} change(s))", r->size());
    }
    if (management) management->stop();
    service.stop();
    return 0;
}
