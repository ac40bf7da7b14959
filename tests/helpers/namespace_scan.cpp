// namespace_scan: what a host's namespace rescan costs on a target, measured with skiff's
// initiator library the way the Linux host scans (drivers/nvme/host/core.c): the Identify active
// namespace list, page by page, then Identify Namespace and the namespace identification
// descriptors of every nsid it lists. bench/namespace-scale runs it against 1024 namespaces.
//
//   namespace_scan --port PORT --nqn NQN [--addr 127.0.0.1] [--rounds 3]
// Prints one JSON line: {"namespaces": N, "connect_ms": ..., "rescan_ms": [one per round]}.
// Exit 0 when every command succeeded.
#include "skiff/nvmeof/host/controller.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

using namespace skiff;
using namespace skiff::nvmeof;

namespace {

const char *kUsage =
    "usage: namespace_scan --port PORT --nqn NQN [--addr ADDR] [--rounds N]\n"
    "Connects to the NVMe/TCP target at ADDR:PORT (default 127.0.0.1), subsystem NQN, and times\n"
    "N rescans (default 3): the Identify active namespace list, then Identify Namespace and the\n"
    "identification descriptors of each namespace listed, as the Linux host does. Prints one JSON\n"
    "line with the namespace count, the connect time and each rescan's time in milliseconds.\n";

double ms_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// One rescan: the namespaces found, or an error.
Result<size_t> rescan(host::Controller &c) {
    std::vector<uint32_t> all;
    for (uint32_t after = 0;;) {
        auto page = c.active_namespaces(after);
        if (!page) return page.error();
        all.insert(all.end(), page->begin(), page->end());
        if (page->size() < 1024) break; // a full page may have more after it
        after = page->back();
    }
    for (uint32_t nsid : all) {
        if (auto id = c.identify_namespace(nsid); !id) return id.error();
        wire::Sqe sqe{};
        sqe.opcode = nvme_admin_identify;
        sqe.nsid = nsid;
        sqe.cdw10 = NVME_IDENTIFY_CNS_NS_DESC_LIST;
        uint8_t descriptors[4096];
        auto done = c.admin(sqe, host::DataDir::kControllerToHost, descriptors, sizeof(descriptors));
        if (!done) return done.error();
        if (!done->nvme_ok())
            return make_error(DOCA_ERROR_IO_FAILED,
                              "namespace " + std::to_string(nsid) + ": Identify descriptors failed");
    }
    return all.size();
}

} // namespace

int main(int argc, char **argv) {
    host::ConnectOptions o;
    o.subnqn.clear();
    int rounds = 3;
    for (int i = 1; i < argc; i += 2) { // option, value
        std::string a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : nullptr;
        if (a == "--help" || a == "-h") {
            std::fputs(kUsage, stdout);
            return 0;
        }
        if (!v) {
            std::fprintf(stderr, "namespace_scan: %s needs a value\n%s", a.c_str(), kUsage);
            return 2;
        }
        if (a == "--port")
            o.port = static_cast<uint16_t>(std::strtoul(v, nullptr, 10));
        else if (a == "--nqn")
            o.subnqn = v;
        else if (a == "--addr")
            o.addr = v;
        else if (a == "--rounds")
            rounds = std::atoi(v);
        else {
            std::fprintf(stderr, "namespace_scan: unknown option %s\n%s", a.c_str(), kUsage);
            return 2;
        }
    }
    if (o.subnqn.empty() || o.port == 0 || rounds < 1) {
        std::fputs(kUsage, stderr);
        return 2;
    }
    auto t0 = std::chrono::steady_clock::now();
    auto c = host::Controller::connect(o);
    if (!c) {
        std::fprintf(stderr, "namespace_scan: connect: %s\n", c.error().describe().c_str());
        return 1;
    }
    const double connect_ms = ms_since(t0);
    size_t found = 0;
    std::string times;
    for (int r = 0; r < rounds; ++r) {
        t0 = std::chrono::steady_clock::now();
        auto n = rescan(**c);
        if (!n) {
            std::fprintf(stderr, "namespace_scan: rescan: %s\n", n.error().describe().c_str());
            return 1;
        }
        found = *n;
        char buf[32];
        std::snprintf(buf, sizeof(buf), "%s%.2f", r ? ", " : "", ms_since(t0));
        times += buf;
    }
    std::printf("{\"namespaces\": %zu, \"connect_ms\": %.2f, \"rescan_ms\": [%s]}\n", found, connect_ms,
                times.c_str());
    (void)(*c)->shutdown();
    return 0;
}
