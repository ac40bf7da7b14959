// skiff-target's command line: the options, and the configuration they describe when no file
// is given (the built-in default: a 1 GiB RAM namespace on 127.0.0.1:4420).
#pragma once

#include "skiff/config/config.hpp"
#include "skiff/core/status.hpp"

#include <optional>
#include <string>
#include <vector>

namespace skiff::target_app {

struct Options {
    std::string config_file;   // --config
    std::string check_file;    // --check-config
    std::string nvmetcli_file; // --nvmetcli
    std::string management_socket;
    std::vector<std::string> listen{"127.0.0.1:4420"};
    std::string discovery = "127.0.0.1:8009";
    std::string nqn = "nqn.2026-11.io.skiff:default";
    std::string transport = "tcp";
    std::string backend = "ram";
    std::string path;                           // --backend aio: the file or block device
    bool buffered = false;                      // --backend aio: page cache instead of O_DIRECT
    std::string hostmem_channel = "skiff-host"; // --backend hostmem: the comch channel name
    std::string hostmem_host_pci;               // --backend hostmem: skiff-host's function (empty: the first)
    std::string size; // empty: 1 GiB for ram/null; an aio file's or device's own size
    uint32_t block_size = 512;
    std::string serial = "SKIFF0001";
    std::string model = "skiff RAM namespace";
    std::vector<std::string> allow_hosts;
    std::string tls = "none";                       // secure_channel of the --listen listeners
    std::vector<std::string> tls_psk_files;         // HOSTNQN=FILE
    std::vector<std::string> dhchap_key_files;      // HOSTNQN=FILE: DH-HMAC-CHAP host secrets
    std::vector<std::string> dhchap_ctrl_key_files; // HOSTNQN=FILE: controller secrets
    int cores = 1;
    std::string datapath = "poll";
    int dpa_eus = 1;
    uint32_t rdma_srq_depth = 0; // --transport rdma: shared receive queue capsules; 0: off
    int64_t idle_poll_us = 200;  // applies with a configuration file too
    // Hostile clients; -1: not given (the file's value, else the default). Apply with a
    // configuration file too, to every transports[] entry.
    int64_t stall_timeout_ms = -1;
    int64_t auth_timeout_ms = -1;
    int64_t max_connections = -1;
    int64_t max_connections_per_host = -1;
    int64_t max_queues_per_host = -1;
    // NVMe/TCP reads sent from a RAM namespace's memory from this size up; "": not given.
    std::string zero_copy_read_min;
    // Prometheus endpoint ADDR:PORT, "none" to turn the file's off; "": not given.
    std::string metrics;
    bool io_accounting = false; // --io-accounting
    bool mdns = false;          // --mdns: mdns.announce
    std::string log_level = "info";
};

// Parses argv into o (the --help text, a man page, comes with it). Returns the exit code when the
// program should stop here (--help: 0; a bad option: CLI11 has printed why), nothing to go on.
// The only translation unit that includes CLI11 is command_line.cpp: its headers cost more
// compile time than the rest of a file (docs/compile-time.md).
std::optional<int> parse_command_line(int argc, char **argv, Options &o);
// The configuration the single-subsystem options describe. The error names the option.
Result<config::Config> config_from_options(const Options &o);
// Puts the hostile-client options that were given into every transports[] entry of c (adding a
// tcp entry when there is none), and --zero-copy-read-min into the tcp entries. The error names
// the option and its range.
Status apply_limit_options(const Options &o, config::Config &c);
// Puts --metrics (when given) into c.metrics: an address, or "none" for no endpoint;
// --io-accounting (metrics.accounting); and --mdns (mdns.announce, which needs a discovery
// listener). The error names the option and the expected form.
Status apply_metrics_option(const Options &o, config::Config &c);

} // namespace skiff::target_app
