// hostmem_copy_probe: counts the payload copies the target makes on the hostmem path over TCP.
//   hostmem_copy_probe CHANNEL COUNT
// Runs a target in this process (one poll group, NVMe/TCP on loopback, a hostmem namespace over
// the skiff-host already listening on CHANNEL, memfd memory so that the DMA engine's copy is a
// memcpy here) and an initiator of raw NVMe/TCP PDUs on the main thread. It replaces memcpy and
// memmove and logs every call of at least 512 bytes (payload, not headers) made by any thread but
// the initiator's; the kernel's socket copies are not seen. It does COUNT 4 KiB writes, then COUNT
// 4 KiB reads, one at a time, and sorts the logged bytes by where they went (a transport buffer is
// a registered buffer area, transport/buffer_areas.hpp):
//   from-buffer  out of a transport buffer to elsewhere (a write's DMA to host memory)
//   into-buffer  into a transport buffer from elsewhere (a read's DMA from host memory; on writes,
//                the TCP receive path moving payload that arrived with a header out of its
//                staging buffer: the transport's, whatever the backend)
//   other        neither end, or both, in a transport buffer (a bounce buffer: an extra copy)
// and prints
//   writes COUNT from-buffer BYTES into-buffer BYTES other BYTES
//   reads COUNT from-buffer BYTES into-buffer BYTES other BYTES
// Exit 1 when the target could not be set up or an I/O failed.
#include "../nvmeof/raw_tcp_client.hpp"

#include "skiff/dataplane/hostmem_device.hpp"
#include "skiff/dataplane/target_service.hpp"
#include "skiff/nvmeof/transport/buffer_areas.hpp"
#include "skiff/nvmeof/target/target.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

namespace {

const std::string kSubNqn = "nqn.2026-11.io.skiff:copy-probe";
const std::string kHostNqn = "nqn.2014-08.org.nvmexpress:uuid:0c8f2d2e-1a54-4f8a-9a55-3b1c7c9e0c0b";
constexpr size_t kPayloadMin = 512;
thread_local bool t_initiator = false;

// The log of counted copies: filled by the hooks (no lock, no allocation), sorted afterwards.
struct Copy {
    const void *dst;
    const void *src;
    size_t n;
};
constexpr size_t kLogSize = 1 << 16;
Copy g_log[kLogSize];
std::atomic<size_t> g_logged{0};

inline void note(void *dst, const void *src, size_t n) {
    if (n < kPayloadMin || t_initiator) return;
    size_t i = g_logged.fetch_add(1, std::memory_order_relaxed);
    if (i < kLogSize) g_log[i] = {dst, src, n};
}

} // namespace

// glibc's checked copies reach its own memcpy/memmove without going through these symbols; called
// through volatile pointers so that the compiler cannot turn them back into memcpy (this one).
extern "C" {
void *__memcpy_chk(void *dst, const void *src, size_t n, size_t dst_len);
void *__memmove_chk(void *dst, const void *src, size_t n, size_t dst_len);

void *memcpy(void *dst, const void *src, size_t n) {
    static void *(*volatile real)(void *, const void *, size_t, size_t) = __memcpy_chk;
    note(dst, src, n);
    return real(dst, src, n, n);
}
void *memmove(void *dst, const void *src, size_t n) {
    static void *(*volatile real)(void *, const void *, size_t, size_t) = __memmove_chk;
    note(dst, src, n);
    return real(dst, src, n, n);
}
}

using namespace skiff;
using namespace skiff::test;

namespace {

// Sorts the logged copies (see the top of the file) and clears the log.
std::string sorted_copies() {
    namespace areas = nvmeof::transport::buffer_areas;
    uint64_t from = 0, into = 0, other = 0;
    size_t n = std::min(g_logged.load(), kLogSize);
    for (size_t i = 0; i < n; ++i) {
        nvmeof::transport::BufferArea a;
        bool src_in = areas::find(g_log[i].src, g_log[i].n, a),
             dst_in = areas::find(g_log[i].dst, g_log[i].n, a);
        (src_in && !dst_in ? from : !src_in && dst_in ? into : other) += g_log[i].n;
    }
    if (g_logged.load() > kLogSize) other = ~uint64_t{0}; // overflowed: never a pass
    g_logged.store(0);
    return "from-buffer " + std::to_string(from) + " into-buffer " + std::to_string(into) + " other " +
           std::to_string(other);
}

} // namespace

int main(int argc, char **argv) {
    t_initiator = true;
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s CHANNEL COUNT\n", argv[0]);
        return 2;
    }
    const std::string channel = argv[1];
    const int count = std::atoi(argv[2]);
    setenv("SKIFF_SIDE", "dpu", 1);

    namespace tgt = nvmeof::target;
    dataplane::HostmemOptions options;
    options.channel = channel;
    options.size_bytes = 8ull << 20;
    auto dev = dataplane::HostmemDevice::create(options);
    if (!dev) {
        std::fprintf(stderr, "hostmem device: %s\n", dev.error().message.c_str());
        return 1;
    }
    for (int i = 0; i < 500 && !(*dev)->accessible(); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (!(*dev)->accessible()) {
        std::fprintf(stderr, "hostmem device: the host's export never arrived on %s\n", channel.c_str());
        return 1;
    }
    tgt::Target target;
    auto subsys = std::make_shared<tgt::Subsystem>(kSubNqn, tgt::SubsystemKind::kNvm);
    auto ns = std::make_shared<tgt::Namespace>(1, 512, *dev, tgt::derive_namespace_ids(kSubNqn, 1));
    if (!subsys->add_namespace(ns).ok() || !target.add_subsystem(subsys).ok()) return 1;
    dataplane::ServiceOptions opts;
    opts.listeners.push_back({"127.0.0.1", 0});
    opts.poll_groups = 1;
    dataplane::TargetService service(target, opts);
    if (auto st = service.start(); !st.ok()) {
        std::fprintf(stderr, "target: %s\n", st.error().message.c_str());
        return 1;
    }
    const uint16_t port = service.bound()[0].port;

    RawTcpClient admin(port);
    uint16_t cntlid = admin.bring_up_admin(kSubNqn, kHostNqn);
    RawTcpClient io(port);
    io.icreq();
    if (io.fabrics_connect(1, cntlid, kSubNqn, kHostNqn, 31).status != 0) return 1;

    std::vector<uint8_t> data(4096, 0xA5), got;
    auto run = [&](bool write) -> bool {
        for (int i = 0; i < count; ++i) {
            w::Sqe s{};
            s.opcode = write ? nvme_cmd_write : nvme_cmd_read;
            s.cid = static_cast<uint16_t>(i % 64 + 1);
            s.nsid = 1;
            uint64_t slba = static_cast<uint64_t>(i % 2048) * 8;
            s.cdw10 = static_cast<uint32_t>(slba);
            s.cdw11 = static_cast<uint32_t>(slba >> 32);
            s.cdw12 = 7; // 8 blocks of 512: 4 KiB
            if (write)
                io.send_command(s, data.data(), data.size());
            else
                io.send_command(s, nullptr, 0, 4096);
            if (io.wait_completion(s.cid, &got, data.data()).status != 0) return false;
        }
        return true;
    };
    // One I/O first, not counted: the first one registers the connection's buffer area.
    if (!run(true)) return 1;
    g_logged.store(0);
    if (!run(true)) return 1;
    const std::string writes = sorted_copies(); // sorted while the connection's areas exist
    if (!run(false)) return 1;
    const std::string reads = sorted_copies();
    std::printf("writes %d %s\nreads %d %s\n", count, writes.c_str(), count, reads.c_str());
    std::fflush(stdout);
    service.stop();
    return 0;
}
