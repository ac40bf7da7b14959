#include "qos_config.hpp"

#include "skiff/config/units.hpp"
#include "skiff/nvmeof/target/subsystem.hpp"

#include <set>

namespace skiff::config::detail {
namespace {

// A rate far beyond any device (1 billion I/Os, 1 PiB per second): a larger number is a typo.
constexpr uint64_t kMaxIosPerSec = 1'000'000'000;
constexpr uint64_t kMaxBytesPerSec = uint64_t(1) << 50;

struct Field {
    const char *key;
    bool bytes;
    uint64_t QosLimitsConfig::*member;
};
constexpr Field kFields[] = {
    {"rw_ios_per_sec", false, &QosLimitsConfig::rw_ios_per_sec},
    {"read_ios_per_sec", false, &QosLimitsConfig::read_ios_per_sec},
    {"write_ios_per_sec", false, &QosLimitsConfig::write_ios_per_sec},
    {"rw_bytes_per_sec", true, &QosLimitsConfig::rw_bytes_per_sec},
    {"read_bytes_per_sec", true, &QosLimitsConfig::read_bytes_per_sec},
    {"write_bytes_per_sec", true, &QosLimitsConfig::write_bytes_per_sec},
};

// Bytes per second: a count, or a size with a binary unit ("200MiB" is 200 MiB/s).
void read_bytes_rate(JsonReader &r, const json &j, const std::string &p, const char *key, uint64_t &out) {
    const json &v = j[key];
    std::optional<uint64_t> n;
    if (v.is_number_integer() && v.get<int64_t>() >= 0) n = v.get<uint64_t>();
    if (v.is_string()) n = parse_size(v.get<std::string>());
    if (!n || *n > kMaxBytesPerSec) {
        r.error(join(p, key), "expected bytes per second: a byte count or a size such as \"200MiB\", up to "
                              "1PiB; 0 for no limit; got " +
                                  quote(v));
        return;
    }
    out = *n;
}

void read_ios_rate(JsonReader &r, const json &j, const std::string &p, const char *key, uint64_t &out) {
    const json &v = j[key];
    if (!v.is_number_integer() || (!v.is_number_unsigned() && v.get<int64_t>() < 0) ||
        v.get<uint64_t>() > kMaxIosPerSec) {
        r.error(join(p, key), "expected I/O commands per second: an integer 0.." +
                                  std::to_string(kMaxIosPerSec) + ", 0 for no limit; got " + quote(v));
        return;
    }
    out = v.get<uint64_t>();
}

void read_limits(JsonReader &r, const json &j, const std::string &p, QosLimitsConfig &out) {
    for (const Field &f : kFields) {
        if (!j.contains(f.key)) continue;
        if (f.bytes)
            read_bytes_rate(r, j, p, f.key, out.*f.member);
        else
            read_ios_rate(r, j, p, f.key, out.*f.member);
    }
}

std::vector<const char *> keys(bool with_hosts, bool with_nqn) {
    std::vector<const char *> k;
    if (with_nqn) k.push_back("nqn");
    for (const Field &f : kFields) k.push_back(f.key);
    if (with_hosts) k.push_back("hosts");
    return k;
}

void read_host(JsonReader &r, const json &j, const std::string &p, QosHostConfig &out) {
    if (!r.object(j, p, keys(false, true))) return;
    if (auto v = r.string(j, p, "nqn", true, "nqn.2014-08.org.nvmexpress:uuid:...")) {
        if (auto why = nvmeof::target::check_nqn(*v); !why.empty())
            r.error(join(p, "nqn"), why);
        else
            out.nqn = *v;
    }
    read_limits(r, j, p, out.limits);
}

json limits_json(const QosLimitsConfig &l) {
    json j = json::object();
    for (const Field &f : kFields) {
        const uint64_t v = l.*f.member;
        if (!v) continue;
        // Bytes in the unit form when it is exact and shorter ("200MiB"), as sizes elsewhere.
        if (f.bytes)
            j[f.key] = format_size(v);
        else
            j[f.key] = v;
    }
    return j;
}

} // namespace

void read_qos(JsonReader &r, const json &j, const std::string &p, QosConfig &out) {
    if (!r.object(j, p, keys(true, false))) return;
    read_limits(r, j, p, out.limits);
    if (!j.contains("hosts") || !r.array(j["hosts"], join(p, "hosts"), "host limit objects")) return;
    const json &hosts = j["hosts"];
    if (hosts.size() > kMaxQosHosts)
        r.error(join(p, "hosts"), "expected at most " + std::to_string(kMaxQosHosts) + " hosts, got " +
                                      std::to_string(hosts.size()));
    std::set<std::string> seen;
    for (size_t i = 0; i < hosts.size() && i < kMaxQosHosts; ++i) {
        QosHostConfig h;
        const std::string hp = index(join(p, "hosts"), i);
        read_host(r, hosts[i], hp, h);
        if (!h.nqn.empty() && !seen.insert(h.nqn).second)
            r.error(join(hp, "nqn"), "\"" + h.nqn + "\" already has limits in this list");
        out.hosts.push_back(std::move(h));
    }
}

json qos_json(const QosConfig &qos) {
    json j = limits_json(qos.limits);
    for (const QosHostConfig &h : qos.hosts) {
        json e = limits_json(h.limits);
        e["nqn"] = h.nqn;
        j["hosts"].push_back(std::move(e));
    }
    return j;
}

} // namespace skiff::config::detail
