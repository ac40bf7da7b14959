#include "dev/topology.hpp"

#include "dev/pci_addr.hpp"

#include <skiff/core/log.hpp>

#include <nlohmann/json.hpp>

#include <arpa/inet.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace skiff::core::dev {

namespace {

using json = nlohmann::json;

constexpr CapMask host_function_caps = cap_bit(DevCap::dma_memcpy) | cap_bit(DevCap::mmap_export_pci);
constexpr CapMask dpu_pf_caps =
    cap_bit(DevCap::dma_memcpy) | cap_bit(DevCap::mmap_from_export_pci) | cap_bit(DevCap::dpa);
constexpr CapMask dpu_sf_caps = cap_bit(DevCap::dma_memcpy);

// A locally administered MAC derived from the PCI address, so that every function has a stable one.
std::array<uint8_t, 6> mac_for(const std::string &pci_addr, uint8_t salt) {
    unsigned bus = 0, device = 0, function = 0;
    std::sscanf(pci_addr.c_str() + 5, "%x:%x.%x", &bus, &device, &function);
    return {0x02,
            0x5c,
            salt,
            static_cast<uint8_t>(bus),
            static_cast<uint8_t>(device),
            static_cast<uint8_t>(function)};
}

DeviceDesc make_device(Side side, const std::string &name, const std::string &pci, doca_pci_func_type type,
                       const std::string &iface, CapMask caps) {
    DeviceDesc d;
    d.name = name;
    d.side = side;
    d.pci_addr = pci;
    d.func_type = type;
    d.iface_name = iface;
    d.vuid = std::string("SKIFF-") + side_name(side) + "-" + name;
    d.mac = mac_for(pci, side == Side::host ? 0x01 : 0x02);
    d.caps = caps;
    return d;
}

RepDesc make_rep(const std::string &name, const std::string &pci, doca_pci_func_type type) {
    return RepDesc{name, pci, type, RepKind::net, "SKIFF-rep-" + name, false};
}

std::optional<Side> parse_side(std::string_view s) {
    if (s == "host") return Side::host;
    if (s == "dpu") return Side::dpu;
    return std::nullopt;
}

std::optional<doca_pci_func_type> parse_func_type(std::string_view s) {
    if (s == "pf") return DOCA_PCI_FUNC_TYPE_PF;
    if (s == "vf") return DOCA_PCI_FUNC_TYPE_VF;
    if (s == "sf") return DOCA_PCI_FUNC_TYPE_SF;
    return std::nullopt;
}

std::optional<DevCap> parse_cap(std::string_view s) {
    if (s == "dma_memcpy") return DevCap::dma_memcpy;
    if (s == "mmap_export_pci") return DevCap::mmap_export_pci;
    if (s == "mmap_from_export_pci") return DevCap::mmap_from_export_pci;
    if (s == "rdma") return DevCap::rdma;
    if (s == "dpa") return DevCap::dpa;
    return std::nullopt;
}

std::optional<std::array<uint8_t, 6>> parse_mac(const std::string &text) {
    std::array<unsigned, 6> v{};
    char tail = 0;
    if (std::sscanf(text.c_str(), "%2x:%2x:%2x:%2x:%2x:%2x%c", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
                    &tail) != 6)
        return std::nullopt;
    std::array<uint8_t, 6> out{};
    for (size_t i = 0; i < 6; ++i) out[i] = static_cast<uint8_t>(v[i]);
    return out;
}

std::optional<std::array<uint8_t, 4>> parse_ipv4(const std::string &text) {
    std::array<uint8_t, 4> out{};
    if (inet_pton(AF_INET, text.c_str(), out.data()) != 1) return std::nullopt;
    return out;
}

Error bad(const std::string &origin, const std::string &what) {
    return make_error(DOCA_ERROR_INVALID_VALUE, "topology " + origin + ": " + what);
}

// Parses "pci", "type", "vuid" common to devices and representors. Returns an error message or "".
std::string parse_function_fields(const json &j, const std::string &where, std::string &pci,
                                  doca_pci_func_type &type) {
    if (!j.contains("name") || !j["name"].is_string()) return where + " needs a string \"name\"";
    if (!j.contains("pci") || !j["pci"].is_string())
        return where + " needs a string \"pci\" such as \"0000:0b:00.0\"";
    auto norm = normalize_pci_addr(j["pci"].get<std::string>());
    if (!norm)
        return where + " has pci \"" + j["pci"].get<std::string>() +
               "\"; expected \"dddd:bb:dd.f\" or \"bb:dd.f\" in hex";
    pci = *norm;
    std::string type_text = j.value("type", std::string("pf"));
    auto t = parse_func_type(type_text);
    if (!t) return where + " has type \"" + type_text + "\"; expected \"pf\", \"vf\" or \"sf\"";
    type = *t;
    return "";
}

Result<std::vector<RepDesc>> parse_reps(const json &arr, const std::string &where,
                                        const std::string &origin) {
    std::vector<RepDesc> reps;
    if (!arr.is_array()) return bad(origin, where + " \"representors\" must be an array");
    for (const auto &r : arr) {
        std::string rwhere = where + " representor #" + std::to_string(reps.size());
        if (!r.is_object()) return bad(origin, rwhere + " must be an object");
        RepDesc rep;
        if (auto err = parse_function_fields(r, rwhere, rep.pci_addr, rep.func_type); !err.empty())
            return bad(origin, err);
        rep.name = r["name"].get<std::string>();
        rep.vuid = r.value("vuid", "SKIFF-rep-" + rep.name);
        std::string kind = r.value("kind", std::string("net"));
        if (kind == "net")
            rep.kind = RepKind::net;
        else if (kind == "emulated")
            rep.kind = RepKind::emulated;
        else
            return bad(origin, rwhere + " has kind \"" + kind + "\"; expected \"net\" or \"emulated\"");
        rep.hotplug = r.value("hotplug", false);
        reps.push_back(std::move(rep));
    }
    return reps;
}

Result<DeviceDesc> parse_device(const json &j, Side side, size_t index, const std::string &origin) {
    std::string where = std::string(side_name(side)) + " device #" + std::to_string(index);
    if (!j.is_object()) return bad(origin, where + " must be an object");
    std::string pci;
    doca_pci_func_type type{};
    if (auto err = parse_function_fields(j, where, pci, type); !err.empty()) return bad(origin, err);
    std::string name = j["name"].get<std::string>();
    where += " (" + name + ")";
    CapMask caps =
        side == Side::host ? host_function_caps : (type == DOCA_PCI_FUNC_TYPE_SF ? dpu_sf_caps : dpu_pf_caps);
    if (j.contains("caps")) {
        if (!j["caps"].is_array()) return bad(origin, where + " \"caps\" must be an array of names");
        caps = 0;
        for (const auto &c : j["caps"]) {
            auto cap = c.is_string() ? parse_cap(c.get<std::string>()) : std::nullopt;
            if (!cap)
                return bad(origin,
                           where + " has unknown cap " + c.dump() +
                               "; expected dma_memcpy, mmap_export_pci, mmap_from_export_pci, rdma or dpa");
            caps |= cap_bit(*cap);
        }
    }
    DeviceDesc d = make_device(side, name, pci, type, j.value("iface", name), caps);
    d.vuid = j.value("vuid", d.vuid);
    if (j.contains("sf_index")) {
        if (type != DOCA_PCI_FUNC_TYPE_SF)
            return bad(origin, where + ": only an SF (\"type\": \"sf\") has an sf_index");
        if (!j["sf_index"].is_number_unsigned() || j["sf_index"].get<uint64_t>() > UINT32_MAX)
            return bad(origin,
                       where + " has sf_index " + j["sf_index"].dump() + "; expected a number 0..4294967295");
        d.sf_index = j["sf_index"].get<uint32_t>();
    }
    if (j.contains("mac")) {
        auto mac = j["mac"].is_string() ? parse_mac(j["mac"].get<std::string>()) : std::nullopt;
        if (!mac)
            return bad(origin, where + " has mac " + j["mac"].dump() + "; expected \"aa:bb:cc:dd:ee:ff\"");
        d.mac = mac;
    }
    if (j.contains("ipv4")) {
        auto ip = j["ipv4"].is_string() ? parse_ipv4(j["ipv4"].get<std::string>()) : std::nullopt;
        if (!ip) return bad(origin, where + " has ipv4 " + j["ipv4"].dump() + "; expected \"a.b.c.d\"");
        d.ipv4 = ip;
    }
    if (j.contains("ibdev")) {
        // The rdma-core device this function's RDMA runs on (as an SF on a BlueField is its own
        // mlx5_N): doca_rdma contexts on the function open that device's verbs.
        if (!j["ibdev"].is_string() || j["ibdev"].get<std::string>().empty())
            return bad(origin, where + " has ibdev " + j["ibdev"].dump() +
                                   "; expected the name of an rdma-core device such as \"rxe0\"");
        d.ibdev_name = j["ibdev"].get<std::string>();
    }
    if (j.contains("representors")) {
        if (side == Side::host) return bad(origin, where + ": only DPU-side devices have representors");
        auto reps = parse_reps(j["representors"], where, origin);
        if (!reps) return reps.error();
        d.reps = std::move(reps.value());
    }
    return d;
}

Result<std::vector<DeviceDesc>> parse_side_list(const json &doc, Side side, const std::string &origin) {
    std::vector<DeviceDesc> out;
    const char *key = side_name(side);
    if (!doc.contains(key)) return out;
    if (!doc[key].is_array()) return bad(origin, std::string("\"") + key + "\" must be an array of devices");
    for (const auto &j : doc[key]) {
        auto d = parse_device(j, side, out.size(), origin);
        if (!d) return d.error();
        out.push_back(std::move(d.value()));
    }
    return out;
}

} // namespace

const char *side_name(Side side) {
    return side == Side::host ? "host" : "dpu";
}

Topology default_topology() {
    Topology t;
    t.side = Side::dpu;
    const auto PF = DOCA_PCI_FUNC_TYPE_PF, VF = DOCA_PCI_FUNC_TYPE_VF, SF = DOCA_PCI_FUNC_TYPE_SF;
    t.host = {
        make_device(Side::host, "pf0", "0000:0b:00.0", PF, "ens1f0", host_function_caps),
        make_device(Side::host, "pf0vf0", "0000:0b:00.2", VF, "ens1f0v0", host_function_caps),
        make_device(Side::host, "pf0vf1", "0000:0b:00.3", VF, "ens1f0v1", host_function_caps),
        make_device(Side::host, "pf1", "0000:0b:00.1", PF, "ens1f1", host_function_caps),
        make_device(Side::host, "pf1vf0", "0000:0b:00.4", VF, "ens1f1v0", host_function_caps),
    };
    DeviceDesc p0 = make_device(Side::dpu, "p0", "0000:03:00.0", PF, "p0", dpu_pf_caps);
    p0.reps = {make_rep("hpf0", "0000:0b:00.0", PF), make_rep("hpf0vf0", "0000:0b:00.2", VF),
               make_rep("hpf0vf1", "0000:0b:00.3", VF), make_rep("pf0sf0", "0000:03:00.0", SF)};
    DeviceDesc p1 = make_device(Side::dpu, "p1", "0000:03:00.1", PF, "p1", dpu_pf_caps);
    p1.reps = {make_rep("hpf1", "0000:0b:00.1", PF), make_rep("hpf1vf0", "0000:0b:00.4", VF),
               make_rep("pf1sf0", "0000:03:00.1", SF)};
    // Local SFs are auxiliary functions of their parent PF and report the parent's PCI address.
    t.dpu = {std::move(p0), std::move(p1),
             make_device(Side::dpu, "p0s0", "0000:03:00.0", SF, "en3f0pf0sf0", dpu_sf_caps),
             make_device(Side::dpu, "p1s0", "0000:03:00.1", SF, "en3f1pf1sf0", dpu_sf_caps)};
    return t;
}

Result<Topology> parse_topology(const std::string &json_text, const std::string &origin) {
    json doc = json::parse(json_text, nullptr, /*allow_exceptions=*/false, /*ignore_comments=*/true);
    if (doc.is_discarded()) return bad(origin, "is not valid JSON");
    if (!doc.is_object()) return bad(origin, "must be a JSON object with \"side\", \"host\" and \"dpu\"");
    Topology t;
    std::string side_text = doc.value("side", std::string("dpu"));
    auto side = parse_side(side_text);
    if (!side) return bad(origin, "has side \"" + side_text + "\"; expected \"host\" or \"dpu\"");
    t.side = *side;
    auto host = parse_side_list(doc, Side::host, origin);
    if (!host) return host.error();
    auto dpu = parse_side_list(doc, Side::dpu, origin);
    if (!dpu) return dpu.error();
    t.host = std::move(host.value());
    t.dpu = std::move(dpu.value());
    return t;
}

Result<Topology> load_topology() {
    Topology t;
    const char *path = std::getenv("SKIFF_TOPOLOGY");
    if (path != nullptr && *path != '\0') {
        std::ifstream in(path);
        if (!in)
            return make_error(DOCA_ERROR_INVALID_VALUE,
                              std::string("topology file ") + path +
                                  " (from SKIFF_TOPOLOGY) cannot be read: " + std::strerror(errno));
        std::stringstream text;
        text << in.rdbuf();
        auto parsed = parse_topology(text.str(), path);
        if (!parsed) return parsed.error();
        t = std::move(parsed.value());
    } else {
        t = default_topology();
    }
    if (const char *side = std::getenv("SKIFF_SIDE"); side != nullptr && *side != '\0') {
        auto s = parse_side(side);
        if (!s)
            return make_error(DOCA_ERROR_INVALID_VALUE, std::string("SKIFF_SIDE=") + side +
                                                            " is not a side; expected \"host\" or \"dpu\"");
        t.side = *s;
    }
    return t;
}

} // namespace skiff::core::dev
