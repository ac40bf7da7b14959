// The target configuration as skiff-target consumes it: plain data, already validated. The
// JSON loader (load.hpp) and the nvmetcli importer (nvmetcli.hpp) produce it; save.hpp writes
// it back. config/README.md is the schema.
#pragma once

#include "skiff/config/backend_settings.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace skiff::config {

using Id16 = std::array<uint8_t, 16>;
using Id8 = std::array<uint8_t, 8>;

struct TargetSettings {
    int cores = 1; // poll groups
    // Where NVMe/RDMA I/O queues process their completions: "poll" (the poll groups) or "dpa" (a
    // DPA thread per queue on `dpa_eus` emulated execution units; nvmeof/TARGET.md).
    std::string datapath = "poll";
    int dpa_eus = 1;
    std::string log_level = "info";
    std::string management_socket; // empty: no live management endpoint

    bool operator==(const TargetSettings &) const = default;
};

// zero_copy_read_min's range, for the file and skiff-target's option alike: below a page the
// bookkeeping would cost more than the copy it saves; above 8 MiB no read is that large.
constexpr uint64_t kZeroCopyReadMinLow = 4096, kZeroCopyReadMinHigh = 8 << 20;
constexpr bool zero_copy_read_min_valid(uint64_t v) {
    return v == 0 || (v >= kZeroCopyReadMinLow && v <= kZeroCopyReadMinHigh);
}

// Transport parameters. The target applies one set of limits to every transport today, so all
// entries must agree (the validator says so when they do not).
struct TransportSettings {
    std::string trtype = "tcp";
    uint32_t max_queue_depth = 128; // I/O queue entries (CAP.MQES + 1)
    uint32_t max_admin_queue_depth = 32;
    uint32_t max_io_queues = 64;
    uint32_t in_capsule_data_size = 8192; // bytes of data a command capsule may carry
    uint32_t max_io_size = 128 * 1024;    // MDTS in bytes
    uint32_t discovery_kato_ms = 120000;  // keep-alive for discovery hosts that send KATO 0
    uint32_t srq_depth = 0;               // rdma only: shared receive queue capsules; 0: off
    // tcp only: reads of at least this many bytes from a RAM namespace are sent from the
    // namespace's memory instead of a copy of it (nvmeof/TARGET.md); 0: always copy, else
    // kZeroCopyReadMinLow..kZeroCopyReadMinHigh (zero_copy_read_min_valid).
    uint32_t zero_copy_read_min = 32 * 1024;
    // Hostile clients (config/README.md): the handshake / mid-PDU timeout (0: off) and the
    // connection and queue limits (0: none).
    uint32_t stall_timeout_ms = 10000;
    uint32_t max_connections = 0;
    uint32_t max_connections_per_host = 0;
    uint32_t max_queues_per_host = 0;
    // A queue that must authenticate (DH-HMAC-CHAP) and has not this long after its Connect is
    // closed (0: never).
    uint32_t auth_timeout_ms = 10000;

    bool operator==(const TransportSettings &) const = default;
};

// The Prometheus metrics endpoint (dataplane/src/metrics/README.md): off unless `listen` is set.
// The per-namespace, per-host I/O accounting behind it (and behind `skiff-ctl stats`) is on when
// the endpoint is, or alone with `accounting`.
struct MetricsSettings {
    std::string listen;      // "ADDR:PORT" or "[IPv6]:PORT"; empty: no endpoint
    bool accounting = false; // I/O accounting without an endpoint (skiff-ctl stats)

    // Whether I/O queues keep their counts: the endpoint needs them, and so does skiff-ctl stats.
    bool accounting_on() const { return accounting || !listen.empty(); }

    bool operator==(const MetricsSettings &) const = default;
};

// mDNS/DNS-SD announcement of the discovery listener (NVMe-oF TP8009: service type _nvme-disc._tcp,
// TXT nqn=<the discovery NQN> and p=<tcp|roce>), through avahi-daemon: hosts that browse for it
// (nvme-stas, SPDK's bdev_nvme_start_mdns_discovery) find the target without being told where.
struct MdnsSettings {
    bool announce = false;
    std::string name; // the service instance name; empty: "skiff-target on <host name>"

    bool operator==(const MdnsSettings &) const = default;
};

// A named storage backend. Kind-specific fields live in `settings` (already checked by the
// kind's validator, see backend_kinds.hpp), so adding a kind touches no struct. They are a JSON
// object held by BackendSettings, so that this header needs no <nlohmann/json.hpp>.
struct BackendConfig {
    std::string name;
    std::string kind;         // "ram", "null", "aio", ...
    uint64_t size_bytes = 0;  // 0: the device decides (aio on an existing file or block device)
    BackendSettings settings; // an empty object unless the kind has fields

    bool operator==(const BackendConfig &) const = default;
};

// QoS limits (namespaces[].qos, and each of its hosts[]): I/O commands and bytes per second, for
// reads and writes together (rw_) or each; 0 is no limit. I/O over a limit waits, it never fails.
struct QosLimitsConfig {
    uint64_t rw_ios_per_sec = 0, read_ios_per_sec = 0, write_ios_per_sec = 0;
    uint64_t rw_bytes_per_sec = 0, read_bytes_per_sec = 0, write_bytes_per_sec = 0;

    bool any() const {
        return rw_ios_per_sec || read_ios_per_sec || write_ios_per_sec || rw_bytes_per_sec ||
               read_bytes_per_sec || write_bytes_per_sec;
    }
    bool operator==(const QosLimitsConfig &) const = default;
};

// One host's own limits on the namespace, on top of the namespace's (both apply).
struct QosHostConfig {
    std::string nqn;
    QosLimitsConfig limits;

    bool operator==(const QosHostConfig &) const = default;
};

struct QosConfig {
    QosLimitsConfig limits;
    std::vector<QosHostConfig> hosts;

    bool empty() const { return !limits.any() && hosts.empty(); }
    bool operator==(const QosConfig &) const = default;
};

struct NamespaceConfig {
    uint32_t nsid = 0;
    std::string backend;
    uint32_t block_size = 512;
    std::optional<Id16> uuid; // absent: derived from the subsystem NQN and nsid
    std::optional<Id16> nguid;
    std::optional<Id8> eui64; // absent: not reported
    uint32_t ana_group = 1;
    // Reservations persist through power loss here (empty: PTPL unsupported for the namespace).
    std::string ptpl_file;
    // Changed live without touching the namespace (skiff-ctl qos set).
    QosConfig qos;
    // The hosts that see the namespace: absent, every host the subsystem lets in; a list (empty
    // included), only those host NQNs. Changed live (skiff-ctl namespace host add / remove).
    std::optional<std::vector<std::string>> visible_hosts;

    bool operator==(const NamespaceConfig &) const = default;
};

struct SubsystemConfig {
    std::string nqn;
    std::string serial = "SKIFF0001";
    std::string model = "skiff";
    bool allow_any_host = true;
    std::vector<std::string> allowed_hosts;
    uint16_t cntlid_min = 1;
    uint16_t cntlid_max = 0xFFEF;
    std::vector<NamespaceConfig> namespaces;

    bool operator==(const SubsystemConfig &) const = default;
};

// The ANA state of one group as seen through one listener (listeners[].ana[]): for one
// subsystem, or (subsystem empty) for every subsystem the listener exposes; an entry that names
// the subsystem wins over one that does not. Groups without an entry are optimized.
struct AnaStateConfig {
    std::string subsystem; // empty: every subsystem
    uint32_t group = 1;
    std::string state = "optimized"; // optimized, non-optimized, inaccessible, persistent-loss, change

    bool operator==(const AnaStateConfig &) const = default;
};

// A host's secrets: its DH-HMAC-CHAP keys (in-band authentication) and its TLS PSK (the
// NVMe/TCP secure channel); an entry carries either or both. With `subsystem` empty the entry
// applies to every subsystem the host connects to; an entry naming a subsystem overrides it
// there. DH-HMAC-CHAP secrets are "DHHC-1:xx:<base64>:" strings as `nvme gen-dhchap-key`
// prints them, the PSK "NVMeTLSkey-1:xx:<base64>:" as `nvme gen-tls-key` prints it.
struct HostConfig {
    std::string nqn;
    std::string subsystem;
    std::string dhchap_key;                   // empty: the host does not authenticate
    std::string dhchap_ctrl_key;              // empty: unidirectional only
    std::vector<std::string> dhchap_hashes;   // "sha256", ...; preferred first; empty: all
    std::vector<std::string> dhchap_dhgroups; // "null", "ffdhe2048", ...; empty: all
    std::string tls_psk;                      // empty: no TLS for this host

    bool operator==(const HostConfig &) const = default;
};

struct ListenerConfig {
    std::string trtype = "tcp";
    std::string addr;
    uint16_t port = 0;
    // The subsystems reachable through this listener; absent: every subsystem.
    std::optional<std::vector<std::string>> subsystems;
    std::vector<AnaStateConfig> ana;
    // NVMe/TCP secure channel: "none", "optional" (TLS or plain) or "required" (TLS only).
    std::string secure_channel = "none";
    // With secure_channel "optional": whether hosts that have a tls_psk may connect in plaintext
    // (default: no, they must use TLS).
    bool allow_plaintext_psk_hosts = false;

    // The configured state of `group` of subsystem `nqn` through this listener.
    std::string ana_state(const std::string &nqn, uint32_t group) const;

    bool operator==(const ListenerConfig &) const = default;
};

// Another target's discovery service, listed as a referral in the discovery log page.
struct ReferralConfig {
    std::string trtype = "tcp";
    std::string addr;
    uint16_t port = 8009;

    bool operator==(const ReferralConfig &) const = default;
};

struct Config {
    TargetSettings target;
    std::vector<TransportSettings> transports;
    std::vector<BackendConfig> backends;
    std::vector<SubsystemConfig> subsystems;
    std::vector<ListenerConfig> listeners;
    std::optional<ListenerConfig> discovery; // a dedicated discovery listener
    std::vector<ReferralConfig> referrals;
    std::vector<HostConfig> hosts; // DH-HMAC-CHAP secrets and TLS PSKs per host (and subsystem)
    MetricsSettings metrics;
    MdnsSettings mdns;

    const BackendConfig *find_backend(const std::string &name) const;
    const SubsystemConfig *find_subsystem(const std::string &nqn) const;
    // The transport parameters in force (the first entry, or the defaults), with the rdma
    // entry's srq_depth (the one setting of a single transport).
    TransportSettings transport() const;
};

// skiff-target's built-in default: a 1 GiB RAM namespace in nqn.2026-11.io.skiff:default on
// 127.0.0.1:4420, discovery on 127.0.0.1:8009.
Config default_config();

} // namespace skiff::config
