#include "command_line.hpp"

#include "skiff/config/units.hpp"
#include "skiff/core/man_page.hpp"
#include "skiff/core/log.hpp"
#include "skiff/nvmeof/auth/dhchap_key.hpp"
#include "skiff/nvmeof/auth/secret_file.hpp"
#include "skiff/nvmeof/target/subsystem.hpp"
#include "skiff/nvmeof/tls/psk.hpp"
#include "skiff/nvmeof/transport/transport.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>

namespace skiff::target_app {

namespace {

// The --help text around the options (NAME, SYNOPSIS, DESCRIPTION, FILES, EXAMPLES).
cli::ManPage man_page() {
    cli::ManPage m;
    m.name = "skiff-target - NVMe-over-Fabrics target (the DPU-side process)";
    m.synopsis =
        "skiff-target [OPTIONS]                  serve the built-in default or what the options describe\n"
        "skiff-target --config FILE [OPTIONS]    serve a skiff JSON configuration\n"
        "skiff-target --nvmetcli FILE [OPTIONS]  serve a Linux nvmet configuration (nvmetcli save)\n"
        "skiff-target --check-config FILE        validate a configuration and exit";
    m.description =
        "skiff-target exports namespaces to NVMe/TCP and NVMe/RDMA hosts. On a BlueField it runs on the\n"
        "DPU's Arm cores; anywhere else it runs the same way on emulated devices.\n"
        "\n"
        "With no arguments it serves a 1 GiB RAM namespace in nqn.2026-11.io.skiff:default on\n"
        "127.0.0.1:4420 (NVMe/TCP), with discovery on 127.0.0.1:8009. The options below describe one\n"
        "subsystem with one namespace; a configuration file (--config) describes any number of\n"
        "subsystems, namespaces, backends and listeners (config/README.md has the schema).\n"
        "\n"
        "A running target is changed live with skiff-ctl through its management socket, or by editing\n"
        "its configuration file and sending SIGHUP (systemctl reload skiff-target): the difference\n"
        "goes live, or nothing changes and the log says why. SIGINT (Ctrl-C) or SIGTERM stops it.\n"
        "\n"
        "The management socket is the one the configuration (target.management_socket) or\n"
        "--management-socket names (\"none\": no socket); by default the first usable of the FILES\n"
        "below. A second target finding the default socket taken runs without one and says so.\n"
        "\n"
        "Under systemd (skiff-target.service, Type=notify) it reports READY=1 once it serves, and\n"
        "pings the watchdog only while every poll group keeps running.";
    m.files = "/etc/skiff/target.json\n"
              "    the configuration skiff-target.service serves\n"
              "$RUNTIME_DIRECTORY/target.sock, /run/skiff/target.sock\n"
              "    the default management socket (systemd's runtime directory, else /run/skiff)\n"
              "$XDG_RUNTIME_DIR/skiff/target.sock, /tmp/skiff-<uid>/target.sock\n"
              "    where the default goes when /run/skiff cannot be created or written\n"
              "<socket>.lock\n"
              "    held while a target owns the socket; a second target cannot take it\n"
              "    The socket is mode 0660, group skiff when that group exists: root, the target's user\n"
              "    and that group's members may manage it (the target checks each caller's credentials).\n"
              "    Its folder must belong to the target's user or root and not be writable by others\n"
              "    (unless sticky, as /tmp)";
    m.examples =
        "skiff-target\n"
        "    the default RAM namespace; then, from a Linux host:\n"
        "    nvme discover -t tcp -a 127.0.0.1 -s 8009\n"
        "    nvme connect -t tcp -a 127.0.0.1 -s 4420 -n nqn.2026-11.io.skiff:default\n"
        "skiff-target --backend aio --path /var/lib/skiff/disk.img --size 8GiB --listen 0.0.0.0:4420\n"
        "    a file-backed namespace on every IPv4 address\n"
        "skiff-target --listen [::]:4420 --listen 0.0.0.0:4420 --discovery [::1]:8009\n"
        "    on every IPv6 and every IPv4 address (an IPv6 listener takes IPv6 only); IPv6 in brackets\n"
        "skiff-target --transport rdma --listen 192.168.100.2:4420 --discovery 192.168.100.2:8009\n"
        "    NVMe/RDMA on the RDMA device that owns 192.168.100.2\n"
        "skiff-target --metrics 127.0.0.1:9860\n"
        "    also serve Prometheus metrics at http://127.0.0.1:9860/metrics\n"
        "skiff-target --discovery 0.0.0.0:8009 --mdns\n"
        "    discovery on every IPv4 address, announced over mDNS for hosts that browse for it\n"
        "skiff-target --io-accounting\n"
        "    count I/O per namespace and per host for skiff-ctl stats, without a metrics endpoint\n"
        "skiff-target --check-config /etc/skiff/target.json && systemctl reload skiff-target\n"
        "    check an edited configuration, then apply it to the running service";
    m.see_also = "skiff-ctl --help, skiff-host --help, skiff-perf --help, nvme(1); config/README.md,\n"
                 "docs/deploy-bluefield.md (/usr/share/doc/skiff/ when installed from the package)";
    return m;
}

void add_options(CLI::App &app, Options &o) {
    app.add_option(
        "--config", o.config_file,
        "serve what this skiff JSON configuration file describes (see config/README.md); SIGHUP reloads it");
    app.add_option(
        "--check-config", o.check_file,
        "validate a skiff JSON configuration file, print a summary and exit (non-zero on any error)");
    app.add_option("--nvmetcli", o.nvmetcli_file,
                   "serve a Linux nvmet configuration saved by `nvmetcli save` (/etc/nvmet/config.json)");
    app.add_option(
        "--management-socket", o.management_socket,
        "JSON-RPC management socket for skiff-ctl (overrides the file's target.management_socket);\n"
        "\"none\": no socket. Default: see FILES");
    app.add_option("--listen", o.listen, "NVMe/TCP I/O listener ADDR:PORT, [IPv6]:PORT for IPv6 (repeatable)")
        ->capture_default_str();
    app.add_option("--discovery", o.discovery,
                   "dedicated discovery listener ADDR:PORT or [IPv6]:PORT, or \"none\"")
        ->capture_default_str();
    app.add_option("--nqn", o.nqn, "subsystem NQN")->capture_default_str();
    app.add_option(
           "--transport", o.transport,
           "tcp, or rdma (RDMA-CM on the RDMA device that owns each --listen address, e.g. soft-RoCE rxe0)")
        ->capture_default_str();
    app.add_option("--backend", o.backend,
                   "namespace storage: ram (in memory), null (reads zeroes, drops writes), aio (a file\n"
                   "or block device given by --path, through libaio) or hostmem (host memory exported by\n"
                   "skiff-host, moved with DMA; see --hostmem-channel)")
        ->capture_default_str();
    app.add_option("--hostmem-channel", o.hostmem_channel,
                   "--backend hostmem: the control channel's name, the same as skiff-host --channel. The\n"
                   "target serves it as a DOCA Comch server on its DPU PF for the host function of\n"
                   "--hostmem-host-pci; skiff-host connects as the comch client and must export at least\n"
                   "--size bytes. Only root, the target's own user and the uids in SKIFF_COMCH_PEER_UIDS\n"
                   "may connect; the channel's directory SKIFF_COMCH_DIR is made 0700\n"
                   "(core/src/comch/README.md, \"Local trust\")")
        ->capture_default_str();
    app.add_option("--hostmem-host-pci", o.hostmem_host_pci,
                   "--backend hostmem: the host function skiff-host runs on (its --pci); empty: the first\n"
                   "host function the DPU PF manages")
        ->capture_default_str();
    app.add_option("--path", o.path,
                   "--backend aio: the file or block device. With --size, a regular file is created or\n"
                   "extended to that size; without, the file's or device's size is used");
    app.add_flag("--buffered", o.buffered, "--backend aio: use the page cache instead of O_DIRECT");
    app.add_option("--size", o.size,
                   "namespace size, e.g. 512MiB, 1GiB (default: 1GiB; aio: the file's size)");
    app.add_option("--block-size", o.block_size, "logical block size: 512 or 4096")->capture_default_str();
    app.add_option("--serial", o.serial, "controller serial number (up to 20 characters)")
        ->capture_default_str();
    app.add_option("--model", o.model, "controller model (up to 40 characters)")->capture_default_str();
    app.add_option("--allow-host", o.allow_hosts,
                   "host NQN allowed to connect (repeatable; default: any host)");
    app.add_option("--tls", o.tls,
                   "NVMe/TCP secure channel (TLS 1.3 with PSK) of the --listen listeners (the dedicated\n"
                   "--discovery listener stays plain):\n"
                   "none, optional (TLS or plain) or required (TLS only); keys come from --tls-psk-file")
        ->capture_default_str();
    app.add_option("--tls-psk-file", o.tls_psk_files,
                   "HOSTNQN=FILE: FILE holds the TLS PSK of host HOSTNQN as `nvme gen-tls-key` prints it\n"
                   "(NVMeTLSkey-1:01:...: or NVMeTLSkey-1:02:...:); repeatable, one per host");
    app.add_option("--dhchap-key-file", o.dhchap_key_files,
                   "HOSTNQN=FILE: host HOSTNQN must authenticate (DH-HMAC-CHAP) with the secret in FILE's\n"
                   "first line, as `nvme gen-dhchap-key` prints it (DHHC-1:xx:...:); repeatable, one per\n"
                   "host. Key files should be mode 0600: a looser one draws a warning");
    app.add_option("--dhchap-ctrl-key-file", o.dhchap_ctrl_key_files,
                   "HOSTNQN=FILE: the controller's secret for host HOSTNQN (bidirectional authentication;\n"
                   "the host needs --dhchap-key-file too)");
    app.add_option("--rdma-srq-depth", o.rdma_srq_depth,
                   "--transport rdma: command capsules in one shared receive queue per poll group and "
                   "RDMA device (32..16384) instead of a receive ring per connection; it also caps each "
                   "queue's depth; 0: off")
        ->capture_default_str();
    app.add_option("--cores", o.cores, "poll groups (threads serving connections)")->capture_default_str();
    app.add_option("--datapath", o.datapath,
                   "where NVMe/RDMA I/O queues process their work: poll (the poll groups) or dpa (one DPA\n"
                   "thread per queue on emulated DPA execution units; ram and null backends only)")
        ->capture_default_str();
    app.add_option("--dpa-eus", o.dpa_eus, "--datapath dpa: DPA execution units (worker threads), 1..64")
        ->capture_default_str();
    app.add_option("--idle-poll-us", o.idle_poll_us,
                   "busy-poll this long (microseconds) after the last work, then sleep in epoll until "
                   "traffic returns (0: always sleep)")
        ->capture_default_str();
    app.add_option("--stall-timeout-ms", o.stall_timeout_ms,
                   "close a connection that has not completed Connect, or stopped in the middle of a PDU,\n"
                   "after this many milliseconds of silence (100..3600000; 0: never; default 10000)");
    app.add_option("--auth-timeout-ms", o.auth_timeout_ms,
                   "close a queue whose host must authenticate (DH-HMAC-CHAP) and has not this many\n"
                   "milliseconds after its Connect (100..3600000; 0: never; default 10000)");
    app.add_option("--max-connections", o.max_connections,
                   "connections at once on all listeners; more are closed right after accept (0: no limit)");
    app.add_option("--max-connections-per-host", o.max_connections_per_host,
                   "connections at once from one peer address (0: no limit)");
    app.add_option("--max-queues-per-host", o.max_queues_per_host,
                   "queues (admin + I/O) at once of one host NQN; more get a Connect error (0: no limit)");
    app.add_option("--zero-copy-read-min", o.zero_copy_read_min,
                   "NVMe/TCP: send reads of at least this size from a RAM namespace's memory instead of\n"
                   "copying them first (0: always copy; 4KiB..8MiB; default 32KiB)");
    app.add_option(
        "--metrics", o.metrics,
        "serve Prometheus metrics at http://ADDR:PORT/metrics ([IPv6]:PORT for IPv6; overrides\n"
        "the file's metrics.listen; \"none\": no endpoint). Off unless given here or in the file.\n"
        "Turns the I/O accounting on as well (--io-accounting)");
    app.add_flag("--mdns", o.mdns,
                 "announce the discovery listener over mDNS/DNS-SD (_nvme-disc._tcp, through\n"
                 "avahi-daemon) so that hosts browsing for it (nvme-stas) find the target; needs a\n"
                 "discovery listener (the file's mdns.announce)");
    app.add_flag("--io-accounting", o.io_accounting,
                 "count I/O commands, bytes, errors and latency per namespace and per host, for\n"
                 "skiff-ctl stats, even without a metrics endpoint (the file's metrics.accounting)");
    app.add_option("--log-level", o.log_level, "trace|debug|info|warn|error|critical|off")
        ->capture_default_str();
}

// The HOSTNQN=FILE options: each file's first line is a key of that host (kept out of the
// command line, which every local user can read in /proc). One hosts[] entry per host.
Status add_key_files(const Options &o, config::Config &c) {
    auto fail = [](const std::string &m) { return make_error(DOCA_ERROR_INVALID_VALUE, m); };
    struct Kind {
        const char *option;
        const std::vector<std::string> &specs;
        std::string config::HostConfig::*field;
        Result<bool> (*check)(const std::string &key);
    };
    const Kind kinds[] = {
        {"--dhchap-key-file", o.dhchap_key_files, &config::HostConfig::dhchap_key,
         [](const std::string &k) -> Result<bool> {
             if (auto p = nvmeof::auth::parse_dhchap_key(k); !p) return p.error();
             return true;
         }},
        {"--dhchap-ctrl-key-file", o.dhchap_ctrl_key_files, &config::HostConfig::dhchap_ctrl_key,
         [](const std::string &k) -> Result<bool> {
             if (auto p = nvmeof::auth::parse_dhchap_key(k); !p) return p.error();
             return true;
         }},
        {"--tls-psk-file", o.tls_psk_files, &config::HostConfig::tls_psk,
         [](const std::string &k) -> Result<bool> {
             if (auto p = nvmeof::tls::parse_interchange(k); !p) return p.error();
             return true;
         }},
    };
    for (const Kind &kind : kinds)
        for (const std::string &spec : kind.specs) {
            const std::string option = kind.option;
            size_t eq = spec.rfind('=');
            if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size())
                return fail(option + " \"" + spec + "\": expected HOSTNQN=FILE");
            std::string hostnqn = spec.substr(0, eq), file = spec.substr(eq + 1);
            if (auto why = nvmeof::target::check_nqn(hostnqn); !why.empty())
                return fail(option + ": host NQN \"" + hostnqn + "\": " + why);
            auto secret = nvmeof::auth::read_secret_file(file);
            if (!secret) return fail(option + ": " + secret.error().message);
            if (!secret->warning.empty())
                std::fprintf(stderr, "skiff-target: warning: %s\n", secret->warning.c_str());
            if (auto ok = kind.check(secret->text); !ok)
                return fail(option + " " + file + ": " + ok.error().message);
            auto it = std::find_if(c.hosts.begin(), c.hosts.end(),
                                   [&](const config::HostConfig &h) { return h.nqn == hostnqn; });
            if (it == c.hosts.end()) {
                c.hosts.emplace_back();
                it = c.hosts.end() - 1;
                it->nqn = hostnqn;
            }
            if (!((*it).*kind.field).empty()) return fail(option + ": host " + hostnqn + " is given twice");
            (*it).*kind.field = secret->text;
        }
    for (auto &h : c.hosts)
        if (!h.dhchap_ctrl_key.empty() && h.dhchap_key.empty())
            return fail(
                "--dhchap-ctrl-key-file: host " + h.nqn +
                " has no --dhchap-key-file (the controller key makes its authentication bidirectional)");
    return Status::success();
}

} // namespace

std::optional<int> parse_command_line(int argc, char **argv, Options &o) {
    CLI::App app;
    cli::set_man_page(app, man_page());
    add_options(app, o);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError &e) {
        return app.exit(e);
    }
    return std::nullopt;
}

Result<config::Config> config_from_options(const Options &o) {
    auto fail = [](const std::string &m) { return make_error(DOCA_ERROR_INVALID_VALUE, m); };
    if (!log::parse_level(o.log_level))
        return fail("--log-level: unknown level \"" + o.log_level +
                    "\"; use trace, debug, info, warn, error");
    if (o.transport != "tcp" && o.transport != "rdma")
        return fail("--transport \"" + o.transport + "\": unknown; use tcp or rdma");
    if (o.block_size != 512 && o.block_size != 4096)
        return fail("--block-size " + std::to_string(o.block_size) + ": use 512 or 4096");
    bool aio = o.backend == "aio";
    auto size = config::parse_size(o.size.empty() ? (aio ? "0" : "1GiB") : o.size);
    if (!size || (*size == 0 && !(aio && o.size.empty())) || *size % 4096)
        return fail("--size \"" + o.size +
                    "\": expected a non-zero multiple of 4 KiB such as 512MiB or 1GiB");
    if (o.rdma_srq_depth != 0 && o.transport != "rdma")
        return fail("--rdma-srq-depth goes with --transport rdma");
    if (o.rdma_srq_depth != 0 && (o.rdma_srq_depth < 32 || o.rdma_srq_depth > 16384))
        return fail("--rdma-srq-depth " + std::to_string(o.rdma_srq_depth) + ": use 0 (off) or 32..16384");
    if (o.cores < 1 || o.cores > 64) return fail("--cores " + std::to_string(o.cores) + ": use 1..64");
    if (o.datapath != "poll" && o.datapath != "dpa")
        return fail("--datapath \"" + o.datapath + "\": unknown; use poll or dpa");
    if (o.dpa_eus < 1 || o.dpa_eus > 64)
        return fail("--dpa-eus " + std::to_string(o.dpa_eus) + ": use 1..64");
    if (o.datapath == "dpa" && o.rdma_srq_depth != 0)
        return fail(
            "--datapath dpa and --rdma-srq-depth exclude each other (each dpa queue owns its receives)");
    if (o.datapath == "dpa" && o.backend != "ram" && o.backend != "null")
        return fail("--datapath dpa serves ram and null backends only (--backend " + o.backend +
                    " completes through a poll group's loop)");
    if (o.serial.size() > 20) return fail("--serial: at most 20 characters");
    if (o.model.size() > 40) return fail("--model: at most 40 characters");
    bool hostmem = o.backend == "hostmem";
    if (o.backend != "ram" && o.backend != "null" && !aio && !hostmem)
        return fail("--backend \"" + o.backend + "\": unknown; use ram, null, aio or hostmem");
    if (aio && o.path.empty())
        return fail("--backend aio needs --path FILE (a regular file or a block device)");
    if (!aio && (!o.path.empty() || o.buffered)) return fail("--path and --buffered go with --backend aio");
    if (auto why = nvmeof::target::check_nqn(o.nqn); !why.empty())
        return fail("--nqn: subsystem NQN: " + why);
    for (auto &h : o.allow_hosts)
        if (auto why = nvmeof::target::check_nqn(h); !why.empty())
            return fail("--allow-host \"" + h + "\": " + why);

    if (!nvmeof::target::parse_secure_channel(o.tls))
        return fail("--tls \"" + o.tls + "\": unknown; use none, optional or required");
    if (o.tls != "none" && o.transport != "tcp") return fail("--tls goes with --transport tcp");

    config::Config c;
    if (auto st = add_key_files(o, c); !st) return st.error();
    c.target.cores = o.cores;
    c.target.datapath = o.datapath;
    c.target.dpa_eus = o.dpa_eus;
    c.target.log_level = o.log_level;
    c.target.management_socket = o.management_socket;
    if (o.rdma_srq_depth != 0) {
        config::TransportSettings rdma;
        rdma.trtype = "rdma";
        rdma.srq_depth = o.rdma_srq_depth;
        c.transports.push_back(rdma);
    }
    config::BackendSettings settings;
    if (aio) { // a given --size creates or extends a regular file to it
        settings.set_text("path", std::filesystem::absolute(o.path).string());
        settings.set_flag("buffered", o.buffered);
        settings.set_number("queue_depth", 128);
        settings.set_flag("create", !o.size.empty());
    }
    if (hostmem) {
        settings.set_text("channel", o.hostmem_channel);
        settings.set_text("dpu_pci", "03:00.0");
        settings.set_text("host_pci", o.hostmem_host_pci);
    }
    c.backends.push_back({"ns1", o.backend, *size, std::move(settings)});
    config::SubsystemConfig s;
    s.nqn = o.nqn;
    s.serial = o.serial;
    s.model = o.model;
    s.allowed_hosts = o.allow_hosts;
    s.allow_any_host = o.allow_hosts.empty();
    config::NamespaceConfig ns;
    ns.nsid = 1;
    ns.backend = "ns1";
    ns.block_size = o.block_size;
    s.namespaces.push_back(ns);
    c.subsystems.push_back(s);
    for (auto &l : o.listen) {
        auto addr = nvmeof::transport::parse_listen_address(l);
        if (!addr) return fail("--listen " + addr.error().message);
        c.listeners.push_back({o.transport, addr->host, addr->port, std::nullopt, {}, o.tls});
    }
    if (o.discovery != "none") {
        auto addr = nvmeof::transport::parse_listen_address(o.discovery);
        if (!addr) return fail("--discovery " + addr.error().message);
        c.discovery = config::ListenerConfig{o.transport, addr->host, addr->port, std::nullopt, {}};
    }
    return c;
}

Status apply_limit_options(const Options &o, config::Config &c) {
    auto fail = [](const std::string &m) { return make_error(DOCA_ERROR_INVALID_VALUE, m); };
    if (o.stall_timeout_ms != -1 && (o.stall_timeout_ms < 0 || o.stall_timeout_ms > 3600000 ||
                                     (o.stall_timeout_ms > 0 && o.stall_timeout_ms < 100)))
        return fail("--stall-timeout-ms " + std::to_string(o.stall_timeout_ms) +
                    ": use 0 (off) or 100..3600000");
    if (o.auth_timeout_ms != -1 && (o.auth_timeout_ms < 0 || o.auth_timeout_ms > 3600000 ||
                                    (o.auth_timeout_ms > 0 && o.auth_timeout_ms < 100)))
        return fail("--auth-timeout-ms " + std::to_string(o.auth_timeout_ms) +
                    ": use 0 (off) or 100..3600000");
    const std::pair<const char *, int64_t> counts[] = {
        {"--max-connections", o.max_connections},
        {"--max-connections-per-host", o.max_connections_per_host},
        {"--max-queues-per-host", o.max_queues_per_host}};
    for (auto &[name, v] : counts)
        if (v != -1 && (v < 0 || v > 1000000))
            return fail(std::string(name) + " " + std::to_string(v) + ": use 0 (no limit) .. 1000000");
    std::optional<uint64_t> zero_copy;
    if (!o.zero_copy_read_min.empty()) {
        zero_copy = config::parse_size(o.zero_copy_read_min);
        if (!zero_copy || !config::zero_copy_read_min_valid(*zero_copy))
            return fail("--zero-copy-read-min \"" + o.zero_copy_read_min +
                        "\": use 0 (always copy) or a size of 4KiB..8MiB such as 32KiB");
    }
    bool any = o.stall_timeout_ms != -1 || o.auth_timeout_ms != -1 || o.max_connections != -1 ||
               o.max_connections_per_host != -1 || o.max_queues_per_host != -1 || zero_copy;
    if (!any) return Status::success();
    if (c.transports.empty()) c.transports.push_back({});
    if (zero_copy && std::none_of(c.transports.begin(), c.transports.end(),
                                  [](const config::TransportSettings &t) { return t.trtype == "tcp"; })) {
        config::TransportSettings tcp = c.transports[0]; // the same limits, as every entry must
        tcp.trtype = "tcp";
        tcp.srq_depth = 0;
        c.transports.push_back(tcp);
    }
    for (auto &t : c.transports) {
        if (o.stall_timeout_ms != -1) t.stall_timeout_ms = uint32_t(o.stall_timeout_ms);
        if (o.auth_timeout_ms != -1) t.auth_timeout_ms = uint32_t(o.auth_timeout_ms);
        if (o.max_connections != -1) t.max_connections = uint32_t(o.max_connections);
        if (o.max_connections_per_host != -1)
            t.max_connections_per_host = uint32_t(o.max_connections_per_host);
        if (o.max_queues_per_host != -1) t.max_queues_per_host = uint32_t(o.max_queues_per_host);
        if (zero_copy && t.trtype == "tcp") t.zero_copy_read_min = uint32_t(*zero_copy);
    }
    return Status::success();
}

Status apply_metrics_option(const Options &o, config::Config &c) {
    if (o.mdns) {
        if (!c.discovery)
            return make_error(DOCA_ERROR_INVALID_VALUE,
                              "--mdns announces the discovery listener, and there is "
                              "none: give --discovery ADDR:PORT as well");
        c.mdns.announce = true;
    }
    if (o.io_accounting) c.metrics.accounting = true;
    if (o.metrics.empty()) return Status::success();
    if (o.metrics == "none") {
        c.metrics.listen.clear();
        return Status::success();
    }
    auto addr = nvmeof::transport::parse_listen_address(o.metrics);
    if (!addr || addr->port == 0)
        return make_error(DOCA_ERROR_INVALID_VALUE,
                          "--metrics \"" + o.metrics +
                              "\": expected ADDR:PORT with a port of 1..65535 such as "
                              "127.0.0.1:9860, [::1]:9860, or \"none\"");
    c.metrics.listen = addr->str();
    return Status::success();
}

} // namespace skiff::target_app
