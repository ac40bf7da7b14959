#include "backend_kinds.hpp"

#include "skiff/config/units.hpp"

#include <cstdlib>

namespace skiff::config::detail {
namespace {

constexpr uint64_t kMaxMemorySize = uint64_t(1) << 40; // 1 TiB
constexpr uint64_t kMaxDeviceSize = uint64_t(1) << 50; // 1 PiB

void read_memory_size(JsonReader &r, const json &in, const std::string &path, BackendConfig &out) {
    if (auto size = r.size(in, path, "size", 4096, kMaxMemorySize, true)) {
        if (*size % 4096)
            r.error(join(path, "size"), "expected a multiple of 4KiB, got " + quote(in["size"]));
        else
            out.size_bytes = *size;
    }
}

// A regular file or block device through libaio (the aio backend's options, AioOptions).
void read_aio(JsonReader &r, const json &in, const std::string &path, BackendConfig &out) {
    auto file = r.string(in, path, "path", true, "/var/lib/skiff/disk0.img");
    if (file && (file->empty() || (*file)[0] != '/'))
        r.error(join(path, "path"), "expected an absolute path, got " + quote(in["path"]));
    auto size = r.size(in, path, "size", 4096, kMaxDeviceSize, false);
    if (size && *size % 4096)
        r.error(join(path, "size"), "expected a multiple of 4KiB, got " + quote(in["size"]));
    auto buffered = r.boolean(in, path, "buffered");
    auto depth = r.integer(in, path, "queue_depth", 1, 4096, false);
    auto create = r.boolean(in, path, "create");
    if (create.value_or(false) && !size)
        r.error(join(path, "size"), "missing; \"create\": true needs the size of the file to create");
    out.size_bytes = size.value_or(0);
    out.settings.json() = {{"path", file.value_or("")},
                           {"buffered", buffered.value_or(false)},
                           {"queue_depth", depth.value_or(128)},
                           {"create", create.value_or(false)}};
}

// Host memory that skiff-host exports (the hostmem backend's options, HostmemOptions).
void read_hostmem(JsonReader &r, const json &in, const std::string &path, BackendConfig &out) {
    // The channel is a DOCA Comch server name (skiff-host --channel): 1 to 119 bytes.
    auto channel = r.string(in, path, "channel", true, "skiff-host");
    if (channel && (channel->empty() || channel->size() > 119))
        r.error(join(path, "channel"),
                "expected the comch channel name skiff-host --channel uses (1 to 119 characters), got " +
                    quote(in["channel"]));
    read_memory_size(r, in, path, out);
    auto pci = r.string(in, path, "dpu_pci", false, "03:00.0");
    auto host_pci = r.string(in, path, "host_pci", false, "0b:00.0");
    out.settings.json() = {{"channel", channel.value_or("")},
                           {"dpu_pci", pci.value_or("03:00.0")},
                           {"host_pci", host_pci.value_or("")}};
}

// A Ceph RBD image through librados/librbd (the rbd backend's options, RbdOptions).
void read_rbd(JsonReader &r, const json &in, const std::string &path, BackendConfig &out) {
    auto pool = r.string(in, path, "pool", true, "rbd");
    auto image = r.string(in, path, "image", true, "disk0");
    for (auto [key, v] : {std::pair{"pool", &pool}, std::pair{"image", &image}})
        if (*v &&
            ((*v)->empty() || (*v)->find('/') != std::string::npos || (*v)->find('@') != std::string::npos))
            r.error(join(path, key), std::string("expected a ") + key +
                                         " name (not empty, no '/' or '@'), got " + quote(in[key]));
    auto ns = r.string(in, path, "namespace", false, "tenant1");
    auto conf = r.string(in, path, "ceph_conf", false, "/etc/ceph/ceph.conf");
    if (conf && (conf->empty() || (*conf)[0] != '/'))
        r.error(join(path, "ceph_conf"),
                "expected an absolute path to a ceph.conf, got " + quote(in["ceph_conf"]));
    auto client = r.string(in, path, "client", false, "client.admin");
    if (client && (client->empty() || *client == "client."))
        r.error(join(path, "client"),
                "expected a client name such as \"client.admin\" or an id such as \"admin\", got " +
                    quote(in["client"]));
    auto keyring = r.string(in, path, "keyring", false, "/etc/ceph/ceph.client.admin.keyring");
    if (keyring && !keyring->empty() && (*keyring)[0] != '/')
        r.error(join(path, "keyring"), "expected an absolute path to a keyring, got " + quote(in["keyring"]));
    auto size = r.size(in, path, "size", 4096, kMaxDeviceSize, false);
    if (size && *size % 4096)
        r.error(join(path, "size"), "expected a multiple of 4KiB, got " + quote(in["size"]));
    auto depth = r.integer(in, path, "queue_depth", 1, 4096, false);
    auto connect_timeout = r.integer(in, path, "connect_timeout_s", 1, 300, false);
    auto op_timeout = r.integer(in, path, "op_timeout_s", 1, 300, false);
    out.size_bytes = size.value_or(0);
    out.settings.json() = {{"pool", pool.value_or("")},
                           {"image", image.value_or("")},
                           {"namespace", ns.value_or("")},
                           {"ceph_conf", conf.value_or("/etc/ceph/ceph.conf")},
                           {"client", client.value_or("client.admin")},
                           {"keyring", keyring.value_or("")},
                           {"queue_depth", depth.value_or(128)},
                           {"connect_timeout_s", connect_timeout.value_or(10)},
                           {"op_timeout_s", op_timeout.value_or(10)}};
}

// An NVMe status as nvme-cli prints it: Status Code Type in bits 10:8, Status Code in 7:0
// (0x281 Unrecovered Read Error, 0x280 Write Fault); an integer or a "0x..." string. Absent: 0.
std::optional<uint64_t> read_status(JsonReader &r, const json &in, const std::string &path) {
    auto it = in.find("status");
    if (it == in.end()) return 0;
    std::optional<uint64_t> v;
    if (it->is_number_unsigned()) v = it->get<uint64_t>();
    if (it->is_string()) {
        const std::string &t = it->get_ref<const std::string &>();
        char *end = nullptr;
        unsigned long long n = std::strtoull(t.c_str(), &end, 0);
        if (!t.empty() && *end == 0) v = n;
    }
    if (!v || *v == 0 || *v > 0x7FF) {
        r.error(join(path, "status"), "expected a non-zero NVMe status, Status Code Type in bits 10:8 and "
                                      "Status Code in 7:0 (such as \"0x281\", \"0x280\", \"0x6\"), got " +
                                          quote(*it));
        return std::nullopt;
    }
    return v;
}

void read_base(JsonReader &r, const json &in, const std::string &path, BackendConfig &out);

// Failures armed when the backend is created: {"read": {"count": 3, "status": "0x281"}, ...}.
json read_inject(JsonReader &r, const json &in, const std::string &path) {
    json out = json::object();
    if (!in.contains("inject")) return out;
    const std::string p = join(path, "inject");
    if (!r.object(in["inject"], p, {"read", "write", "flush"})) return out;
    for (const char *op : {"read", "write", "flush"}) {
        if (!in["inject"].contains(op)) continue;
        const json &e = in["inject"][op];
        const std::string ep = join(p, op);
        if (!r.object(e, ep, {"count", "status", "dnr", "delay_us"})) continue;
        auto count = r.integer(e, ep, "count", 1, 0xFFFFFFFF, true);
        auto status = read_status(r, e, ep);
        auto dnr = r.boolean(e, ep, "dnr");
        auto delay = e.contains("delay_us") ? r.integer(e, ep, "delay_us", 0, 60000000, false)
                                            : std::optional<uint64_t>(0);
        if (status && delay && *status == 0 && *delay == 0)
            r.error(ep, "expected a \"status\" to fail with, a \"delay_us\" to wait, or both");
        else if (count && status && delay) {
            // Only what is set, so a saved configuration reads back the same.
            json entry = {{"count", *count}, {"dnr", dnr.value_or(false)}};
            if (*status) entry["status"] = *status;
            if (*delay) entry["delay_us"] = *delay;
            out[op] = entry;
        }
    }
    return out;
}

// Another backend with failures injected in front of it (SPDK's error bdev): the base is a
// backend object without a name, of any other kind.
void read_error(JsonReader &r, const json &in, const std::string &path, BackendConfig &out) {
    const std::string bp = join(path, "base");
    if (!in.contains("base") || !in["base"].is_object()) {
        r.error(bp, std::string(in.contains("base") ? "expected" : "missing; expected") +
                        " the backend the errors are injected into, such as {\"kind\": \"ram\", \"size\": "
                        "\"64MiB\"}");
        return;
    }
    BackendConfig base;
    read_base(r, in["base"], bp, base);
    json inject = read_inject(r, in, path);
    if (base.kind.empty()) return;
    // `size` is optional here (saved configurations carry it): the base's, if given.
    if (in.contains("size")) {
        auto size = r.size(in, path, "size", 4096, kMaxDeviceSize, false);
        if (size && *size != base.size_bytes)
            r.error(join(path, "size"), "expected the size of the base (" +
                                            (base.size_bytes ? format_size(base.size_bytes) : "not given") +
                                            ") or no size, got " + quote(in["size"]));
    }
    json b = {{"kind", base.kind}};
    if (base.size_bytes) b["size"] = format_size(base.size_bytes);
    for (auto it = base.settings.json().begin(); it != base.settings.json().end(); ++it)
        b[it.key()] = it.value();
    out.size_bytes = base.size_bytes;
    out.settings.json() = {{"base", b}, {"inject", inject}};
}

void read_base(JsonReader &r, const json &in, const std::string &path, BackendConfig &out) {
    auto kind_name = r.string(in, path, "kind", true, "ram");
    if (!kind_name) return;
    const BackendKind *kind = find_backend_kind(*kind_name);
    if (!kind || *kind_name == "error") {
        std::string names;
        for (const BackendKind &k : backend_kinds())
            if (std::string(k.name) != "error") names += (names.empty() ? "" : ", ") + std::string(k.name);
        r.error(join(path, "kind"), "expected the kind of the backend underneath, one of " + names +
                                        "; got " + quote(in["kind"]));
        return;
    }
    std::vector<const char *> allowed = {"kind"};
    allowed.insert(allowed.end(), kind->fields.begin(), kind->fields.end());
    r.object(in, path, allowed);
    out.kind = kind->name;
    kind->read(r, in, path, out);
}

} // namespace

const std::vector<BackendKind> &backend_kinds() {
    static const std::vector<BackendKind> kinds = {
        {"ram", "in memory, lost when the target stops", {"size"}, read_memory_size},
        {"null", "reads zeroes, drops writes (for measuring the transport)", {"size"}, read_memory_size},
        {"aio",
         "a regular file or block device through libaio (O_DIRECT unless buffered)",
         {"path", "size", "buffered", "queue_depth", "create"},
         read_aio},
        {"hostmem",
         "host memory exported by skiff-host, moved with DMA (ANA-inaccessible while the host is away)",
         {"channel", "size", "dpu_pci", "host_pci"},
         read_hostmem},
        {"rbd",
         "a Ceph RBD image through librados/librbd (ANA-inaccessible while the cluster cannot be reached)",
         {"pool", "image", "namespace", "ceph_conf", "client", "keyring", "size", "queue_depth",
          "connect_timeout_s", "op_timeout_s"},
         read_rbd},
        {"error",
         "another backend with failures injected (the next N reads / writes / flushes fail with a chosen "
         "NVMe status; live through skiff-ctl error-inject)",
         {"base", "inject", "size"},
         read_error},
    };
    return kinds;
}

const BackendKind *find_backend_kind(const std::string &name) {
    for (const BackendKind &k : backend_kinds())
        if (name == k.name) return &k;
    return nullptr;
}

std::string backend_kind_names() {
    std::string out;
    for (const BackendKind &k : backend_kinds()) out += (out.empty() ? "" : ", ") + std::string(k.name);
    return out;
}

} // namespace skiff::config::detail
