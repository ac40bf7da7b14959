#include "skiff/config/save.hpp"

#include "qos_config.hpp"
#include "skiff/config/units.hpp"

#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <vector>

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

json qos_to_json(const QosConfig &qos) {
    return detail::qos_json(qos);
}

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
        for (auto it = b.settings.json().begin(); it != b.settings.json().end(); ++it)
            j[it.key()] = it.value();
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
            if (!ns.qos.empty()) n["qos"] = detail::qos_json(ns.qos);
            if (ns.visible_hosts) n["visible_hosts"] = *ns.visible_hosts;
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
    if (!c.metrics.listen.empty()) out["metrics"]["listen"] = c.metrics.listen;
    if (c.metrics.accounting) out["metrics"]["accounting"] = true;
    if (c.mdns.announce) out["mdns"]["announce"] = true;
    if (!c.mdns.name.empty()) out["mdns"]["name"] = c.mdns.name;
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

namespace {

Status save_error(const std::string &what) {
    return make_error(DOCA_ERROR_OPERATING_SYSTEM, what + ": " + std::strerror(errno));
}

Status write_all(int fd, const std::string &text) {
    for (size_t off = 0; off < text.size();) {
        ssize_t n = ::write(fd, text.data() + off, text.size() - off);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return make_error(DOCA_ERROR_OPERATING_SYSTEM, std::strerror(n < 0 ? errno : ENOSPC));
        off += size_t(n);
    }
    return Status::success();
}

} // namespace

Status save_config_file(const Config &config, const std::string &path) {
    std::filesystem::path target(path);
    if (target.filename().empty() || target.filename() == "." || target.filename() == "..")
        return make_error(DOCA_ERROR_INVALID_VALUE, "save: \"" + path + "\" names a folder, not a file");
    std::string text = to_json(config).dump(2) + "\n";
    std::string tmp_template = path + ".tmp.XXXXXX";
    std::vector<char> tmp(tmp_template.begin(), tmp_template.end());
    tmp.push_back('\0');
    // mkostemp: O_RDWR|O_CREAT|O_EXCL, mode 0600 (less only if the umask takes more), a fresh
    // random name; another user can neither have created it nor make it a symbolic link.
    int fd = ::mkostemp(tmp.data(), O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) return save_error("save: cannot create a temporary file " + tmp_template);
    const std::string tmp_path = tmp.data();
    auto fail = [&](Status st) {
        ::close(fd);
        ::unlink(tmp_path.c_str());
        return st;
    };
    if (auto st = write_all(fd, text); !st)
        return fail(make_error(DOCA_ERROR_OPERATING_SYSTEM,
                               "save: cannot write " + tmp_path + ": " + st.error().message));
    if (::fsync(fd) != 0) return fail(save_error("save: cannot flush " + tmp_path));
    if (::close(fd) != 0) {
        Status st = save_error("save: cannot write " + tmp_path);
        ::unlink(tmp_path.c_str());
        return st;
    }
    if (std::rename(tmp_path.c_str(), path.c_str()) != 0) {
        Status st = save_error("save: cannot rename " + tmp_path + " to " + path);
        ::unlink(tmp_path.c_str());
        return st;
    }
    // The rename itself survives a crash once the folder is flushed too.
    std::string folder = target.parent_path().empty() ? "." : target.parent_path().string();
    if (int dfd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dfd >= 0) {
        ::fsync(dfd);
        ::close(dfd);
    }
    return Status::success();
}

json redact_secrets(json config) {
    if (!config.contains("hosts") || !config["hosts"].is_array()) return config;
    for (auto &h : config["hosts"])
        for (const char *key : {"dhchap_key", "dhchap_ctrl_key", "tls_psk"})
            if (h.contains(key)) h[key] = kRedacted;
    return config;
}

} // namespace skiff::config
