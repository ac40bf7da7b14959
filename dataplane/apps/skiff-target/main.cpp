// skiff-target: the NVMe-over-Fabrics target (the DPU-side process). Serves one subsystem with
// one namespace over NVMe/TCP, plus the discovery subsystem.
#include "skiff/core/log.hpp"
#include "skiff/dataplane/aio_device.hpp"
#include "skiff/dataplane/null_device.hpp"
#include "skiff/dataplane/hostmem_device.hpp"
#include "skiff/dataplane/ram_device.hpp"
#include "skiff/dataplane/size_text.hpp"
#include "skiff/dataplane/target_service.hpp"
#include "skiff/nvmeof/target/target.hpp"

#include <CLI/CLI.hpp>

#include <csignal>
#include <cstdio>
#include <string>

namespace {

using namespace skiff;
namespace tgt = skiff::nvmeof::target;

struct Options {
    std::vector<std::string> listen{"127.0.0.1:4420"};
    std::string discovery = "127.0.0.1:8009";
    std::string nqn = "nqn.2026-11.io.skiff:default";
    std::string transport = "tcp";
    std::string backend = "ram";
    std::string hostmem_channel = "/tmp/skiff-host.sock";
    std::string path;           // --backend aio
    bool buffered = false;      // --backend aio: page cache instead of O_DIRECT
    std::string size = "1GiB";
    uint32_t block_size = 512;
    std::string serial = "SKIFF0001";
    std::string model = "skiff RAM namespace";
    std::vector<std::string> allow_hosts;
    int cores = 1;
    int64_t idle_poll_us = 200;
    std::string log_level = "info";
};

int fail(const std::string &message) {
    std::fprintf(stderr, "skiff-target: %s\n", message.c_str());
    return 1;
}

} // namespace

int main(int argc, char **argv) {
    Options o;
    CLI::App app{
        "skiff-target: NVMe-over-Fabrics target (the DPU-side process).\n"
        "Serves one subsystem with one namespace over NVMe/TCP, and the discovery subsystem.\n"
        "With no arguments: a 1 GiB RAM namespace in nqn.2026-11.io.skiff:default on 127.0.0.1:4420,\n"
        "discovery on 127.0.0.1:8009. From a Linux host:\n"
        "  nvme discover -t tcp -a 127.0.0.1 -s 8009\n"
        "  nvme connect -t tcp -a 127.0.0.1 -s 4420 -n nqn.2026-11.io.skiff:default\n"
        "Stop with Ctrl-C (SIGINT) or SIGTERM."};
    app.add_option("--listen", o.listen, "NVMe/TCP I/O listener ADDR:PORT (repeatable)")
        ->capture_default_str();
    app.add_option("--discovery", o.discovery, "dedicated discovery listener ADDR:PORT, or \"none\"")
        ->capture_default_str();
    app.add_option("--nqn", o.nqn, "subsystem NQN")->capture_default_str();
    app.add_option("--transport", o.transport, "tcp, or rdma (RDMA-CM on the RDMA device that owns each --listen address, e.g. soft-RoCE rxe0)")->capture_default_str();
    app.add_option("--backend", o.backend,
                   "namespace storage: ram (in memory), null (reads zeroes, drops writes), aio (a file\n"
                   "or block device given by --path, through libaio) or hostmem (host memory exported by\n"
                   "skiff-host, moved with DMA; see --hostmem-channel)")
        ->capture_default_str();
    app.add_option("--hostmem-channel", o.hostmem_channel,
                   "hostmem: skiff-host's control channel (Unix socket path); skiff-host must export at\n"
                   "least --size bytes. Until it does, the namespace is ANA-inaccessible")
        ->capture_default_str();
    app.add_option("--path", o.path,
                   "--backend aio: the file or block device. With --size, a regular file is created or\n"
                   "extended to that size; without, the file's or device's size is used");
    app.add_flag("--buffered", o.buffered, "--backend aio: use the page cache instead of O_DIRECT");
    app.add_option("--size", o.size, "namespace size, e.g. 512MiB, 1GiB")->capture_default_str();
    app.add_option("--block-size", o.block_size, "logical block size: 512 or 4096")->capture_default_str();
    app.add_option("--serial", o.serial, "controller serial number (up to 20 characters)")
        ->capture_default_str();
    app.add_option("--model", o.model, "controller model (up to 40 characters)")->capture_default_str();
    app.add_option("--allow-host", o.allow_hosts,
                   "host NQN allowed to connect (repeatable; default: any host)");
    app.add_option("--cores", o.cores, "poll groups (threads serving connections)")->capture_default_str();
    app.add_option("--idle-poll-us", o.idle_poll_us,
                   "busy-poll this long (microseconds) after the last work, then sleep in epoll until "
                   "traffic returns (0: always sleep)")
        ->capture_default_str();
    app.add_option("--log-level", o.log_level, "trace|debug|info|warn|error|critical|off")
        ->capture_default_str();
    CLI11_PARSE(app, argc, argv);

    auto level = log::parse_level(o.log_level);
    if (!level)
        return fail("--log-level: unknown level \"" + o.log_level +
                    "\"; use trace, debug, info, warn, error");
    log::set_level(*level);
    auto logger = log::get("target");

    if (o.transport != "tcp" && o.transport != "rdma")
        return fail("--transport \"" + o.transport + "\": unknown; use tcp or rdma");
    if (o.block_size != 512 && o.block_size != 4096)
        return fail("--block-size " + std::to_string(o.block_size) + ": use 512 or 4096");
    uint64_t size = dataplane::parse_size(o.size);
    if (size == 0 || size % 4096)
        return fail("--size \"" + o.size +
                    "\": expected a non-zero multiple of 4 KiB such as 512MiB or 1GiB");
    if (o.cores < 1 || o.cores > 64) return fail("--cores " + std::to_string(o.cores) + ": use 1..64");
    if (o.idle_poll_us < 0 || o.idle_poll_us > 10000000)
        return fail("--idle-poll-us " + std::to_string(o.idle_poll_us) + ": use 0..10000000 (10 s)");
    if (o.serial.size() > 20) return fail("--serial: at most 20 characters");
    if (o.model.size() > 40) return fail("--model: at most 40 characters");

    std::shared_ptr<tgt::BlockDevice> device;
    if (o.backend == "ram") {
        auto ram = dataplane::RamDevice::create(size);
        if (!ram) return fail(ram.error().message);
        device = *ram;
    } else if (o.backend == "null") {
        device = std::make_shared<dataplane::NullDevice>(size);
    } else if (o.backend == "hostmem") {
        auto hm = dataplane::HostmemDevice::create({o.hostmem_channel, size, "03:00.0"});
        if (!hm) return fail("--backend hostmem: " + hm.error().message);
        device = *hm;
    } else if (o.backend == "aio") {
        if (o.path.empty()) return fail("--backend aio needs --path FILE (a regular file or a block device)");
        bool sized = app.count("--size") > 0;
        auto aio = dataplane::AioDevice::open({.path = o.path,
                                               .buffered = o.buffered,
                                               .size_bytes = sized ? size : 0,
                                               .create = sized});
        if (!aio) return fail(aio.error().message);
        if (o.block_size % (*aio)->min_block_size())
            return fail("--block-size " + std::to_string(o.block_size) + ": " + o.path + " needs a multiple of " +
                        std::to_string((*aio)->min_block_size()) + " bytes");
        device = *aio;
        size = device->size_bytes();
    } else {
        return fail("--backend \"" + o.backend + "\": unknown; use ram, null, aio or hostmem");
    }

    tgt::Target target;
    auto subsys = std::make_shared<tgt::Subsystem>(o.nqn, tgt::SubsystemKind::kNvm,
                                                   tgt::SubsystemIdentity{o.serial, o.model, "0.1"});
    if (!o.allow_hosts.empty()) {
        subsys->set_allow_any_host(false);
        for (auto &h : o.allow_hosts) {
            if (auto why = tgt::check_nqn(h); !why.empty()) return fail("--allow-host \"" + h + "\": " + why);
            subsys->allow_host(h);
        }
    }
    auto ns = std::make_shared<tgt::Namespace>(1, o.block_size, device, tgt::derive_namespace_ids(o.nqn, 1));
    if (auto st = subsys->add_namespace(ns); !st) return fail(st.error().message);
    if (auto st = target.add_subsystem(subsys); !st) return fail("--nqn: " + st.error().message);

    dataplane::ServiceOptions sopts;
    sopts.poll_groups = o.cores;
    sopts.poll.idle_poll_us = static_cast<uint32_t>(o.idle_poll_us);
    for (auto &l : o.listen) {
        auto addr = nvmeof::transport::parse_listen_address(l);
        if (!addr) return fail("--listen " + addr.error().message);
        addr->trtype = o.transport;
        sopts.listeners.push_back(*addr);
    }
    if (o.discovery != "none") {
        auto addr = nvmeof::transport::parse_listen_address(o.discovery);
        if (!addr) return fail("--discovery " + addr.error().message);
        addr->trtype = o.transport;
        sopts.discovery = *addr;
    }

    // Block the signals before any thread starts so only sigwait() below sees them.
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, nullptr);

    dataplane::TargetService service(target, sopts);
    if (auto st = service.start(); !st) return fail(st.error().message);
    logger->info("namespace 1: {} backend, {} bytes, {}-byte blocks; {} poll group(s)", device->kind(), size,
                 o.block_size, o.cores);

    int sig = 0;
    sigwait(&set, &sig);
    logger->info("signal {} received: shutting down", sig == SIGINT ? "SIGINT" : "SIGTERM");
    service.stop();
    return 0;
}
