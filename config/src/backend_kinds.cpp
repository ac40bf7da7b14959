#include "backend_kinds.hpp"

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
    out.settings = {{"path", file.value_or("")},
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
    out.settings = {{"channel", channel.value_or("")},
                    {"dpu_pci", pci.value_or("03:00.0")},
                    {"host_pci", host_pci.value_or("")}};
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
