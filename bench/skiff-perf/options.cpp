#include "options.hpp"

#include "skiff/core/man_page.hpp"
#include "skiff/nvmeof/auth/secret_file.hpp"
#include "skiff/nvmeof/transport/ip_address.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <tuple>

namespace skiff::perf {
namespace {

Error bad(const std::string &option, const std::string &text, const std::string &expected) {
    return make_error(DOCA_ERROR_INVALID_VALUE, option + " \"" + text + "\": expected " + expected);
}

// Splits "123abc" into 123 and "abc"; false when there is no leading number.
bool split_number(const std::string &text, uint64_t &number, std::string &unit) {
    size_t i = 0;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
    if (i == 0 || i > 15) return false;
    number = std::stoull(text.substr(0, i));
    unit = text.substr(i);
    std::transform(unit.begin(), unit.end(), unit.begin(), [](unsigned char c) { return std::tolower(c); });
    return true;
}

cli::ManPage man_page() {
    cli::ManPage m;
    m.name = "skiff-perf - NVMe-over-Fabrics load generator (a userspace NVMe/TCP initiator)";
    m.synopsis = "skiff-perf --addr ADDR --port PORT --nqn NQN [--rw PATTERN] [--bs SIZE] [--qd N] [OPTIONS]";
    m.description =
        "skiff-perf connects to an NVMe/TCP target (skiff-target, Linux nvmet, SPDK, ...) from user\n"
        "space, runs one fio-style job on one namespace and prints IOPS, MiB/s and latency\n"
        "percentiles (with --json, one JSON object on stdout). It needs no kernel NVMe modules and no\n"
        "root.\n"
        "\n"
        "Each of --queues connections is one I/O queue with --qd commands in flight; the queues are\n"
        "spread over one polling thread per --cores entry. The job runs --ramp unmeasured, then\n"
        "--time measured. --verify writes blocks stamped with their LBA and checks every block read.\n"
        "\n"
        "Exit status: 0 when the run completed (and verified); 1 on a bad option, a connect or I/O\n"
        "error, a verify mismatch, or no I/O completed in the measured window.";
    m.examples =
        "skiff-perf --addr 127.0.0.1 --port 4420 --nqn nqn.2026-11.io.skiff:default \\\n"
        "           --rw randread --bs 4k --qd 32 --time 10s --cores 1\n"
        "    4 KiB random reads at queue depth 32 for 10 s (after a 2 s ramp), one thread on core 1\n"
        "skiff-perf --addr 192.168.100.2 --port 4420 --nqn nqn.2026-11.io.skiff:default \\\n"
        "           --rw randrw --rwmixread 70 --bs 16k --queues 4 --cores 0-3 --verify --json\n"
        "    a 70/30 verified mix over four queues on four cores, as JSON\n"
        "skiff-perf --addr ::1 --port 4420 --nqn nqn.2026-11.io.skiff:default --time 5s\n"
        "    the same over IPv6 (the address alone, with or without brackets)";
    m.see_also = "skiff-target --help, fio(1); bench/README.md";
    return m;
}

} // namespace

const char *pattern_name(Pattern p) {
    switch (p) {
    case Pattern::kRead:
        return "read";
    case Pattern::kWrite:
        return "write";
    case Pattern::kRandRead:
        return "randread";
    case Pattern::kRandWrite:
        return "randwrite";
    case Pattern::kRandRw:
        return "randrw";
    }
    return "?";
}

Result<Pattern> parse_pattern(const std::string &text) {
    for (Pattern p :
         {Pattern::kRead, Pattern::kWrite, Pattern::kRandRead, Pattern::kRandWrite, Pattern::kRandRw})
        if (text == pattern_name(p)) return p;
    return bad("--rw", text, "read, write, randread, randwrite or randrw");
}

Result<uint64_t> parse_size(const std::string &text) {
    uint64_t n = 0;
    std::string unit;
    if (!split_number(text, n, unit))
        return bad("size", text, "a number with an optional unit (4k, 128KiB, 1m)");
    if (unit.empty() || unit == "b") return n;
    if (unit == "k" || unit == "kb" || unit == "kib") return n << 10;
    if (unit == "m" || unit == "mb" || unit == "mib") return n << 20;
    if (unit == "g" || unit == "gb" || unit == "gib") return n << 30;
    return bad("size", text, "a unit of k, m or g (powers of 1024)");
}

Result<std::chrono::milliseconds> parse_duration(const std::string &text) {
    uint64_t n = 0;
    std::string unit;
    if (!split_number(text, n, unit))
        return bad("duration", text, "a number with an optional unit (10s, 500ms, 2m)");
    if (unit.empty() || unit == "s") return std::chrono::milliseconds(n * 1000);
    if (unit == "ms") return std::chrono::milliseconds(n);
    if (unit == "m" || unit == "min") return std::chrono::milliseconds(n * 60000);
    return bad("duration", text, "a unit of ms, s or m");
}

Result<std::vector<int>> parse_cores(const std::string &text) {
    std::vector<int> cores;
    size_t start = 0;
    while (start <= text.size()) {
        const size_t comma = std::min(text.find(',', start), text.size());
        const std::string item = text.substr(start, comma - start);
        const size_t dash = item.find('-');
        uint64_t lo = 0, hi = 0;
        std::string rest;
        if (!split_number(item.substr(0, dash), lo, rest) || !rest.empty())
            return bad("--cores", text, "core numbers and ranges such as 1, 0,2 or 0-3");
        hi = lo;
        if (dash != std::string::npos &&
            (!split_number(item.substr(dash + 1), hi, rest) || !rest.empty() || hi < lo))
            return bad("--cores", text, "ranges written low-high, such as 0-3");
        if (hi >= 1024) return bad("--cores", text, "core numbers below 1024");
        for (uint64_t c = lo; c <= hi; ++c) {
            if (std::find(cores.begin(), cores.end(), static_cast<int>(c)) != cores.end())
                return bad("--cores", text, "each core once");
            cores.push_back(static_cast<int>(c));
        }
        start = comma + 1;
    }
    return cores;
}

Result<PerfOptions> parse_options(int argc, const char *const *argv) {
    PerfOptions o;
    std::string rw = pattern_name(o.rw), bs = "4k", time = "10s", ramp = "2s", cores;
    CLI::App app{"", "skiff-perf"};
    cli::set_man_page(app, man_page());
    app.add_option("--rw", rw, "read|write (sequential), randread|randwrite|randrw")->capture_default_str();
    app.add_option("--rwmixread", o.rwmixread, "randrw: percent of the I/Os that are reads")
        ->check(CLI::Range(0, 100))
        ->capture_default_str();
    app.add_option("--bs", bs, "bytes per I/O: 512, 4k, 128k, ... (a multiple of the namespace block size)")
        ->capture_default_str();
    app.add_option("--qd", o.qd, "commands in flight per queue")
        ->check(CLI::Range(1, 1023))
        ->capture_default_str();
    app.add_option("--time", time, "measured run time: 10s, 500ms, 1m")->capture_default_str();
    app.add_option("--ramp", ramp, "run this long before measuring (0 for none)")->capture_default_str();
    app.add_option("--queues", o.queues, "I/O queues (connections), spread over the --cores threads")
        ->check(CLI::Range(1, 256))
        ->capture_default_str();
    app.add_option(
        "--cores", cores,
        "one polling thread per listed core, pinned: 1 | 0,2 | 0-3 (default: one unpinned thread)");
    app.add_flag("--verify", o.verify,
                 "stamp every written block with its LBA and a generation, check every block read "
                 "(exactly, when this run wrote it)");
    app.add_option("--nsid", o.nsid, "namespace to use")
        ->check(CLI::Range(1u, 0xFFFFFFFEu))
        ->capture_default_str();
    app.add_option("--seed", o.seed, "random seed for offsets and the read/write mix")->capture_default_str();
    app.add_option("--transport", o.transport, "tcp (rdma when the in-repo RDMA initiator lands)")
        ->check(CLI::IsMember({"tcp"}))
        ->capture_default_str();
    app.add_option("--addr", o.addr, "target address: IPv4, IPv6 (::1 or [::1]) or a host name")
        ->capture_default_str();
    app.add_option("--port", o.port, "target port")->capture_default_str();
    app.add_option("--nqn", o.nqn, "subsystem NQN")->capture_default_str();
    app.add_option("--hostnqn", o.hostnqn, "host NQN to connect as (default: a fresh uuid-based NQN)");
    auto *secret_opt = app.add_option(
        "--dhchap-secret", o.dhchap_secret,
        "DH-HMAC-CHAP host secret (\"DHHC-1:xx:...:\" from nvme gen-dhchap-key): every queue "
        "authenticates when the target asks; needs --hostnqn, the NQN the secret is configured for. "
        "Other local users can read command lines: prefer --dhchap-secret-file");
    std::string secret_file, ctrl_secret_file;
    app.add_option("--dhchap-secret-file", secret_file,
                   "the host secret, read from this file's first line (mode 0600, else a warning)")
        ->excludes(secret_opt);
    auto *ctrl_opt =
        app.add_option("--dhchap-ctrl-secret", o.dhchap_ctrl_secret,
                       "DH-HMAC-CHAP controller secret: the target must prove it holds it (bidirectional)");
    app.add_option("--dhchap-ctrl-secret-file", ctrl_secret_file,
                   "the controller secret, read from this file's first line")
        ->excludes(ctrl_opt);
    app.add_flag("--concat", o.concat,
                 "secure channel concatenation (as nvme connect --concat): the admin queue authenticates "
                 "with --dhchap-secret in plaintext and asks for a new TLS PSK; the connection then starts "
                 "over on TLS 1.3 with the PSK both sides derived from that authentication (no --psk-file)");
    app.add_flag("--hdgst", o.header_digest, "ask for header digests (CRC32C)");
    app.add_flag("--ddgst", o.data_digest, "ask for data digests (CRC32C)");
    app.add_flag("--tls", o.tls,
                 "NVMe/TCP over TLS 1.3 with a pre-shared key (--psk-file); the identity names --hostnqn "
                 "and --nqn");
    app.add_option("--psk-file", o.psk_file,
                   "--tls: a file holding the configured PSK as `nvme gen-tls-key` prints it "
                   "(NVMeTLSkey-1:01:...:)");
    app.add_flag("--sq-flow-control", o.sq_flow_control,
                 "keep SQ flow control (by default Connect asks the controller to disable it, which lets "
                 "it skip SQ head updates and finish a successful read with its C2HData PDU alone)");
    app.add_flag("--json", o.json, "print the result as one JSON object on stdout");
    app.add_flag("!--no-progress", o.progress, "no per-second progress lines on stderr");
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp &) {
        return make_error(DOCA_ERROR_AGAIN, app.help());
    } catch (const CLI::ParseError &e) {
        return make_error(DOCA_ERROR_INVALID_VALUE, e.what());
    }

    for (auto [option, file, value] :
         {std::tuple{"--dhchap-secret-file", &secret_file, &o.dhchap_secret},
          std::tuple{"--dhchap-ctrl-secret-file", &ctrl_secret_file, &o.dhchap_ctrl_secret}}) {
        if (file->empty()) continue;
        auto secret = nvmeof::auth::read_secret_file(*file);
        if (!secret)
            return make_error(DOCA_ERROR_INVALID_VALUE, std::string(option) + ": " + secret.error().message);
        if (!secret->warning.empty())
            std::fprintf(stderr, "skiff-perf: warning: %s\n", secret->warning.c_str());
        *value = secret->text;
    }
    o.addr = nvmeof::transport::strip_brackets(o.addr);
    auto pattern = parse_pattern(rw);
    if (!pattern) return pattern.error();
    o.rw = *pattern;
    auto size = parse_size(bs);
    if (!size) return bad("--bs", bs, "a size such as 4k or 128k");
    if (*size == 0 || *size % 512 != 0 || *size > (16u << 20))
        return bad("--bs", bs, "a multiple of 512 bytes, at most 16 MiB");
    o.bs = static_cast<uint32_t>(*size);
    auto t = parse_duration(time);
    if (!t || t->count() == 0) return bad("--time", time, "a non-zero duration such as 10s or 500ms");
    o.time = *t;
    auto r = parse_duration(ramp);
    if (!r) return bad("--ramp", ramp, "a duration such as 2s, 500ms or 0");
    o.ramp = *r;
    if (!cores.empty()) {
        auto c = parse_cores(cores);
        if (!c) return c.error();
        o.cores = *c;
    }
    if (o.hostnqn.size() > 223) return bad("--hostnqn", o.hostnqn, "at most 223 bytes");
    if (!o.dhchap_ctrl_secret.empty() && o.dhchap_secret.empty())
        return bad("--dhchap-ctrl-secret", "(not shown)", "needs --dhchap-secret as well");
    if (o.concat && o.dhchap_secret.empty())
        return make_error(DOCA_ERROR_INVALID_VALUE,
                          "--concat needs --dhchap-secret (or --dhchap-secret-file): the TLS PSK comes from "
                          "that authentication");
    if (o.concat && o.tls)
        return make_error(
            DOCA_ERROR_INVALID_VALUE,
            "--concat and --tls exclude each other: with --concat the PSK is generated, not read "
            "from --psk-file");
    if (o.concat && o.hostnqn.empty())
        return make_error(DOCA_ERROR_INVALID_VALUE,
                          "--concat needs --hostnqn, the NQN the DH-HMAC-CHAP secret is configured for");
    if (o.tls != !o.psk_file.empty())
        return make_error(DOCA_ERROR_INVALID_VALUE,
                          "--tls and --psk-file go together (the key is the PSK's file)");
    if (o.tls && o.hostnqn.empty())
        return make_error(
            DOCA_ERROR_INVALID_VALUE,
            "--tls needs --hostnqn: the target keeps PSKs per host NQN, so the host must be the "
            "one the key was configured for");
    return o;
}

} // namespace skiff::perf
