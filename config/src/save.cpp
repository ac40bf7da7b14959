#include "skiff/config/save.hpp"

#include "skiff/config/units.hpp"

namespace skiff::config {

using nlohmann::json;

namespace {

json listener_json(const ListenerConfig &l) {
    json j = {{"trtype", l.trtype}, {"addr", l.addr}, {"port", l.port}};
    if (l.subsystems) j["subsystems"] = *l.subsystems;
    if (l.secure_channel != "none") j["secure_channel"] = l.secure_channel;
    return j;
}

} // namespace

json to_json(const Config &c, bool with_secrets) {
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
            if (!ns.ptpl_file.empty()) n["ptpl_file"] = ns.ptpl_file;
            j["namespaces"].push_back(n);
        }
        out["subsystems"].push_back(j);
    }
    out["listeners"] = json::array();
    for (auto &l : c.listeners) out["listeners"].push_back(listener_json(l));
    out["discovery"] = c.discovery ? listener_json(*c.discovery) : json(nullptr);
    if (!c.hosts.empty()) {
        out["hosts"] = json::array();
        for (auto &h : c.hosts) {
            json j = {{"nqn", h.nqn}};
            if (!h.tls_psk.empty()) j["tls_psk"] = with_secrets ? h.tls_psk : std::string("(set)");
            out["hosts"].push_back(j);
        }
    }
    return out;
}

} // namespace skiff::config
