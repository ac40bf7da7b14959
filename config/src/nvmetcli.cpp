// nvmetcli's config.json -> skiff's configuration. The translation checks what is specific to
// the nvmetcli file (with nvmetcli paths: "ports[1].addr.adrfam"), builds the equivalent
// skiff JSON, and runs it through the ordinary validator, so both formats obey the same rules.
#include "skiff/config/nvmetcli.hpp"

#include "json_reader.hpp"
#include "skiff/nvmeof/transport/ip_address.hpp"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

namespace skiff::config {
namespace {

using detail::index;
using detail::join;
using detail::json;
using detail::JsonReader;
using detail::quote;

// nvmetcli stores attributes as strings ("1", "65519"); accept numbers too.
std::optional<uint64_t> attr_number(JsonReader &r, const json &obj, const std::string &p, const char *key) {
    auto it = obj.find(key);
    if (it == obj.end()) return std::nullopt;
    if (it->is_number_integer() && it->get<int64_t>() >= 0) return it->get<uint64_t>();
    if (it->is_string()) {
        const std::string &s = it->get_ref<const std::string &>();
        if (!s.empty() && s.find_first_not_of("0123456789") == std::string::npos && s.size() < 19)
            return std::stoull(s);
    }
    r.error(join(p, key), "expected a number (as a string such as \"1\"), got " + quote(*it));
    return std::nullopt;
}

std::optional<std::string> attr_string(JsonReader &r, const json &obj, const std::string &p,
                                       const char *key) {
    auto it = obj.find(key);
    if (it == obj.end()) return std::nullopt;
    if (it->is_string()) return it->get<std::string>();
    r.error(join(p, key), "expected a string, got " + quote(*it));
    return std::nullopt;
}

// Linux nvmet's block size for a namespace: the logical block size of a block device, 4 KiB for
// a regular file (io-cmd-file uses min(i_blkbits, 12)).
uint32_t device_block_size(const std::string &path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || !S_ISBLK(st.st_mode)) return 4096;
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    int lbs = 0;
    if (fd >= 0 && ioctl(fd, BLKSSZGET, &lbs) != 0) lbs = 0;
    if (fd >= 0) ::close(fd);
    return lbs == 512 || lbs == 4096 ? uint32_t(lbs) : 4096;
}

// traddr is a numeric address of the family adrfam says (nvmet takes the family from adrfam, so
// a port whose two disagree would not listen where it says).
void check_traddr(JsonReader &r, const std::optional<std::string> &adrfam, const std::string &traddr,
                  const std::string &p) {
    auto family = nvmeof::transport::ip_family(traddr);
    if (!family) {
        r.error(p, "expected an IPv4 or IPv6 address such as \"192.168.1.10\" or \"fd00::10\", got \"" +
                       traddr + "\"");
        return;
    }
    const bool ipv6 = *family == nvmeof::transport::IpFamily::kIpv6;
    if (adrfam && (*adrfam == "ipv4" || *adrfam == "ipv6") && ipv6 != (*adrfam == "ipv6"))
        r.error(p, "\"" + traddr + "\" is an " + (ipv6 ? "IPv6" : "IPv4") + " address, but adrfam is \"" +
                       *adrfam + "\"");
}

json import_port(JsonReader &r, const json &port, const std::string &p, json &transport) {
    json l = json::object();
    if (!port.is_object()) {
        r.error(p, "expected an object, got " + quote(port));
        return l;
    }
    const json addr = port.value("addr", json::object());
    const std::string ap = join(p, "addr");
    if (!port.contains("addr")) r.error(ap, "missing; expected {trtype, traddr, trsvcid, adrfam}");
    auto trtype = attr_string(r, addr, ap, "trtype");
    if (trtype && *trtype != "tcp" && *trtype != "rdma")
        r.error(join(ap, "trtype"),
                "\"" + *trtype + "\" is not served by skiff; expected \"tcp\" or \"rdma\"");
    auto adrfam = attr_string(r, addr, ap, "adrfam");
    if (adrfam && *adrfam != "ipv4" && *adrfam != "ipv6")
        r.error(join(ap, "adrfam"), "\"" + *adrfam + "\" is not supported; expected \"ipv4\" or \"ipv6\"");
    auto traddr = attr_string(r, addr, ap, "traddr");
    if (!traddr)
        r.error(join(ap, "traddr"),
                "missing; expected an IPv4 or IPv6 address such as \"192.168.1.10\" or \"fd00::10\"");
    else
        check_traddr(r, adrfam, *traddr, join(ap, "traddr"));
    auto trsvcid = attr_number(r, addr, ap, "trsvcid");
    if (!trsvcid && !addr.contains("trsvcid"))
        r.error(join(ap, "trsvcid"), "missing; expected a port such as \"4420\"");
    l["trtype"] = trtype.value_or("tcp");
    // TLS: nvmet's addr_tsas "tls1.3" makes TREQ "required" unless addr_treq says "not required"
    // (then plain connections are served too). The keys are not in the file (nvmet finds them
    // in the kernel keyring): the hosts' tls_psk must be added to the imported configuration.
    auto tsas = attr_string(r, addr, ap, "tsas");
    auto treq = attr_string(r, addr, ap, "treq");
    if (tsas && *tsas == "tls1.3" && l["trtype"] == "tcp") {
        l["secure_channel"] = treq && *treq == "not required" ? "optional" : "required";
    } else if (tsas && l["trtype"] == "tcp" && *tsas != "none" && !tsas->empty()) {
        r.error(join(ap, "tsas"), "expected \"none\" or \"tls1.3\" for a tcp port, got \"" + *tsas + "\"");
    } else if (treq && *treq == "required") {
        r.warning(join(ap, "treq"), "secure channel \"required\" without addr.tsas \"tls1.3\" is not "
                                    "supported; the port is served without it");
    }
    l["addr"] = traddr.value_or("");
    l["port"] = trsvcid.value_or(0);
    if (port.contains("subsystems"))
        l["subsystems"] = port["subsystems"];
    else
        l["subsystems"] = json::array();
    const json param = port.value("param", json::object());
    if (auto icd = attr_number(r, param, join(p, "param"), "inline_data_size")) {
        if (!transport.contains("in_capsule_data_size"))
            transport["in_capsule_data_size"] = *icd;
        else if (transport["in_capsule_data_size"] != *icd)
            r.warning(join(join(p, "param"), "inline_data_size"),
                      "differs from an earlier port; skiff uses one value for every port (the first)");
    }
    if (auto pi = attr_number(r, param, join(p, "param"), "pi_enable"); pi && *pi)
        r.warning(join(join(p, "param"), "pi_enable"), "protection information is not supported; ignored");
    if (port.contains("referrals") && port["referrals"].is_array() && !port["referrals"].empty())
        r.warning(join(p, "referrals"), "discovery referrals are not supported; ignored");
    if (port.contains("ana_groups") && port["ana_groups"].is_array())
        for (size_t g = 0; g < port["ana_groups"].size(); ++g) {
            const json &grp = port["ana_groups"][g];
            if (!grp.is_object() || !grp.contains("ana") || !grp["ana"].is_object()) continue;
            // nvmet's state names are skiff's; the validator checks them and the group id.
            json state = grp["ana"].value("state", json("optimized"));
            if (state != "optimized")
                l["ana"].push_back({{"group", grp.value("grpid", json(0))}, {"state", state}});
        }
    return l;
}

json import_subsystem(JsonReader &r, const json &s, const std::string &p, json &backends) {
    json out = json::object();
    if (!s.is_object()) {
        r.error(p, "expected an object, got " + quote(s));
        return out;
    }
    if (auto nqn = attr_string(r, s, p, "nqn"))
        out["nqn"] = *nqn;
    else
        r.error(join(p, "nqn"), "missing; expected the subsystem NQN");
    const json attr = s.value("attr", json::object());
    const std::string tp = join(p, "attr");
    if (auto v = attr_number(r, attr, tp, "allow_any_host")) out["allow_any_host"] = *v != 0;
    if (auto v = attr_string(r, attr, tp, "serial")) out["serial"] = *v;
    if (auto v = attr_string(r, attr, tp, "model")) out["model"] = *v;
    if (auto v = attr_number(r, attr, tp, "cntlid_min")) out["cntlid_min"] = *v;
    if (auto v = attr_number(r, attr, tp, "cntlid_max")) out["cntlid_max"] = *v;
    if (auto v = attr_number(r, attr, tp, "pi_enable"); v && *v)
        r.warning(join(tp, "pi_enable"), "protection information is not supported; ignored");
    out["allowed_hosts"] = s.value("allowed_hosts", json::array());
    // nvmet ignores the host list while allow_any_host is set; skiff rejects the contradiction.
    if (out.value("allow_any_host", false) && !out["allowed_hosts"].empty()) {
        r.warning(join(p, "allowed_hosts"), "ignored by nvmet while attr.allow_any_host is \"1\"; dropped");
        out["allowed_hosts"] = json::array();
    }
    if (!out.contains("allow_any_host")) out["allow_any_host"] = out["allowed_hosts"].empty();
    out["namespaces"] = json::array();
    const json namespaces = s.value("namespaces", json::array());
    if (!namespaces.is_array()) { // size() and [n] below need an array (a string has size 1)
        r.error(join(p, "namespaces"), "expected an array of namespace objects, got " + quote(namespaces));
        return out;
    }
    for (size_t n = 0; n < namespaces.size(); ++n) {
        const json &ns = namespaces[n];
        const std::string np = index(join(p, "namespaces"), n);
        if (!ns.is_object()) {
            r.error(np, "expected an object, got " + quote(ns));
            continue;
        }
        auto nsid = attr_number(r, ns, np, "nsid");
        if (!nsid) r.error(join(np, "nsid"), "missing; expected the namespace id");
        if (auto en = attr_number(r, ns, np, "enable"); en && !*en) {
            r.warning(np, "disabled in nvmet (enable 0); not imported");
            continue;
        }
        const json device = ns.value("device", json::object());
        auto path = attr_string(r, device, join(np, "device"), "path");
        if (!path) {
            r.error(join(join(np, "device"), "path"),
                    "missing; expected the file or block device behind the namespace");
            continue;
        }
        std::string name = "ns" + std::to_string(nsid.value_or(0)) + "@" + out.value("nqn", std::string("?"));
        json backend = {{"name", name}, {"kind", "aio"}, {"path", *path}};
        if (auto b = attr_number(r, ns, np, "buffered_io"); b && *b) backend["buffered"] = true;
        backends.push_back(backend);
        json o = {{"nsid", nsid.value_or(0)}, {"backend", name}, {"block_size", device_block_size(*path)}};
        // nvmet writes all-zero ids for "not set".
        for (const char *key : {"uuid", "nguid"})
            if (auto id = attr_string(r, device, join(np, "device"), key);
                id && id->find_first_not_of("0-") != std::string::npos)
                o[key] = *id;
        if (auto g = attr_number(r, ns, np, "ana_grpid")) o["ana_group"] = *g;
        out["namespaces"].push_back(o);
    }
    return out;
}

// A host with DH-HMAC-CHAP secrets (dhchap_key, dhchap_ctrl_key, dhchap_hash "hmac(sha256)",
// dhchap_dhgroup "ffdhe2048"; directly in the host object or under "attr", as nvmetcli writes
// its configfs attributes) becomes a hosts[] entry; a host without a key needs none.
std::optional<json> import_host(JsonReader &r, const json &h, const std::string &p) {
    if (!h.is_object()) {
        r.error(p, "expected an object, got " + quote(h));
        return std::nullopt;
    }
    const json attr = h.value("attr", json::object());
    auto field = [&](const char *key) -> std::optional<std::string> {
        if (h.contains(key) && h[key].is_string() && !h[key].get<std::string>().empty())
            return h[key].get<std::string>();
        if (attr.is_object() && attr.contains(key) && attr[key].is_string() &&
            !attr[key].get<std::string>().empty())
            return attr[key].get<std::string>();
        return std::nullopt;
    };
    auto key = field("dhchap_key");
    if (!key) return std::nullopt;
    json out = {{"nqn", h.value("nqn", std::string())}, {"dhchap_key", *key}};
    if (auto v = field("dhchap_ctrl_key")) out["dhchap_ctrl_key"] = *v;
    if (auto v = field("dhchap_hash")) out["dhchap_hashes"] = json::array({*v});
    if (auto v = field("dhchap_dhgroup")) out["dhchap_dhgroups"] = json::array({*v});
    return out;
}

} // namespace

LoadResult import_nvmetcli(const json &doc) {
    JsonReader r;
    json skiff = {{"backends", json::array()},
                  {"subsystems", json::array()},
                  {"listeners", json::array()},
                  {"discovery", nullptr}};
    json transport = {{"trtype", "tcp"}};
    if (r.object(doc, "", {"hosts", "ports", "subsystems"})) {
        for (const char *key : {"hosts", "ports", "subsystems"})
            if (doc.contains(key)) r.array(doc[key], key, "objects");
        const json ports = doc.value("ports", json::array());
        const json subsystems = doc.value("subsystems", json::array());
        for (size_t i = 0; ports.is_array() && i < ports.size(); ++i)
            skiff["listeners"].push_back(import_port(r, ports[i], index("ports", i), transport));
        for (size_t i = 0; subsystems.is_array() && i < subsystems.size(); ++i)
            skiff["subsystems"].push_back(
                import_subsystem(r, subsystems[i], index("subsystems", i), skiff["backends"]));
        const json hosts = doc.value("hosts", json::array());
        for (size_t i = 0; hosts.is_array() && i < hosts.size(); ++i)
            if (auto h = import_host(r, hosts[i], index("hosts", i))) {
                if (!skiff.contains("hosts")) skiff["hosts"] = json::array();
                skiff["hosts"].push_back(*h);
            }
    }
    if (transport.size() > 1) skiff["transports"] = json::array({transport});
    LoadResult out;
    if (r.errors().empty()) {
        out = parse_config(skiff);
        for (auto &e : out.errors) e = "(imported as skiff config) " + e;
    }
    out.errors.insert(out.errors.begin(), r.errors().begin(), r.errors().end());
    out.warnings.insert(out.warnings.begin(), r.warnings().begin(), r.warnings().end());
    if (!out.errors.empty()) out.config.reset();
    return out;
}

LoadResult import_nvmetcli_file(const std::string &path) {
    std::ifstream in(path);
    if (!in) return LoadResult{std::nullopt, {path + ": cannot be read"}, {}};
    std::stringstream text;
    text << in.rdbuf();
    json doc = json::parse(text.str(), nullptr, false);
    if (doc.is_discarded()) return LoadResult{std::nullopt, {path + ": not valid JSON"}, {}};
    return import_nvmetcli(doc);
}

} // namespace skiff::config
