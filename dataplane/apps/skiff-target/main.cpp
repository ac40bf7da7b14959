// skiff-target: the NVMe-oF target (DPU side).
// Until the NVMe/TCP transport lands (issue 4) it only brings the core up and waits for a signal.
#include "skiff/core/log.hpp"

#include <CLI/CLI.hpp>

#include <csignal>
#include <string>

int main(int argc, char **argv) {
    CLI::App app{"skiff-target: NVMe-over-Fabrics target for DPUs and Linux servers"};
    std::string level = "info";
    app.add_option("--log-level", level, "trace|debug|info|warn|error|critical|off")->capture_default_str();
    CLI11_PARSE(app, argc, argv);

    auto parsed = skiff::log::parse_level(level);
    if (!parsed) {
        std::fprintf(stderr, "--log-level: unknown level \"%s\"\n", level.c_str());
        return 2;
    }
    skiff::log::set_level(*parsed);
    auto log = skiff::log::get("target");

    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigprocmask(SIG_BLOCK, &set, nullptr);
    log->info("skiff-target started (no transport yet); Ctrl-C to stop");
    int sig = 0;
    sigwait(&set, &sig);
    log->info("signal {}: shutting down", sig);
    return 0;
}
