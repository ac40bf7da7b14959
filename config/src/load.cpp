// The skiff JSON configuration: one reader function per section, then the checks that span
// sections (names that must exist, things that must be unique). config/README.md is the schema.
#include "skiff/config/load.hpp"

#include "backend_kinds.hpp"
#include "json_reader.hpp"
#include "qos_config.hpp"
#include "skiff/config/units.hpp"
#include "skiff/nvmeof/auth/dh_group.hpp"
#include "skiff/nvmeof/auth/dhchap_key.hpp"
#include "skiff/nvmeof/auth/secret_file.hpp"
#include "skiff/nvmeof/auth/hash.hpp"
#include "skiff/nvmeof/target/port.hpp"
#include "skiff/nvmeof/target/subsystem.hpp"
#include "skiff/nvmeof/tls/psk.hpp"
#include "skiff/nvmeof/transport/ip_address.hpp"
#include "skiff/nvmeof/transport/transport.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

namespace skiff::config {
namespace {

using detail::index;
using detail::join;
using detail::json;
using detail::JsonReader;
using detail::quote;

constexpr const char *kLogLevels[] = {"trace", "debug", "info", "warn", "error", "critical", "off"};
constexpr uint32_t kMaxAnaGroup = 128; // as Linux nvmet (NVMET_MAX_ANAGRPS)
// Namespaces of all subsystems together: the scale skiff is measured at (bench/namespace_scale),
// with 1024 (kMaxNamespaces) in one subsystem.
constexpr size_t kMaxTargetNamespaces = 4096;
constexpr uint64_t kMaxDpaEus = 64;  // skiff_dpa_set_num_eus's limit
constexpr int64_t kMinSrqDepth = 32; // the admin queue's depth (Linux asks for 32)
constexpr int64_t kMaxSrqDepth = 16384;

void read_target(JsonReader &r, const json &j, TargetSettings &out) {
    const std::string p = "target";
    if (!r.object(j, p, {"cores", "datapath", "dpa", "log_level", "management_socket"})) return;
    if (auto v = r.integer(j, p, "cores", 1, 64, false)) out.cores = static_cast<int>(*v);
    if (auto v = r.string(j, p, "datapath", false, "poll")) {
        if (*v == "poll" || *v == "dpa")
            out.datapath = *v;
        else
            r.error(join(p, "datapath"), "expected \"poll\" or \"dpa\", got " + quote(j["datapath"]));
    }
    if (j.contains("dpa")) {
        const std::string dp = join(p, "dpa");
        if (r.object(j["dpa"], dp, {"eus"}))
            if (auto v = r.integer(j["dpa"], dp, "eus", 1, kMaxDpaEus, false))
                out.dpa_eus = static_cast<int>(*v);
    }
    if (auto v = r.string(j, p, "log_level", false, "info")) {
        bool known = false;
        for (const char *l : kLogLevels) known |= *v == l;
        if (known)
            out.log_level = *v;
        else
            r.error(join(p, "log_level"),
                    "expected one of trace, debug, info, warn, error, critical, off, got " +
                        quote(j["log_level"]));
    }
    if (auto v = r.string(j, p, "management_socket", false, "/run/skiff/target.sock")) {
        if (v->size() >= 108) // sun_path
            r.error(join(p, "management_socket"), "expected a path shorter than 108 bytes");
        else
            out.management_socket = *v;
    }
}

std::optional<std::string> read_trtype(JsonReader &r, const json &j, const std::string &p) {
    auto t = r.string(j, p, "trtype", false, "tcp");
    if (!t) return std::nullopt;
    if (*t != "tcp" && *t != "rdma") {
        r.error(join(p, "trtype"), "expected \"tcp\" or \"rdma\", got " + quote(j["trtype"]));
        return std::nullopt;
    }
    return t;
}

// The stall timeout and the connection and queue limits (nvmeof/TARGET.md, "Hostile clients").
void read_hostile_client_limits(JsonReader &r, const json &t, const std::string &p, TransportSettings &s) {
    if (auto v = r.integer(t, p, "stall_timeout_ms", 0, 3600000, false)) {
        // The poll groups' clock ticks every 100 ms: a shorter timeout could not be kept.
        if (*v != 0 && *v < 100)
            r.error(join(p, "stall_timeout_ms"),
                    "expected 0 (off) or 100..3600000 milliseconds, got " + quote(t["stall_timeout_ms"]));
        else
            s.stall_timeout_ms = uint32_t(*v);
    }
    constexpr uint64_t kMaxCount = 1000000;
    if (auto v = r.integer(t, p, "max_connections", 0, kMaxCount, false)) s.max_connections = uint32_t(*v);
    if (auto v = r.integer(t, p, "max_connections_per_host", 0, kMaxCount, false))
        s.max_connections_per_host = uint32_t(*v);
    if (auto v = r.integer(t, p, "max_queues_per_host", 0, kMaxCount, false))
        s.max_queues_per_host = uint32_t(*v);
    if (auto v = r.integer(t, p, "auth_timeout_ms", 0, 3600000, false)) {
        // Checked on the poll groups' 100 ms clock, like the stall timeout.
        if (*v != 0 && *v < 100)
            r.error(join(p, "auth_timeout_ms"),
                    "expected 0 (off) or 100..3600000 milliseconds, got " + quote(t["auth_timeout_ms"]));
        else
            s.auth_timeout_ms = uint32_t(*v);
    }
}

// Reads this large and larger are sent from a RAM namespace's memory.
void read_zero_copy_read_min(JsonReader &r, const json &t, const std::string &p, TransportSettings &s) {
    auto v = r.size(t, p, "zero_copy_read_min", 0, kZeroCopyReadMinHigh, false);
    if (!v) return;
    if (s.trtype != "tcp")
        r.error(join(p, "zero_copy_read_min"),
                "sending reads from the namespace's memory is a tcp setting; this entry is \"" + s.trtype +
                    "\"");
    else if (!zero_copy_read_min_valid(*v))
        r.error(join(p, "zero_copy_read_min"),
                "expected 0 (always copy) or a size of 4KiB..8MiB, got " + quote(t["zero_copy_read_min"]));
    else
        s.zero_copy_read_min = uint32_t(*v);
}

// In-capsule data lands in a request buffer of max_io_size bytes, and no command moves more than
// that: a larger in-capsule size would advertise capsules the target cannot hold. The default
// (8 KiB) follows a smaller max_io_size; a size given explicitly is an error.
void check_in_capsule_fits(JsonReader &r, const json &t, const std::string &p, TransportSettings &s) {
    if (s.in_capsule_data_size <= s.max_io_size) return;
    if (!t.contains("in_capsule_data_size")) {
        s.in_capsule_data_size = s.max_io_size;
        return;
    }
    r.error(join(p, "in_capsule_data_size"),
            "expected at most max_io_size (" + format_size(s.max_io_size) +
                "): a command's in-capsule data must fit its request buffer, got " +
                quote(t["in_capsule_data_size"]));
}

void read_transports(JsonReader &r, const json &j, std::vector<TransportSettings> &out) {
    if (!r.array(j, "transports", "transport objects")) return;
    for (size_t i = 0; i < j.size(); ++i) {
        const std::string p = index("transports", i);
        const json &t = j[i];
        if (!r.object(t, p,
                      {"trtype", "max_queue_depth", "max_admin_queue_depth", "max_io_queues",
                       "in_capsule_data_size", "max_io_size", "discovery_kato_ms", "srq_depth",
                       "stall_timeout_ms", "max_connections", "max_connections_per_host",
                       "max_queues_per_host", "auth_timeout_ms", "zero_copy_read_min"}))
            continue;
        TransportSettings s;
        if (!t.contains("trtype")) r.error(join(p, "trtype"), "missing; expected \"tcp\" or \"rdma\"");
        if (auto v = read_trtype(r, t, p)) s.trtype = *v;
        if (auto v = r.integer(t, p, "max_queue_depth", 2, 1024, false)) s.max_queue_depth = uint32_t(*v);
        if (auto v = r.integer(t, p, "max_admin_queue_depth", 2, 4096, false))
            s.max_admin_queue_depth = uint32_t(*v);
        if (auto v = r.integer(t, p, "max_io_queues", 1, 64, false)) s.max_io_queues = uint32_t(*v);
        if (auto v = r.size(t, p, "in_capsule_data_size", 0, 1 << 20, false)) {
            if (*v % 16)
                r.error(join(p, "in_capsule_data_size"),
                        "expected a multiple of 16 bytes, got " + quote(t["in_capsule_data_size"]));
            else
                s.in_capsule_data_size = uint32_t(*v);
        }
        // From 8 KiB: Identify's MDTS is log2 of 4 KiB pages, and 0 would tell hosts "no limit".
        if (auto v = r.size(t, p, "max_io_size", 8192, 8 << 20, false)) {
            // MDTS is a power of two of 4 KiB pages.
            if ((*v & (*v - 1)) != 0)
                r.error(join(p, "max_io_size"),
                        "expected a power of two such as \"128KiB\", got " + quote(t["max_io_size"]));
            else
                s.max_io_size = uint32_t(*v);
        }
        if (auto v = r.integer(t, p, "discovery_kato_ms", 0, 3600000, false))
            s.discovery_kato_ms = uint32_t(*v);
        read_hostile_client_limits(r, t, p, s);
        if (auto v = r.integer(t, p, "srq_depth", 0, kMaxSrqDepth, false)) {
            // The SRQ caps every queue's depth: below the admin queue's 32 no host could connect.
            if (s.trtype != "rdma")
                r.error(join(p, "srq_depth"),
                        "a shared receive queue is an rdma setting; this entry is \"" + s.trtype + "\"");
            else if (*v != 0 && *v < kMinSrqDepth)
                r.error(join(p, "srq_depth"), "expected 0 (off) or " + std::to_string(kMinSrqDepth) + ".." +
                                                  std::to_string(kMaxSrqDepth) + ", got " +
                                                  quote(t["srq_depth"]));
            else
                s.srq_depth = uint32_t(*v);
        }
        read_zero_copy_read_min(r, t, p, s);
        check_in_capsule_fits(r, t, p, s);
        out.push_back(s);
    }
}

void read_backends(JsonReader &r, const json &j, std::vector<BackendConfig> &out) {
    if (!r.array(j, "backends", "backend objects")) return;
    for (size_t i = 0; i < j.size(); ++i) {
        const std::string p = index("backends", i);
        const json &b = j[i];
        if (!b.is_object()) {
            r.error(p, "expected an object, got " + quote(b));
            continue;
        }
        BackendConfig c;
        auto name = r.string(b, p, "name", true, "ram0");
        auto kind_name = r.string(b, p, "kind", true, "ram");
        const detail::BackendKind *kind = kind_name ? detail::find_backend_kind(*kind_name) : nullptr;
        if (kind_name && !kind)
            r.error(join(p, "kind"), "unknown backend kind " + quote(b["kind"]) + "; expected one of " +
                                         detail::backend_kind_names());
        if (name && name->empty()) r.error(join(p, "name"), "expected a non-empty name");
        if (!kind) continue;
        std::vector<const char *> allowed = {"name", "kind"};
        allowed.insert(allowed.end(), kind->fields.begin(), kind->fields.end());
        r.object(b, p, allowed);
        c.name = name.value_or("");
        c.kind = kind->name;
        kind->read(r, b, p, c);
        out.push_back(c);
    }
}

std::optional<Id16> read_id16(JsonReader &r, const json &j, const std::string &p, const char *key) {
    auto text = r.string(j, p, key, false, "6f1c2a4e-0b7d-4c59-9a3e-2d8f5b1c7e90");
    if (!text) return std::nullopt;
    auto id = parse_id16(*text);
    if (!id)
        r.error(join(p, key),
                "expected 32 hex digits, optionally as 8-4-4-4-12 with dashes, got " + quote(j[key]));
    else if (*id == Id16{})
        r.error(join(p, key), "expected a non-zero identifier");
    return id;
}

void read_namespace(JsonReader &r, const json &j, const std::string &p, NamespaceConfig &out) {
    if (!r.object(j, p,
                  {"nsid", "backend", "block_size", "uuid", "nguid", "eui64", "ana_group", "ptpl_file", "qos",
                   "visible_hosts"}))
        return;
    if (auto v = r.integer(j, p, "nsid", 1, nvmeof::target::kMaxNamespaces, true)) out.nsid = uint32_t(*v);
    if (auto v = r.string(j, p, "backend", true, "ram0")) out.backend = *v;
    if (auto v = r.integer(j, p, "block_size", 512, 4096, false)) {
        if (*v != 512 && *v != 4096)
            r.error(join(p, "block_size"), "expected 512 or 4096, got " + quote(j["block_size"]));
        else
            out.block_size = uint32_t(*v);
    }
    out.uuid = read_id16(r, j, p, "uuid");
    out.nguid = read_id16(r, j, p, "nguid");
    if (auto text = r.string(j, p, "eui64", false, "0123456789abcdef")) {
        out.eui64 = parse_id8(*text);
        if (!out.eui64)
            r.error(join(p, "eui64"), "expected 16 hex digits, got " + quote(j["eui64"]));
        else if (*out.eui64 == Id8{})
            r.error(join(p, "eui64"), "expected a non-zero identifier");
    }
    if (auto v = r.integer(j, p, "ana_group", 1, kMaxAnaGroup, false)) out.ana_group = uint32_t(*v);
    if (auto v = r.string(j, p, "ptpl_file", false, "/var/lib/skiff/ns1.resv")) {
        if (v->empty() || v->back() == '/')
            r.error(join(p, "ptpl_file"), "expected a file path, got " + quote(j["ptpl_file"]));
        else
            out.ptpl_file = *v;
    }
    if (j.contains("qos")) read_qos(r, j["qos"], join(p, "qos"), out.qos);
    if (auto hosts = r.strings(j, p, "visible_hosts", "host NQN strings")) {
        std::set<std::string> seen;
        for (size_t h = 0; h < hosts->size(); ++h) {
            const std::string &nqn = (*hosts)[h];
            if (auto why = nvmeof::target::check_nqn(nqn); !why.empty())
                r.error(index(join(p, "visible_hosts"), h), why);
            else if (!seen.insert(nqn).second)
                r.error(index(join(p, "visible_hosts"), h), "\"" + nqn + "\" is listed twice");
        }
        out.visible_hosts = *hosts;
    }
}

// Printable ASCII, at most `max` bytes (Identify Controller SN / MN fields).
void check_ascii(JsonReader &r, const std::string &p, const std::string &v, size_t max) {
    if (v.empty() || v.size() > max)
        r.error(p, "expected 1.." + std::to_string(max) + " characters, got " + std::to_string(v.size()));
    for (char c : v)
        if (c < 0x20 || c > 0x7e) return r.error(p, "expected printable ASCII characters only");
}

void read_subsystems(JsonReader &r, const json &j, std::vector<SubsystemConfig> &out) {
    if (!r.array(j, "subsystems", "subsystem objects")) return;
    for (size_t i = 0; i < j.size(); ++i) {
        const std::string p = index("subsystems", i);
        const json &s = j[i];
        if (!r.object(s, p,
                      {"nqn", "serial", "model", "allow_any_host", "allowed_hosts", "cntlid_min",
                       "cntlid_max", "namespaces"}))
            continue;
        SubsystemConfig c;
        if (auto v = r.string(s, p, "nqn", true, "nqn.2026-11.io.skiff:disk1")) {
            if (auto why = nvmeof::target::check_nqn(*v); !why.empty())
                r.error(join(p, "nqn"), why);
            else if (*v == nvmeof::target::kDiscoveryNqn)
                r.error(join(p, "nqn"), "the discovery NQN is reserved; expected an NVM subsystem NQN");
            c.nqn = *v;
        }
        if (auto v = r.string(s, p, "serial", false, "SKIFF0001"))
            check_ascii(r, join(p, "serial"), c.serial = *v, 20);
        if (auto v = r.string(s, p, "model", false, "skiff"))
            check_ascii(r, join(p, "model"), c.model = *v, 40);
        auto any = r.boolean(s, p, "allow_any_host");
        if (auto hosts = r.strings(s, p, "allowed_hosts", "host NQN strings")) {
            for (size_t h = 0; h < hosts->size(); ++h)
                if (auto why = nvmeof::target::check_nqn((*hosts)[h]); !why.empty())
                    r.error(index(join(p, "allowed_hosts"), h), why);
            c.allowed_hosts = *hosts;
        }
        // A host list alone means "only these hosts"; both at once is a contradiction.
        c.allow_any_host = any.value_or(c.allowed_hosts.empty());
        if (c.allow_any_host && !c.allowed_hosts.empty())
            r.error(join(p, "allow_any_host"),
                    "is true while allowed_hosts lists hosts; expected false (or drop allowed_hosts)");
        auto lo = r.integer(s, p, "cntlid_min", 1, 0xFFEF, false);
        auto hi = r.integer(s, p, "cntlid_max", 1, 0xFFEF, false);
        c.cntlid_min = uint16_t(lo.value_or(1));
        c.cntlid_max = uint16_t(hi.value_or(0xFFEF));
        if (c.cntlid_min > c.cntlid_max)
            r.error(join(p, "cntlid_max"), "expected at least cntlid_min (" + std::to_string(c.cntlid_min) +
                                               "), got " + std::to_string(c.cntlid_max));
        if (s.contains("namespaces") &&
            r.array(s["namespaces"], join(p, "namespaces"), "namespace objects")) {
            for (size_t n = 0; n < s["namespaces"].size(); ++n) {
                NamespaceConfig ns;
                read_namespace(r, s["namespaces"][n], index(join(p, "namespaces"), n), ns);
                c.namespaces.push_back(ns);
            }
        }
        out.push_back(c);
    }
}

// listeners[].ana: [{"subsystem": NQN (optional), "group": 1..128, "state": "..."}].
void read_ana_states(JsonReader &r, const json &j, const std::string &p, std::vector<AnaStateConfig> &out) {
    if (!r.array(j, p, "ANA state objects")) return;
    for (size_t i = 0; i < j.size(); ++i) {
        const std::string ep = index(p, i);
        const json &e = j[i];
        if (!r.object(e, ep, {"subsystem", "group", "state"})) continue;
        AnaStateConfig a;
        if (auto v = r.string(e, ep, "subsystem", false, "nqn.2026-11.io.skiff:disk1")) a.subsystem = *v;
        if (auto v = r.integer(e, ep, "group", 1, kMaxAnaGroup, true)) a.group = uint32_t(*v);
        if (auto v = r.string(e, ep, "state", true, "inaccessible")) {
            if (!nvmeof::target::parse_ana_state(*v))
                r.error(join(ep, "state"), "expected \"optimized\", \"non-optimized\", \"inaccessible\", "
                                           "\"persistent-loss\" or \"change\", got " +
                                               quote(e["state"]));
            a.state = *v;
        }
        for (size_t k = 0; k < out.size(); ++k)
            if (out[k].subsystem == a.subsystem && out[k].group == a.group)
                r.error(ep, "group " + std::to_string(a.group) +
                                (a.subsystem.empty() ? "" : " of " + a.subsystem) + " is already set by " +
                                index(p, k));
        out.push_back(a);
    }
}

// "addr": a numeric IPv4 or IPv6 address, kept in its canonical form (canonical_ip), so two
// spellings of one address ("::1", "0:0::1") are one listener or referral.
std::optional<std::string> read_ip_address(JsonReader &r, const json &j, const std::string &p,
                                           const char *example) {
    auto v = r.string(j, p, "addr", true, example);
    if (!v) return std::nullopt;
    auto ip = nvmeof::transport::canonical_ip(*v);
    if (!ip)
        r.error(join(p, "addr"), "expected an IPv4 or IPv6 address such as \"127.0.0.1\" or \"::1\" "
                                 "(no brackets, no port), got " +
                                     quote(j["addr"]));
    return ip.value_or(*v);
}

// referrals: [{"trtype": "tcp", "addr": "192.0.2.7", "port": 8009}].
void read_referrals(JsonReader &r, const json &j, std::vector<ReferralConfig> &out) {
    if (!r.array(j, "referrals", "referral objects")) return;
    for (size_t i = 0; i < j.size(); ++i) {
        const std::string p = index("referrals", i);
        const json &e = j[i];
        if (!r.object(e, p, {"trtype", "addr", "port"})) continue;
        ReferralConfig ref;
        if (auto v = read_trtype(r, e, p)) ref.trtype = *v;
        if (auto v = read_ip_address(r, e, p, "192.0.2.7")) ref.addr = *v;
        if (auto v = r.integer(e, p, "port", 1, 65535, false)) ref.port = uint16_t(*v);
        for (size_t k = 0; k < out.size(); ++k)
            if (out[k] == ref) r.error(p, "the same referral as " + index("referrals", k));
        out.push_back(ref);
    }
}

// metrics: {"listen": "127.0.0.1:9860", "accounting": true}.
void read_metrics(JsonReader &r, const json &j, MetricsSettings &out) {
    const std::string p = "metrics";
    if (!r.object(j, p, {"listen", "accounting"})) return;
    if (auto a = r.boolean(j, p, "accounting")) out.accounting = *a;
    auto v = r.string(j, p, "listen", false, "127.0.0.1:9860");
    if (!v) return;
    auto addr = nvmeof::transport::parse_listen_address(*v);
    if (!addr || addr->port == 0)
        return r.error(join(p, "listen"), "expected ADDR:PORT with a port of 1..65535, such as "
                                          "\"127.0.0.1:9860\" or \"[::1]:9860\", got " +
                                              quote(j["listen"]));
    out.listen = addr->str();
}

// mdns: {"announce": true, "name": "rack 4 target"}.
void read_mdns(JsonReader &r, const json &j, MdnsSettings &out) {
    const std::string p = "mdns";
    if (!r.object(j, p, {"announce", "name"})) return;
    if (auto a = r.boolean(j, p, "announce")) out.announce = *a;
    auto name = r.string(j, p, "name", false, "rack 4 target");
    if (!name) return;
    // A DNS label: at most 63 bytes (RFC 6763 4.1.1: the instance name is one label).
    if (name->empty() || name->size() > 63)
        return r.error(join(p, "name"),
                       "expected 1..63 bytes (one DNS label), got " + std::to_string(name->size()));
    out.name = *name;
}

std::optional<ListenerConfig> read_listener(JsonReader &r, const json &j, const std::string &p,
                                            bool discovery) {
    std::vector<const char *> keys = {"trtype", "addr", "port", "secure_channel",
                                      "allow_plaintext_psk_hosts"};
    if (!discovery) {
        keys.push_back("subsystems");
        keys.push_back("ana");
    }
    if (!r.object(j, p, keys)) return std::nullopt;
    ListenerConfig l;
    if (auto v = read_trtype(r, j, p)) l.trtype = *v;
    if (auto v = read_ip_address(r, j, p, "127.0.0.1")) l.addr = *v;
    if (auto v = r.integer(j, p, "port", 0, 65535, true)) l.port = uint16_t(*v);
    if (!discovery) l.subsystems = r.strings(j, p, "subsystems", "subsystem NQN strings");
    if (!discovery && j.contains("ana")) read_ana_states(r, j["ana"], join(p, "ana"), l.ana);
    if (auto v = r.string(j, p, "secure_channel", false, "required")) {
        if (!nvmeof::target::parse_secure_channel(*v))
            r.error(join(p, "secure_channel"),
                    "expected \"none\", \"optional\" or \"required\", got " + quote(j["secure_channel"]));
        else if (*v != "none" && l.trtype != "tcp")
            r.error(join(p, "secure_channel"),
                    "TLS is an NVMe/TCP secure channel; this listener is " + l.trtype);
        l.secure_channel = *v;
    }
    if (auto v = r.boolean(j, p, "allow_plaintext_psk_hosts")) {
        if (l.secure_channel != "optional")
            r.error(join(p, "allow_plaintext_psk_hosts"),
                    "only means something with \"secure_channel\": \"optional\" (this listener's is \"" +
                        l.secure_channel + "\")");
        else
            l.allow_plaintext_psk_hosts = *v;
    }
    return l;
}

void read_listeners(JsonReader &r, const json &j, std::vector<ListenerConfig> &out) {
    if (!r.array(j, "listeners", "listener objects")) return;
    for (size_t i = 0; i < j.size(); ++i)
        if (auto l = read_listener(r, j[i], index("listeners", i), false)) out.push_back(*l);
}

// The dpa data path runs I/O on DPA threads, which have no poll loop: backends that complete
// through a poll group's epoll loop or progress engine (aio, hostmem, rbd) cannot serve it.
void check_datapath(JsonReader &r, const Config &c) {
    if (c.target.datapath != "dpa") return;
    for (size_t i = 0; i < c.backends.size(); ++i) {
        // An error backend runs I/O on its base's channel.
        const bool wraps = c.backends[i].kind == "error";
        const std::string kind =
            wraps ? c.backends[i].settings.json().value("base", json::object()).value("kind", "")
                  : c.backends[i].kind;
        if (kind == "aio" || kind == "hostmem" || kind == "rbd")
            r.error(index("backends", i) + (wraps ? ".base.kind" : ".kind"),
                    "\"" + kind +
                        "\" cannot serve target.datapath \"dpa\" (its completions need a poll group's loop); "
                        "use ram or null, or target.datapath \"poll\"");
    }
    for (size_t i = 0; i < c.transports.size(); ++i)
        if (c.transports[i].srq_depth)
            r.error(
                index("transports", i) + ".srq_depth",
                "a shared receive queue cannot serve target.datapath \"dpa\" (its receives belong to a poll "
                "group, each dpa queue owns its own); use 0, or target.datapath \"poll\"");
    bool rdma = false;
    for (auto &l : c.listeners) rdma |= l.trtype == "rdma";
    if (!rdma)
        r.warning("target.datapath",
                  "\"dpa\" moves NVMe/RDMA I/O queues only; no rdma listener is configured, so every queue "
                  "runs on the poll groups");
}

// An entry carries a DH-HMAC-CHAP key, a TLS PSK or both; the other dhchap_* settings only
// qualify a dhchap_key, so without one they would silently do nothing.
void check_host_secrets(JsonReader &r, const json &h, const std::string &p) {
    if (!h.contains("dhchap_key") && !h.contains("tls_psk")) {
        r.error(p, "expected \"dhchap_key\" (DH-HMAC-CHAP), \"tls_psk\" (TLS) or both");
        return;
    }
    if (h.contains("dhchap_key")) return;
    for (const char *key : {"dhchap_ctrl_key", "dhchap_hashes", "dhchap_dhgroups"})
        if (h.contains(key)) r.error(join(p, key), "applies to a dhchap_key; this entry has none");
}

// hosts[]: DH-HMAC-CHAP secrets and TLS PSKs. A bad secret's message never repeats the secret.
void read_hosts(JsonReader &r, const json &j, std::vector<HostConfig> &out) {
    if (!r.array(j, "hosts", "host objects")) return;
    for (size_t i = 0; i < j.size(); ++i) {
        const std::string p = index("hosts", i);
        const json &h = j[i];
        if (!r.object(h, p,
                      {"nqn", "subsystem", "dhchap_key", "dhchap_ctrl_key", "dhchap_hashes",
                       "dhchap_dhgroups", "tls_psk"}))
            continue;
        HostConfig c;
        if (auto v = r.string(h, p, "nqn", true, "nqn.2014-08.org.nvmexpress:uuid:...")) {
            if (auto why = nvmeof::target::check_nqn(*v); !why.empty()) r.error(join(p, "nqn"), why);
            c.nqn = *v;
        }
        if (auto v = r.string(h, p, "subsystem", false)) c.subsystem = *v;
        for (auto [key, field] :
             {std::pair{"dhchap_key", &c.dhchap_key}, std::pair{"dhchap_ctrl_key", &c.dhchap_ctrl_key}}) {
            auto v = r.string(h, p, key, false, "DHHC-1:01:<base64>: from nvme gen-dhchap-key");
            if (!v) continue;
            if (auto k = nvmeof::auth::parse_dhchap_key(*v); !k) r.error(join(p, key), k.error().message);
            *field = *v;
        }
        if (auto v = r.strings(h, p, "dhchap_hashes", "hash names (sha256, sha384, sha512)")) {
            for (size_t k = 0; k < v->size(); ++k)
                if (!nvmeof::auth::hash_from_name((*v)[k]))
                    r.error(index(join(p, "dhchap_hashes"), k),
                            "expected sha256, sha384 or sha512, got \"" + (*v)[k] + "\"");
            c.dhchap_hashes = *v;
        }
        if (auto v = r.strings(h, p, "dhchap_dhgroups", "DH group names (null, ffdhe2048 ... ffdhe8192)")) {
            for (size_t k = 0; k < v->size(); ++k)
                if (!nvmeof::auth::dh_group_from_name((*v)[k]))
                    r.error(index(join(p, "dhchap_dhgroups"), k),
                            "expected null, ffdhe2048, ffdhe3072, ffdhe4096, ffdhe6144 or ffdhe8192, got \"" +
                                (*v)[k] + "\"");
            c.dhchap_dhgroups = *v;
        }
        if (auto v = r.string(h, p, "tls_psk", false, "NVMeTLSkey-1:01:<base64>: from nvme gen-tls-key")) {
            if (auto k = nvmeof::tls::parse_interchange(*v); !k)
                r.error(join(p, "tls_psk"), k.error().message);
            c.tls_psk = *v;
        }
        check_host_secrets(r, h, p);
        out.push_back(c);
    }
}

void check_hosts(JsonReader &r, const Config &c) {
    std::map<std::pair<std::string, std::string>, size_t> seen;
    for (size_t i = 0; i < c.hosts.size(); ++i) {
        const HostConfig &h = c.hosts[i];
        const std::string p = index("hosts", i);
        if (!h.subsystem.empty() && !c.find_subsystem(h.subsystem))
            r.error(p + ".subsystem", "no subsystem named \"" + h.subsystem + "\"");
        auto [it, fresh] = seen.emplace(std::pair{h.nqn, h.subsystem}, i);
        if (!fresh)
            r.error(p + ".nqn", "\"" + h.nqn + "\"" + (h.subsystem.empty() ? "" : " on " + h.subsystem) +
                                    " already has secrets in " + index("hosts", it->second));
    }
}

// Checks that span sections. Paths index the parsed vectors, which follow the file's order
// (entries that failed to parse at all are skipped, and those already have an error).
void cross_check(JsonReader &r, const Config &c) {
    check_datapath(r, c);
    if (c.mdns.announce && !c.discovery)
        r.error("mdns.announce",
                "announces the discovery listener, and there is none: add \"discovery\" "
                "(for example {\"trtype\": \"tcp\", \"addr\": \"0.0.0.0\", \"port\": 8009})");
    for (size_t i = 1; i < c.transports.size(); ++i) {
        const TransportSettings &a = c.transports[0], &b = c.transports[i];
        for (size_t k = 0; k < i; ++k)
            if (c.transports[k].trtype == b.trtype)
                r.error(index("transports", i) + ".trtype",
                        "\"" + b.trtype + "\" is already configured by " + index("transports", k));
        if (a.max_queue_depth != b.max_queue_depth || a.max_admin_queue_depth != b.max_admin_queue_depth ||
            a.max_io_queues != b.max_io_queues || a.in_capsule_data_size != b.in_capsule_data_size ||
            a.max_io_size != b.max_io_size || a.discovery_kato_ms != b.discovery_kato_ms ||
            a.stall_timeout_ms != b.stall_timeout_ms || a.max_connections != b.max_connections ||
            a.max_connections_per_host != b.max_connections_per_host ||
            a.max_queues_per_host != b.max_queues_per_host || a.auth_timeout_ms != b.auth_timeout_ms)
            r.error(
                index("transports", i),
                "expected the same limits as transports[0] (the target applies one set of limits to every "
                "transport)");
    }
    std::map<std::string, size_t> backends;
    for (size_t i = 0; i < c.backends.size(); ++i)
        if (!backends.emplace(c.backends[i].name, i).second)
            r.error(index("backends", i) + ".name", "\"" + c.backends[i].name + "\" is already the name of " +
                                                        index("backends", backends[c.backends[i].name]));
    std::map<std::string, std::string> backend_user;
    std::map<Id16, std::string> ids;
    std::map<std::string, std::string> ptpl_files;
    std::set<std::string> nqns;
    size_t namespaces = 0;
    for (size_t i = 0; i < c.subsystems.size(); ++i) {
        const SubsystemConfig &s = c.subsystems[i];
        const std::string p = index("subsystems", i);
        if (!s.nqn.empty() && !nqns.insert(s.nqn).second)
            r.error(p + ".nqn", "\"" + s.nqn + "\" is already used by another subsystem");
        std::set<uint32_t> nsids;
        for (size_t n = 0; n < s.namespaces.size(); ++n) {
            const NamespaceConfig &ns = s.namespaces[n];
            const std::string np = index(p + ".namespaces", n);
            if (++namespaces == kMaxTargetNamespaces + 1)
                r.error(np, "one namespace too many: a target holds at most " +
                                std::to_string(kMaxTargetNamespaces) + " namespaces, in all its subsystems");
            if (ns.nsid && !nsids.insert(ns.nsid).second)
                r.error(np + ".nsid", std::to_string(ns.nsid) + " is already used in this subsystem");
            for (auto [id, key] : {std::pair{ns.uuid, "uuid"}, std::pair{ns.nguid, "nguid"}}) {
                if (!id) continue;
                auto [it, fresh] = ids.emplace(*id, np + "." + key);
                if (!fresh)
                    r.error(np + "." + key, "already used by " + it->second + "; identifiers must be unique");
            }
            if (!ns.ptpl_file.empty()) {
                auto [it, fresh] = ptpl_files.emplace(ns.ptpl_file, np + ".ptpl_file");
                if (!fresh)
                    r.error(np + ".ptpl_file", "already used by " + it->second + "; one file per namespace");
            }
            if (ns.backend.empty()) continue;
            auto b = backends.find(ns.backend);
            if (b == backends.end()) {
                r.error(np + ".backend", "no backend named \"" + ns.backend + "\"");
                continue;
            }
            auto [user, fresh] = backend_user.emplace(ns.backend, np);
            if (!fresh)
                r.error(np + ".backend", "backend \"" + ns.backend + "\" is already used by " + user->second);
            uint64_t size = c.backends[b->second].size_bytes;
            if (size && size % ns.block_size)
                r.error(np + ".block_size", std::to_string(ns.block_size) +
                                                " does not divide the size of backend \"" + ns.backend +
                                                "\" (" + std::to_string(size) + " bytes)");
        }
    }
    std::map<std::string, std::string> addresses;
    auto check_address = [&](const ListenerConfig &l, const std::string &p) {
        std::string key = l.trtype + " " + nvmeof::transport::host_port(l.addr, l.port);
        auto [it, fresh] = addresses.emplace(key, p);
        if (!fresh) r.error(p, key + " is already configured by " + it->second);
    };
    for (size_t i = 0; i < c.listeners.size(); ++i) {
        const ListenerConfig &l = c.listeners[i];
        check_address(l, index("listeners", i));
        for (size_t k = 0; k < l.ana.size(); ++k)
            if (!l.ana[k].subsystem.empty() && !nqns.count(l.ana[k].subsystem))
                r.error(index(index("listeners", i) + ".ana", k) + ".subsystem",
                        "no subsystem named \"" + l.ana[k].subsystem + "\"");
        if (!l.subsystems) continue;
        for (size_t k = 0; k < l.subsystems->size(); ++k)
            if (!nqns.count((*l.subsystems)[k]))
                r.error(index(index("listeners", i) + ".subsystems", k),
                        "no subsystem named \"" + (*l.subsystems)[k] + "\"");
    }
    if (c.discovery) check_address(*c.discovery, "discovery");
    check_hosts(r, c);
}

} // namespace

std::string LoadResult::error_text() const {
    std::string out;
    for (auto &e : errors) out += e + "\n";
    return out;
}

LoadResult parse_config(const json &doc) {
    JsonReader r;
    Config c;
    if (r.object(doc, "",
                 {"target", "transports", "backends", "subsystems", "listeners", "discovery", "referrals",
                  "hosts", "metrics", "mdns"})) {
        if (doc.contains("target")) read_target(r, doc["target"], c.target);
        if (doc.contains("transports")) read_transports(r, doc["transports"], c.transports);
        if (doc.contains("backends")) read_backends(r, doc["backends"], c.backends);
        if (doc.contains("subsystems")) read_subsystems(r, doc["subsystems"], c.subsystems);
        if (doc.contains("listeners")) read_listeners(r, doc["listeners"], c.listeners);
        if (doc.contains("discovery") && !doc["discovery"].is_null())
            c.discovery = read_listener(r, doc["discovery"], "discovery", true);
        if (doc.contains("referrals")) read_referrals(r, doc["referrals"], c.referrals);
        if (doc.contains("hosts")) read_hosts(r, doc["hosts"], c.hosts);
        if (doc.contains("metrics")) read_metrics(r, doc["metrics"], c.metrics);
        if (doc.contains("mdns")) read_mdns(r, doc["mdns"], c.mdns);
        if (r.errors().empty()) cross_check(r, c);
    }
    LoadResult out;
    out.errors = r.errors();
    out.warnings = r.warnings();
    if (out.errors.empty()) out.config = std::move(c);
    return out;
}

LoadResult parse_config_text(const std::string &text) {
    json doc = json::parse(text, nullptr, false);
    if (doc.is_discarded()) {
        // Re-parse with exceptions on to get the position of the syntax error. Any json exception:
        // a number too large for a double ("1E4447") is out_of_range, not parse_error, and an
        // uncaught one ended skiff-target on a SIGHUP reload of such a file.
        LoadResult out;
        try {
            json again = json::parse(text);
            (void)again;
        } catch (const json::exception &e) {
            out.errors.push_back(std::string("(syntax): ") + e.what());
        }
        return out;
    }
    return parse_config(doc);
}

namespace {

bool holds_secrets(const Config &c) {
    return std::any_of(c.hosts.begin(), c.hosts.end(), [](const HostConfig &h) {
        return !h.dhchap_key.empty() || !h.dhchap_ctrl_key.empty() || !h.tls_psk.empty();
    });
}

} // namespace

LoadResult load_config_file(const std::string &path) {
    std::ifstream in(path);
    if (!in) return LoadResult{std::nullopt, {path + ": cannot be read"}, {}};
    std::stringstream text;
    text << in.rdbuf();
    LoadResult out = parse_config_text(text.str());
    for (auto &e : out.errors)
        if (e.starts_with("(syntax)")) e = path + " " + e;
    if (out.config && holds_secrets(*out.config)) {
        struct stat st {};
        if (::stat(path.c_str(), &st) == 0)
            if (auto w = nvmeof::auth::secret_mode_warning(path, st.st_mode); !w.empty())
                out.warnings.push_back(w + " (hosts[] has DH-HMAC-CHAP secrets or TLS PSKs)");
    }
    return out;
}

TransportSettings Config::transport() const {
    TransportSettings t = transports.empty() ? TransportSettings{} : transports[0];
    for (auto &e : transports)
        if (e.trtype == "rdma")
            t.srq_depth = e.srq_depth;
        else if (e.trtype == "tcp")
            t.zero_copy_read_min = e.zero_copy_read_min;
    return t;
}

const BackendConfig *Config::find_backend(const std::string &name) const {
    for (auto &b : backends)
        if (b.name == name) return &b;
    return nullptr;
}

std::string ListenerConfig::ana_state(const std::string &nqn, uint32_t group) const {
    const AnaStateConfig *any = nullptr;
    for (auto &a : ana) {
        if (a.group != group) continue;
        if (a.subsystem == nqn) return a.state;
        if (a.subsystem.empty()) any = &a;
    }
    return any ? any->state : "optimized";
}

const SubsystemConfig *Config::find_subsystem(const std::string &nqn) const {
    for (auto &s : subsystems)
        if (s.nqn == nqn) return &s;
    return nullptr;
}

Config default_config() {
    Config c;
    c.backends.push_back({"ram0", "ram", uint64_t(1) << 30, {}});
    SubsystemConfig s;
    s.nqn = "nqn.2026-11.io.skiff:default";
    s.serial = "SKIFF0001";
    s.model = "skiff RAM namespace";
    NamespaceConfig ns;
    ns.nsid = 1;
    ns.backend = "ram0";
    s.namespaces.push_back(ns);
    c.subsystems.push_back(s);
    c.listeners.push_back({"tcp", "127.0.0.1", 4420, std::nullopt, {}});
    c.discovery = ListenerConfig{"tcp", "127.0.0.1", 8009, std::nullopt, {}};
    return c;
}

std::string describe_limits(const TransportSettings &t) {
    std::ostringstream o;
    o << "queue depth " << t.max_queue_depth << ", in-capsule data " << t.in_capsule_data_size
      << " bytes, max I/O " << format_size(t.max_io_size);
    if (t.srq_depth) o << ", rdma shared receive queue of " << t.srq_depth;
    if (t.zero_copy_read_min)
        o << ", tcp reads from " << format_size(t.zero_copy_read_min) << " sent from RAM namespaces' memory";
    else
        o << ", tcp reads always copied";
    return o.str();
}

std::string summarize(const Config &c) {
    std::ostringstream o;
    o << "target: " << c.target.cores << " poll group(s), data path " << c.target.datapath;
    if (c.target.datapath == "dpa") o << " (" << c.target.dpa_eus << " EU(s))";
    o << ", log level " << c.target.log_level << ", management "
      << (c.target.management_socket.empty() ? "socket at the default place" : c.target.management_socket)
      << "\n";
    o << "limits: " << describe_limits(c.transport()) << "\n";
    for (auto &b : c.backends) {
        o << "backend " << b.name << ": " << b.kind;
        if (b.size_bytes) o << ", " << format_size(b.size_bytes);
        if (b.settings.json().contains("path")) o << ", " << b.settings.json()["path"].get<std::string>();
        o << "\n";
    }
    for (auto &s : c.subsystems) {
        o << "subsystem " << s.nqn << ": " << s.namespaces.size() << " namespace(s), "
          << (s.allow_any_host ? std::string("any host")
                               : std::to_string(s.allowed_hosts.size()) + " allowed host(s)")
          << "\n";
        for (auto &ns : s.namespaces)
            o << "  namespace " << ns.nsid << ": backend " << ns.backend << ", " << ns.block_size
              << "-byte blocks\n";
    }
    for (auto &h : c.hosts) {
        // That a secret is set, never the secret.
        std::vector<std::string> set;
        if (!h.dhchap_key.empty()) set.push_back("DH-HMAC-CHAP key set");
        if (!h.dhchap_ctrl_key.empty()) set.push_back("controller key set (bidirectional)");
        if (!h.tls_psk.empty()) set.push_back("TLS PSK set");
        o << "host " << h.nqn << (h.subsystem.empty() ? "" : " on " + h.subsystem) << ": ";
        for (size_t i = 0; i < set.size(); ++i) o << (i ? ", " : "") << set[i];
        o << "\n";
    }
    for (auto &l : c.listeners) {
        o << "listener " << l.trtype << " " << nvmeof::transport::host_port(l.addr, l.port)
          << (l.secure_channel == "none" ? "" : " (TLS " + l.secure_channel + ")") << ": ";
        if (!l.subsystems) {
            o << "every subsystem\n";
        } else {
            std::string names;
            for (auto &n : *l.subsystems) names += (names.empty() ? "" : ", ") + n;
            o << (names.empty() ? "no subsystem" : names) << "\n";
        }
        for (auto &a : l.ana)
            o << "  ANA group " << a.group << (a.subsystem.empty() ? "" : " of " + a.subsystem) << ": "
              << a.state << "\n";
    }
    if (c.discovery)
        o << "discovery " << c.discovery->trtype << " "
          << nvmeof::transport::host_port(c.discovery->addr, c.discovery->port) << "\n";
    for (auto &ref : c.referrals)
        o << "referral " << ref.trtype << " " << nvmeof::transport::host_port(ref.addr, ref.port) << "\n";
    if (!c.metrics.listen.empty())
        o << "metrics http://" << c.metrics.listen << "/metrics\n";
    else if (c.metrics.accounting)
        o << "I/O accounting on (skiff-ctl stats), no metrics endpoint\n";
    if (c.mdns.announce) o << "mDNS: the discovery listener announced as _nvme-disc._tcp\n";
    return o.str();
}

} // namespace skiff::config
