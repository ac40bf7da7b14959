// Host-side exporter for the two-process export tests. Allocates a pattern-filled buffer, registers
// it in an mmap with host function pf0, exports it over PCI and prints the descriptor, then serves
// commands on stdin, one per line:
//   BYTES <offset> <len>   -> "BYTES <hex>"   the bytes as the exporter sees them
//   STOP                   -> "STOPPED"       doca_mmap_stop (revokes every import)
//   DESTROY                -> "DESTROYED"     doca_mmap_destroy (after STOP or directly)
//   FILL <byte>            -> "FILLED"        sets every byte of the region (e.g. after STOP)
//   EXIT                   -> exits 0
// Usage: mem_exporter <size> <rw|ro> [private|memfd|file]. First output line:
// "EXPORT <hex descriptor> <addr> <len>". The memory: private (heap, the default: the importer
// uses /proc/<pid>/mem), memfd (MAP_SHARED of a memfd this process keeps open) or file (a
// temporary file mapped MAP_SHARED, removed at exit): a memfd gets the shared-memory path, a
// regular file the /proc/<pid>/mem one (the importer maps only memfd and hugetlbfs files).
#include <doca_dev.h>
#include <doca_mmap.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <sstream>
#include <string>
#include <sys/mman.h>
#include <unistd.h>
#include <vector>

namespace {

[[noreturn]] void fail(const char *what, doca_error_t r) {
    std::printf("ERROR %s %s\n", what, doca_error_get_name(r));
    std::fflush(stdout);
    std::exit(1);
}

void check(doca_error_t r, const char *what) {
    if (r != DOCA_SUCCESS) fail(what, r);
}

std::string hex(const uint8_t *p, size_t n) {
    static const char digits[] = "0123456789abcdef";
    std::string s;
    s.reserve(n * 2);
    for (size_t i = 0; i < n; ++i) {
        s.push_back(digits[p[i] >> 4]);
        s.push_back(digits[p[i] & 15]);
    }
    return s;
}

doca_dev *open_pf0() {
    setenv("SKIFF_SIDE", "host", 1);
    doca_devinfo **list = nullptr;
    uint32_t n = 0;
    check(doca_devinfo_create_list(&list, &n), "doca_devinfo_create_list");
    doca_dev *dev = nullptr;
    for (uint32_t i = 0; i < n && dev == nullptr; ++i) {
        uint8_t eq = 0;
        check(doca_devinfo_is_equal_pci_addr(list[i], "0b:00.0", &eq), "doca_devinfo_is_equal_pci_addr");
        uint8_t can_export = 0;
        check(doca_mmap_cap_is_export_pci_supported(list[i], &can_export),
              "doca_mmap_cap_is_export_pci_supported");
        if (eq && can_export) check(doca_dev_open(list[i], &dev), "doca_dev_open");
    }
    check(doca_devinfo_destroy_list(list), "doca_devinfo_destroy_list");
    if (dev == nullptr) fail("no host function 0b:00.0", DOCA_ERROR_NOT_FOUND);
    return dev;
}

// The exported region, allocated the way the third argument says.
struct Region {
    uint8_t *data = nullptr;
    std::vector<uint8_t> heap;
    std::string file; // removed at exit
};

Region allocate(size_t size, const std::string &kind) {
    Region r;
    if (kind == "private") {
        r.heap.resize(size);
        r.data = r.heap.data();
        return r;
    }
    int fd = -1;
    if (kind == "memfd") {
        fd = memfd_create("skiff-test-region", MFD_CLOEXEC); // kept open: the export finds it
    } else if (kind == "file") {
        char path[] = "/tmp/skiff-mem-exporter.XXXXXX";
        fd = mkstemp(path);
        r.file = path;
    } else {
        std::fprintf(stderr, "memory kind \"%s\": expected private, memfd or file\n", kind.c_str());
        std::exit(2);
    }
    if (fd < 0 || ftruncate(fd, static_cast<off_t>(size)) != 0)
        fail("allocating the region", DOCA_ERROR_NO_MEMORY);
    void *p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) fail("mapping the region", DOCA_ERROR_NO_MEMORY);
    if (kind == "file") close(fd); // found again through its path
    r.data = static_cast<uint8_t *>(p);
    return r;
}

} // namespace

int main(int argc, char **argv) {
    if ((argc != 3 && argc != 4) || (std::strcmp(argv[2], "rw") != 0 && std::strcmp(argv[2], "ro") != 0)) {
        std::fprintf(stderr, "usage: %s <size> <rw|ro> [private|memfd|file]\n", argv[0]);
        return 2;
    }
    size_t size = std::strtoull(argv[1], nullptr, 0);
    Region region = allocate(size, argc == 4 ? argv[3] : "private");
    uint8_t *memory = region.data;
    for (size_t i = 0; i < size; ++i) memory[i] = static_cast<uint8_t>(i * 7 + 3);

    doca_dev *pf0 = open_pf0();
    doca_mmap *mmap = nullptr;
    check(doca_mmap_create(&mmap), "doca_mmap_create");
    check(doca_mmap_set_memrange(mmap, memory, size), "doca_mmap_set_memrange");
    uint32_t pci =
        std::strcmp(argv[2], "rw") == 0 ? DOCA_ACCESS_FLAG_PCI_READ_WRITE : DOCA_ACCESS_FLAG_PCI_READ_ONLY;
    check(doca_mmap_set_permissions(mmap, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | pci),
          "doca_mmap_set_permissions");
    check(doca_mmap_add_dev(mmap, pf0), "doca_mmap_add_dev");
    check(doca_mmap_start(mmap), "doca_mmap_start");
    const void *desc = nullptr;
    size_t desc_len = 0;
    check(doca_mmap_export_pci(mmap, pf0, &desc, &desc_len), "doca_mmap_export_pci");
    std::printf("EXPORT %s %p %zu\n", hex(static_cast<const uint8_t *>(desc), desc_len).c_str(),
                static_cast<void *>(memory), size);
    std::fflush(stdout);

    std::string line;
    while (std::getline(std::cin, line)) {
        std::istringstream in(line);
        std::string cmd;
        in >> cmd;
        if (cmd == "BYTES") {
            size_t off = 0, len = 0;
            in >> off >> len;
            if (off > size || len > size - off) {
                std::printf("ERROR range\n");
            } else {
                std::printf("BYTES %s\n", hex(memory + off, len).c_str());
            }
        } else if (cmd == "STOP") {
            check(doca_mmap_stop(mmap), "doca_mmap_stop");
            std::printf("STOPPED\n");
        } else if (cmd == "DESTROY") {
            check(doca_mmap_destroy(mmap), "doca_mmap_destroy");
            mmap = nullptr;
            std::printf("DESTROYED\n");
        } else if (cmd == "FILL") {
            int byte = 0;
            in >> byte;
            std::memset(memory, byte, size);
            std::printf("FILLED\n");
        } else if (cmd == "EXIT") {
            break;
        } else {
            std::printf("ERROR unknown command %s\n", cmd.c_str());
        }
        std::fflush(stdout);
    }
    if (mmap != nullptr) check(doca_mmap_destroy(mmap), "doca_mmap_destroy");
    check(doca_dev_close(pf0), "doca_dev_close");
    if (!region.file.empty()) unlink(region.file.c_str());
    return 0;
}
