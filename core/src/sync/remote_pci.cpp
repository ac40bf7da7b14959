// Remote-PCI sync events: the host exports an event to the DPU (or the reverse) across PCIe. In
// skiff both sides are processes of one machine, so the counter of an event with a remote-PCI
// publisher lives in a shared memory page (memfd); the descriptor names the exporting process and
// the page's descriptor, and the importer maps that page (/proc/<pid>/fd/<fd>, which needs the
// same rights over the exporter as ptrace: the same user, as for mmap PCI exports).
#include "sync/sync_event.hpp"

#include "exec/live_objects.hpp"

#include <skiff/core/log.hpp>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <new>
#include <string>

namespace {

auto logger() {
    return skiff::log::get("sync");
}

constexpr uint32_t kBlobMagic = 0x534b5250; // "SKRP"
constexpr size_t kPageLen = 4096;

struct Blob {
    uint32_t magic;
    int32_t pid;
    int32_t fd;
    uint32_t reserved;
};

// A fresh shared page holding the counter (zero).
doca_error_t create_shared_counter(doca_sync_event *event) {
    int fd = memfd_create("skiff-sync-event", MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, kPageLen) != 0) {
        logger()->error("sync event remote-PCI publisher: shared counter page: {}", std::strerror(errno));
        if (fd >= 0) close(fd);
        return DOCA_ERROR_NO_MEMORY;
    }
    void *page = mmap(nullptr, kPageLen, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (page == MAP_FAILED) {
        logger()->error("sync event remote-PCI publisher: mapping the counter page: {}",
                        std::strerror(errno));
        close(fd);
        return DOCA_ERROR_NO_MEMORY;
    }
    event->use_shared_counter(static_cast<uint64_t *>(page), fd, page, kPageLen);
    return DOCA_SUCCESS;
}

} // namespace

extern "C" {

doca_error_t doca_sync_event_cap_is_export_to_remote_pci_supported(const doca_devinfo *devinfo) {
    return devinfo ? DOCA_SUCCESS : DOCA_ERROR_INVALID_VALUE;
}

doca_error_t doca_sync_event_cap_is_create_from_export_supported(const doca_devinfo *devinfo) {
    return devinfo ? DOCA_SUCCESS : DOCA_ERROR_INVALID_VALUE;
}

doca_error_t doca_sync_event_add_publisher_location_remote_pci(doca_sync_event *event) {
    if (!event) return DOCA_ERROR_INVALID_VALUE;
    if (event->has_remote_pci_location()) return DOCA_SUCCESS;
    if (event->user_set_addr()) {
        logger()->error(
            "sync event remote-PCI publisher: the event uses doca_sync_event_set_addr memory, which "
            "the other side cannot reach; drop set_addr");
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    doca_error_t r = event->add_location(true, "remote pci");
    if (r != DOCA_SUCCESS) return r;
    r = create_shared_counter(event);
    if (r == DOCA_SUCCESS) event->add_remote_pci_location();
    return r;
}

doca_error_t doca_sync_event_export_to_remote_pci(doca_sync_event *event, doca_dev *dev, const uint8_t **data,
                                                  size_t *sz) {
    if (!event || !dev || !data || !sz) return DOCA_ERROR_INVALID_VALUE;
    if (!event->has_remote_pci_location() || event->user_set_addr()) {
        logger()->error("doca_sync_event_export_to_remote_pci: declare a remote-PCI publisher "
                        "(doca_sync_event_add_publisher_location_remote_pci) before start, without set_addr");
        return DOCA_ERROR_NOT_PERMITTED;
    }
    if (!event->operational()) {
        logger()->error("doca_sync_event_export_to_remote_pci: start the event first");
        return DOCA_ERROR_BAD_STATE;
    }
    auto &ex = event->remote_export;
    Blob b{kBlobMagic, int32_t(getpid()), event->shared_fd(), 0};
    std::memcpy(ex.pci_blob, &b, sizeof b);
    *data = ex.pci_blob;
    *sz = sizeof b;
    return DOCA_SUCCESS;
}

doca_error_t doca_sync_event_create_from_export(doca_dev *dev, const uint8_t *data, size_t sz,
                                                doca_sync_event **event) {
    if (!dev || !data || !event) return DOCA_ERROR_INVALID_VALUE;
    Blob b{};
    if (sz != sizeof b || (std::memcpy(&b, data, sizeof b), b.magic != kBlobMagic)) {
        logger()->error("doca_sync_event_create_from_export: not a remote-PCI sync event descriptor "
                        "(doca_sync_event_export_to_remote_pci makes one; {} bytes given)",
                        sz);
        return DOCA_ERROR_INVALID_VALUE;
    }
    std::string path = "/proc/" + std::to_string(b.pid) + "/fd/" + std::to_string(b.fd);
    int fd = open(path.c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        logger()->error(
            "doca_sync_event_create_from_export: cannot reach the exporter's counter ({}: {}); is "
            "process {} alive and run by this user?",
            path, std::strerror(errno), b.pid);
        return DOCA_ERROR_NOT_FOUND;
    }
    void *page = mmap(nullptr, kPageLen, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (page == MAP_FAILED) {
        logger()->error("doca_sync_event_create_from_export: mapping the counter: {}", std::strerror(errno));
        close(fd);
        return DOCA_ERROR_NO_MEMORY;
    }
    auto *imported = new (std::nothrow) doca_sync_event();
    if (!imported) {
        munmap(page, kPageLen);
        close(fd);
        return DOCA_ERROR_NO_MEMORY;
    }
    imported->use_shared_counter(static_cast<uint64_t *>(page), fd, page, kPageLen);
    // The export defines the locations: the exporter publishes, this side subscribes (and may
    // publish too, as DOCA's samples do); the importer starts the event without declaring any.
    imported->add_location(true, "remote pci (the exporter)");
    imported->add_location(false, "cpu (the importer)");
    skiff::core::live_exec_objects().add(imported);
    *event = imported;
    return DOCA_SUCCESS;
}

} // extern "C"
