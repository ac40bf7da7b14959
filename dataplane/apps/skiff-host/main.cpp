// skiff-host: the host-side agent of the hostmem backend. Allocates a memory region, registers it
// in a doca_mmap on a host PCI function with PCI read-write permission, exports it with
// doca_mmap_export_pci and hands the descriptor to skiff-target (on the DPU) over a DOCA Comch
// channel (skiff-host is the comch client on the host function, the target the server on its DPU
// PF). It stays connected; SIGTERM or SIGINT revokes the export (the target sees it at once: its
// namespace turns ANA-inaccessible) and exits.
#include "skiff/core/device.hpp"
#include "skiff/core/log.hpp"
#include "skiff/core/man_page.hpp"
#include "skiff/dataplane/hostmem/control_channel.hpp"
#include "skiff/dataplane/service_notify.hpp"
#include "skiff/dataplane/size_text.hpp"

#include <doca_dev.h>
#include <doca_mmap.h>

#include <CLI/CLI.hpp>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <unistd.h>

namespace {

using namespace skiff;
namespace hm = skiff::dataplane::hostmem;

struct Options {
    std::string channel = "skiff-host";
    std::string size = "64MiB";
    std::string memory = "memfd";
    std::string file;
    std::string pci = "0b:00.0";
    std::string test_region_file;
    std::string log_level = "info";
};

int fail(const std::string &message) {
    std::fprintf(stderr, "skiff-host: %s\n", message.c_str());
    return 1;
}

// The region the host lends to the target.
struct Region {
    uint8_t *base = nullptr;
    size_t len = 0;
};

// A memfd (hugetlb-backed for hugepages) mapped shared. The fd stays open for the process's life:
// the export finds the file through it and the target maps the same pages (one memcpy per DMA
// instead of a system call).
Result<Region> allocate_memfd(const Options &o, size_t len) {
    bool huge = o.memory == "hugepages";
    int fd = memfd_create("skiff-host-region", MFD_CLOEXEC | (huge ? MFD_HUGETLB : 0));
    if (fd < 0 || ftruncate(fd, static_cast<off_t>(len)) != 0) {
        int e = errno;
        if (fd >= 0) close(fd);
        return make_error(DOCA_ERROR_NO_MEMORY,
                          "--memory " + o.memory + ": cannot create a " + std::to_string(len) +
                              "-byte memfd: " + std::strerror(e) +
                              (huge
                                   ? " (are hugepages reserved in /proc/sys/vm/nr_hugepages, and is --size a "
                                     "multiple of the huge page size?)"
                                   : ""));
    }
    // The region is storage lent to the target, so it is committed now, as a DMA-registered
    // region is pinned on real hardware: fallocate gives every page its backing (a later shortage
    // cannot turn into SIGBUS in either process) and MAP_POPULATE maps it here. The target maps
    // the same pages populated too, so no I/O takes a page fault on first touch.
    if (!huge && fallocate(fd, 0, 0, static_cast<off_t>(len)) != 0) {
        int e = errno;
        close(fd);
        return make_error(DOCA_ERROR_NO_MEMORY, "--memory memfd: cannot commit " + std::to_string(len) +
                                                    " bytes: " + std::strerror(e));
    }
    void *p = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
    if (p == MAP_FAILED) {
        int e = errno;
        close(fd);
        return make_error(DOCA_ERROR_NO_MEMORY, "--memory " + o.memory + ": cannot map " +
                                                    std::to_string(len) + " bytes: " + std::strerror(e));
    }
    return Region{static_cast<uint8_t *>(p), len}; // fd deliberately kept open (see above)
}

Result<Region> allocate(const Options &o, size_t len) {
    void *p = MAP_FAILED;
    if (o.memory == "memfd" || o.memory == "hugepages") return allocate_memfd(o, len);
    if (o.memory == "anon") {
        p = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p == MAP_FAILED)
            return make_error(DOCA_ERROR_NO_MEMORY, "--memory anon: cannot map " + std::to_string(len) +
                                                        " bytes: " + std::strerror(errno));
    } else if (o.memory == "file") {
        if (o.file.empty()) return make_error(DOCA_ERROR_INVALID_VALUE, "--memory file needs --file PATH");
        int fd = open(o.file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
        if (fd < 0 || ftruncate(fd, static_cast<off_t>(len)) != 0) {
            int e = errno;
            if (fd >= 0) close(fd);
            return make_error(DOCA_ERROR_OPERATING_SYSTEM, "--file " + o.file + ": " + std::strerror(e));
        }
        p = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        close(fd); // the export reopens the file by its path
        if (p == MAP_FAILED)
            return make_error(DOCA_ERROR_NO_MEMORY,
                              "--file " + o.file + ": cannot map: " + std::strerror(errno));
    } else {
        return make_error(DOCA_ERROR_INVALID_VALUE,
                          "--memory \"" + o.memory + "\": use memfd, anon, hugepages or file");
    }
    return Region{static_cast<uint8_t *>(p), len};
}

// The export: an mmap over the region on the host function, PCI read-write.
struct Export {
    doca_mmap *mmap = nullptr;
    std::vector<uint8_t> descriptor;
};

Result<Export> export_region(doca_dev *dev, const Region &r) {
    Export e;
    if (auto st = check(doca_mmap_create(&e.mmap), "doca_mmap_create"); !st) return st.error();
    Status st = check(doca_mmap_set_memrange(e.mmap, r.base, r.len), "doca_mmap_set_memrange");
    if (st)
        st = check(doca_mmap_set_permissions(e.mmap, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE |
                                                         DOCA_ACCESS_FLAG_PCI_READ_WRITE),
                   "doca_mmap_set_permissions");
    if (st) st = check(doca_mmap_add_dev(e.mmap, dev), "doca_mmap_add_dev");
    if (st) st = check(doca_mmap_start(e.mmap), "doca_mmap_start");
    const void *desc = nullptr;
    size_t desc_len = 0;
    if (st) st = check(doca_mmap_export_pci(e.mmap, dev, &desc, &desc_len), "doca_mmap_export_pci");
    if (!st) {
        doca_mmap_destroy(e.mmap);
        return st.error();
    }
    auto *d = static_cast<const uint8_t *>(desc);
    e.descriptor.assign(d, d + desc_len);
    return e;
}

// For tests: "<pid> <address> <length>" of the region, written once the export is made, so a test
// can read the bytes straight out of this process's memory (/proc/<pid>/mem).
Status write_region_file(const std::string &path, const Region &r) {
    std::string tmp = path + ".tmp";
    FILE *f = std::fopen(tmp.c_str(), "w");
    if (f == nullptr) return make_error(DOCA_ERROR_OPERATING_SYSTEM, tmp + ": " + std::strerror(errno));
    std::fprintf(f, "%d %ju %zu\n", getpid(), static_cast<uintmax_t>(reinterpret_cast<uintptr_t>(r.base)),
                 r.len);
    std::fclose(f);
    if (std::rename(tmp.c_str(), path.c_str()) != 0)
        return make_error(DOCA_ERROR_OPERATING_SYSTEM, path + ": " + std::strerror(errno));
    return Status::success();
}

cli::ManPage man_page() {
    cli::ManPage m;
    m.name = "skiff-host - lends host memory to skiff-target (the hostmem backend)";
    m.synopsis =
        "skiff-host [--channel NAME] [--size SIZE] [--memory anon|hugepages|file [--file PATH]] [OPTIONS]";
    m.description =
        "skiff-host runs on the host, next to the BlueField. It allocates --size bytes, registers them\n"
        "in a DOCA mmap on a host PCI function (--pci) with PCI read-write access, exports the mmap\n"
        "over PCI and hands the export descriptor to skiff-target on a control channel: DOCA Comch,\n"
        "where skiff-target (the DPU side) is the server and skiff-host the client on the host\n"
        "function; --channel is the channel's name, the same on both sides. skiff-target, with a\n"
        "hostmem backend naming the same channel, imports the export and serves it as a namespace,\n"
        "moving the data with DMA. Either side may start first: skiff-host waits for the target and\n"
        "sends the export again whenever the target (re)appears.\n"
        "\n"
        "SIGTERM or Ctrl-C revokes the export: the target's namespace turns ANA-inaccessible at\n"
        "once, and comes back when skiff-host runs again. Under systemd (skiff-host.service,\n"
        "Type=notify) it reports READY=1 once the export is made.\n"
        "\n"
        "Until the DOCA hardware libraries are linked in, the PCI export is emulated: skiff-target\n"
        "must run on the same machine. skiff-host hands the region's memfd to it over the channel\n"
        "(SCM_RIGHTS) and the target maps it; anon and file regions are reached through\n"
        "/proc/<pid>/mem, which needs both to run as the same user. The comch channel is a Unix\n"
        "socket in $SKIFF_COMCH_DIR (default /tmp/skiff-comch, made 0700): the target admits root,\n"
        "its own user and SKIFF_COMCH_PEER_UIDS, and skiff-host talks only to a target of those\n"
        "(core/src/comch/README.md, \"Local trust\").";
    m.files = "/etc/skiff/host.conf\n"
              "    SKIFF_HOST_ARGS, the arguments skiff-host.service passes\n"
              "$SKIFF_COMCH_DIR/<host function>@<channel>\n"
              "    the emulated comch channel's socket (the target listens on it)";
    m.examples = "skiff-host --channel skiff-host --size 256MiB\n"
                 "    lend 256 MiB; serve it with:\n"
                 "    skiff-target --backend hostmem --hostmem-channel skiff-host --size 256MiB\n"
                 "skiff-host --memory hugepages --size 1GiB\n"
                 "    lend reserved hugepages (echo 512 > /proc/sys/vm/nr_hugepages first)";
    m.see_also = "skiff-target --help; docs/deploy-bluefield.md";
    return m;
}

} // namespace

int main(int argc, char **argv) {
    Options o;
    CLI::App app;
    cli::set_man_page(app, man_page());
    app.add_option("--channel", o.channel,
                   "control channel: the DOCA Comch name skiff-target serves (its --hostmem-channel or the\n"
                   "config's \"channel\"), 1 to 119 characters")
        ->capture_default_str();
    app.add_option("--size", o.size, "region size, a multiple of 4 KiB (e.g. 64MiB, 1GiB)")
        ->capture_default_str();
    app.add_option("--memory", o.memory,
                   "memfd (shared memory: the target maps it and copies with memcpy), hugepages (a memfd "
                   "of huge pages, shared the same way), file (a file mapped shared, see --file: the "
                   "target maps only memfd and hugetlbfs memory, so it reaches this one like anon) or anon "
                   "(private memory: the target reaches it with one system call per copy through "
                   "/proc/<pid>/mem, and only when it runs as the same user)")
        ->capture_default_str();
    app.add_option("--file", o.file, "with --memory file: the file to map (created and sized as needed)");
    app.add_option("--pci", o.pci, "host PCI function to export through (its DPU PF imports)")
        ->capture_default_str();
    app.add_option("--test-region-file", o.test_region_file,
                   "for tests: write \"<pid> <address> <length>\" of the region to this file once exported");
    app.add_option("--log-level", o.log_level, "trace|debug|info|warn|error|critical|off")
        ->capture_default_str();
    CLI11_PARSE(app, argc, argv);

    auto level = log::parse_level(o.log_level);
    if (!level) return fail("--log-level: unknown level \"" + o.log_level + "\"");
    log::set_level(*level);
    auto logger = log::get("host");
    uint64_t size = dataplane::parse_size(o.size);
    if (size == 0 || size % 4096)
        return fail("--size \"" + o.size + "\": expected a non-zero multiple of 4 KiB");
    if (o.channel.empty() || o.channel.size() > 119)
        return fail("--channel \"" + o.channel + "\": expected a name of 1 to 119 characters");

    setenv("SKIFF_SIDE", "host", 1); // this process sees the host's PCI functions
    // The emulated PCI path: the target reaches this memory through /proc/<pid>/mem or
    // /proc/<pid>/fd, which Yama (ptrace_scope 1) allows a non-ancestor only when named here.
    prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
    auto region = allocate(o, size);
    if (!region) return fail(region.error().message);
    auto dev = core::Device::open_by_pci(o.pci);
    if (!dev) return fail("--pci " + o.pci + ": " + dev.error().message);
    if (!dev->has_cap(core::DevCap::mmap_export_pci))
        return fail("--pci " + o.pci + ": this function cannot export memory over PCI");
    auto exp = export_region(dev->get(), *region);
    if (!exp) return fail("export: " + exp.error().message);

    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigprocmask(SIG_BLOCK, &set, nullptr);
    int stop_fd = signalfd(-1, &set, SFD_CLOEXEC);

    // Distinct per run, so the target can tell a new export from the one it lost.
    const uint64_t generation =
        static_cast<uint64_t>(time(nullptr)) * 1000000u + static_cast<uint64_t>(getpid());
    hm::ExportRecord record{exp->descriptor, reinterpret_cast<uintptr_t>(region->base), region->len,
                            generation};
    auto channel = hm::ControlClient::create(dev->get(), o.channel, exp->mmap, hm::export_line(record));
    if (!channel) return fail("--channel: " + channel.error().message);
    if (!o.test_region_file.empty())
        if (auto st = write_region_file(o.test_region_file, *region); !st) return fail(st.error().message);
    logger->info("exporting {} bytes of {} memory at {} through {} as export {}; channel {}", size, o.memory,
                 static_cast<void *>(region->base), o.pci, generation, (*channel)->address());
    // Under systemd (Type=notify): the export is made; the target gets it whenever it is up.
    dataplane::notify_ready("exporting " + std::to_string(size) + " bytes on " + o.channel);

    (*channel)->serve(stop_fd);

    // Revoke first (the revocation word flips, every import fails its next access), then tell the
    // target, then let go.
    logger->info("signal received: revoking export {}", generation);
    dataplane::notify_stopping("revoking export " + std::to_string(generation));
    doca_mmap_stop(exp->mmap);
    (*channel)->send_and_close("REVOKED " + std::to_string(generation));
    channel->reset();
    doca_mmap_destroy(exp->mmap);
    munmap(region->base, region->len);
    return 0;
}
