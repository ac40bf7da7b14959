#include "qos.hpp"

#include <algorithm>
#include <cstdio>
#include <memory>

namespace skiff::ctl {
namespace {

using nlohmann::json;

// The options of `qos set`, by the configuration key each sets.
struct LimitOption {
    const char *flag;
    const char *key;
    const char *help;
};
constexpr LimitOption kLimitOptions[] = {
    {"--rw-iops", "rw_ios_per_sec", "reads and writes together, I/O commands per second"},
    {"--read-iops", "read_ios_per_sec", "reads (Read, Compare, Verify), commands per second"},
    {"--write-iops", "write_ios_per_sec", "writes (Write, Write Zeroes, DSM, Copy), commands per second"},
    {"--rw-bps", "rw_bytes_per_sec", "reads and writes together, bytes per second (\"200MiB\", \"1GiB\")"},
    {"--read-bps", "read_bytes_per_sec", "reads, bytes per second"},
    {"--write-bps", "write_bytes_per_sec", "writes, bytes per second"},
};

// A plain number goes as a number; anything else ("200MiB") as text the target checks.
json limit_value(const std::string &text) {
    if (!text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return std::stoull(text);
    return text;
}

const char *kSetFooter =
    "Limits the I/O of namespace NSID of subsystem NQN, live: commands over a limit wait in the\n"
    "target (they are queued, never failed) until the limit allows them, so hosts see a lower rate\n"
    "and a higher latency, not errors. A change takes effect within a second, also for I/O that is\n"
    "waiting already. Limits not named stay as they are; 0 removes one; --clear removes them all\n"
    "(with --host: that host's).\n"
    "\n"
    "Each limit counts reads and writes together (--rw-*) or one direction; every limit that applies\n"
    "must allow a command before it runs. With --host the limits apply to that host's I/O on the\n"
    "namespace only, on top of the namespace's own limits (which all hosts share).\n"
    "\n"
    "The change is made to the running configuration (namespaces[].qos, see config/README.md);\n"
    "skiff-ctl save keeps it across restarts.\n"
    "\n"
    "Examples:\n"
    "  skiff-ctl qos set nqn.2026-11.io.skiff:default 1 --rw-iops 5000\n"
    "      at most 5,000 I/O commands per second on namespace 1, all hosts together\n"
    "  skiff-ctl qos set nqn.2026-11.io.skiff:default 1 --write-bps 200MiB\n"
    "      and at most 200 MiB/s of writes\n"
    "  skiff-ctl qos set nqn.2026-11.io.skiff:default 1 --host nqn.2014-08.org.nvmexpress:uuid:1b4e... "
    "--rw-iops 1000\n"
    "      one host gets at most 1,000 IOPS on it\n"
    "  skiff-ctl qos set nqn.2026-11.io.skiff:default 1 --clear\n"
    "      no namespace-wide limit any more (hosts' own limits stay)\n"
    "  skiff-ctl qos show\n"
    "      every namespace's limits and the I/O they held back";

const char *kShowFooter =
    "Prints each namespace's QoS limits (as configured; '-' for none) and, when the target keeps I/O\n"
    "accounting (--io-accounting, --metrics or \"metrics\": {\"accounting\": true}), how many\n"
    "commands waited for a limit since the start and for how long in total (summed over commands).\n"
    "The same counts are on the metrics endpoint as skiff_namespace_qos_throttled_ios_total and\n"
    "skiff_namespace_qos_throttled_seconds_total. --json prints the method's answer (qos.show).";

std::string limits_text(const json &limits) {
    std::string out;
    for (const LimitOption &o : kLimitOptions) {
        if (!limits.contains(o.key)) continue;
        const json &v = limits[o.key];
        out += (out.empty() ? "" : " ") + std::string(o.flag + 2) + "=" +
               (v.is_string() ? v.get<std::string>() : v.dump());
    }
    return out.empty() ? "-" : out;
}

} // namespace

void add_qos_commands(CLI::App &app, QosCommand &out) {
    auto *qos = app.add_subcommand("qos", "limit a namespace's (or a host's) IOPS and bandwidth, live")
                    ->require_subcommand(1);
    // Kept alive with the app: CLI11 writes into these while parsing.
    struct SetArgs {
        std::string nqn, host;
        uint32_t nsid = 0;
        bool clear = false;
        std::string limits[std::size(kLimitOptions)];
    };
    auto args = std::make_shared<SetArgs>();
    auto *set = qos->add_subcommand("set", "set, change or clear limits of namespace NSID of NQN");
    set->footer(kSetFooter);
    set->add_option("nqn", args->nqn, "the subsystem's NQN")->required();
    set->add_option("nsid", args->nsid, "the namespace id")->required();
    set->add_option("--host", args->host,
                    "limits of this host (its host NQN) on the namespace, not of all hosts");
    for (size_t i = 0; i < std::size(kLimitOptions); ++i)
        set->add_option(kLimitOptions[i].flag, args->limits[i], kLimitOptions[i].help);
    set->add_flag("--clear", args->clear, "remove every limit first (of the namespace, or of --host)");
    set->final_callback([&out, args] {
        out.method = "qos.set";
        out.params = {{"nqn", args->nqn}, {"nsid", args->nsid}};
        if (!args->host.empty()) out.params["host"] = args->host;
        if (args->clear) out.params["clear"] = true;
        for (size_t i = 0; i < std::size(kLimitOptions); ++i)
            if (!args->limits[i].empty()) out.params[kLimitOptions[i].key] = limit_value(args->limits[i]);
    });

    auto subsystem = std::make_shared<std::string>();
    auto *show = qos->add_subcommand("show", "show the limits and how much I/O waited for them");
    show->footer(kShowFooter);
    show->add_option("--subsystem", *subsystem, "only this subsystem (NQN)");
    show->add_flag("--json", out.json, "the JSON answer instead of a table");
    show->final_callback([&out, subsystem] {
        out.method = "qos.show";
        out.params = json::object();
        if (!subsystem->empty()) out.params["subsystem"] = *subsystem;
    });
}

void print_qos_show(const json &result, bool as_json) {
    if (as_json) {
        std::printf("%s\n", result.dump(2).c_str());
        return;
    }
    std::printf("%-44s %5s %14s %14s  %s\n", "subsystem", "nsid", "throttled_ios", "throttled_s", "limits");
    for (const json &ns : result.value("namespaces", json::array())) {
        std::printf("%-44s %5u %14llu %14.3f  %s\n", ns.value("subsystem", "").c_str(), ns.value("nsid", 0u),
                    static_cast<unsigned long long>(ns.value("throttled_ios", uint64_t(0))),
                    ns.value("throttled_seconds", 0.0),
                    limits_text(ns.value("limits", json::object())).c_str());
        for (const json &h : ns.value("hosts", json::array()))
            std::printf("%-44s %5s %14s %14s  %s\n", ("  host " + h.value("nqn", "")).c_str(), "", "", "",
                        limits_text(h).c_str());
    }
}

} // namespace skiff::ctl
