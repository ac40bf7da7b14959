#include "skiff/config/save.hpp"

#include "skiff/config/units.hpp"

namespace skiff::config {

using nlohmann::json;

namespace {

json listener_json(const ListenerConfig &l) {
    json j = {{"trtype", l.trtype}, {"addr", l.addr}, {"port", l.port}};
    if (l.subsystems) j["subsystems"] = *l.subsystems;
    for (auto &a : l.ana) {
        json e = {{"group", a.group}, {"state", a.state}};
        if (!a.subsystem.empty()) e["subsystem"] = a.subsystem;
        j["ana"].push_back(e);
    }
    if (l.secure_channel != "none") j["secure_channel"] = l.secure_channel;
    if (l.allow_plaintext_psk_hosts) j["allow_plaintext_psk_hosts"] = true;
    return j;
}

} // namespace

json to_json(const Config &c) {
    json out;
    out["target"] = {{"cores", c.target.cores}, {"log_level", c.target.log_level}};
    if (c.target.datapath != "poll") {
        out["target"]["datapath"] = c.target.datapath;
        out["target"]["dpa"] = {{"eus", c.target.dpa_eus}};
    }
    if (!c.target.management_socket.empty()) out["target"]["management_socket"] = c.target.management_socket;
    out["transports"] = json::array();
    for (auto &t : c.transports) {
        out["transports"].push_back({{"trtype", t.trtype},
                                     {"max_queue_depth", t.max_queue_depth},
                                     {"max_admin_queue_depth", t.max_admin_queue_depth},
                                     {"max_io_queues", t.max_io_queues},
                                     {"in_capsule_data_size", format_size(t.in_capsule_data_size)},
                                     {"max_io_size", format_size(t.max_io_size)},
                                     {"discovery_kato_ms", t.discovery_kato_ms}});
        if (t.srq_depth) out["transports"].back()["srq_depth"] = t.srq_depth;
        // The hostile-client settings only when they differ from the defaults.
        const TransportSettings defaults;
        json &saved = out["transports"].back();
        if (t.stall_timeout_ms != defaults.stall_timeout_ms) saved["stall_timeout_ms"] = t.stall_timeout_ms;
        if (t.max_connections) saved["max_connections"] = t.max_connections;
        if (t.max_connections_per_host) saved["max_connections_per_host"] = t.max_connections_per_host;
        if (t.max_queues_per_host) saved["max_queues_per_host"] = t.max_queues_per_host;
        if (t.auth_timeout_ms != defaults.auth_timeout_ms) saved["auth_timeout_ms"] = t.auth_timeout_ms;
        if (t.trtype == "tcp" && t.zero_copy_read_min != defaults.zero_copy_read_min)
            saved["zero_copy_read_min"] = format_size(t.zero_copy_read_min);
    }
    out["backends"] = json::array();
    for (auto &b : c.backends) {
        json j = {{"name", b.name}, {"kind", b.kind}};
        if (b.size_bytes) j["size"] = format_size(b.size_bytes);
        for (auto it = b.settings.begin(); it != b.settings.end(); ++it) j[it.key()] = it.value();
        out["backends"].push_back(j);
    }
    out["subsystems"] = json::array();
    for (auto &s : c.subsystems) {
        json j = {{"nqn", s.nqn},
                  {"serial", s.serial},
                  {"model", s.model},
                  {"allow_any_host", s.allow_any_host},
                  {"allowed_hosts", s.allowed_hosts},
                  {"cntlid_min", s.cntlid_min},
                  {"cntlid_max", s.cntlid_max},
                  {"namespaces", json::array()}};
        for (auto &ns : s.namespaces) {
            json n = {{"nsid", ns.nsid},
                      {"backend", ns.backend},
                      {"block_size", ns.block_size},
                      {"ana_group", ns.ana_group}};
            if (ns.uuid) n["uuid"] = format_id16(*ns.uuid);
            if (ns.nguid) n["nguid"] = format_id16(*ns.nguid);
            if (ns.eui64) n["eui64"] = format_id8(*ns.eui64);
            if (!ns.ptpl_file.empty()) n["ptpl_file"] = ns.ptpl_file;
            j["namespaces"].push_back(n);
        }
        out["subsystems"].push_back(j);
    }
    out["listeners"] = json::array();
    for (auto &l : c.listeners) out["listeners"].push_back(listener_json(l));
    out["discovery"] = c.discovery ? listener_json(*c.discovery) : json(nullptr);
    out["referrals"] = json::array();
    for (auto &r : c.referrals)
        out["referrals"].push_back({{"trtype", r.trtype}, {"addr", r.addr}, {"port", r.port}});
    if (!c.hosts.empty()) {
        out["hosts"] = json::array();
        for (auto &h : c.hosts) {
            json j = {{"nqn", h.nqn}};
            if (!h.dhchap_key.empty()) j["dhchap_key"] = h.dhchap_key;
            if (!h.subsystem.empty()) j["subsystem"] = h.subsystem;
            if (!h.dhchap_ctrl_key.empty()) j["dhchap_ctrl_key"] = h.dhchap_ctrl_key;
            if (!h.dhchap_hashes.empty()) j["dhchap_hashes"] = h.dhchap_hashes;
            if (!h.dhchap_dhgroups.empty()) j["dhchap_dhgroups"] = h.dhchap_dhgroups;
            if (!h.tls_psk.empty()) j["tls_psk"] = h.tls_psk;
            out["hosts"].push_back(j);
        }
    }
    return out;
}

json redact_secrets(json config) {
    if (!config.contains("hosts") || !config["hosts"].is_array()) return config;
    for (auto &h : config["hosts"])
        for (const char *key : {"dhchap_key", "dhchap_ctrl_key", "tls_psk"})
            if (h.contains(key)) h[key] = kRedacted;
    return config;
}

} // namespace skiff::config
