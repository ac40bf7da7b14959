// Export and import of mmaps between processes over the emulated PCI link.
//
// Access matrix (spec section 7 item 3; documented in core/src/dev/README.md):
//   - doca_mmap_export_pci: only with a host-side function (it has the export-PCI capability).
//   - doca_mmap_create_from_export of a PCI export: only with a DPU PF (from-export-PCI capability)
//     that manages the representor of the exporting host function (the same PCI address).
//   - doca_mmap_export_rdma: an RDMA device (core/src/rdma); the import needs an RDMA device too.
#include <doca_mmap.h>

#include "dev/device.hpp"
#include "mem/export_blob.hpp"
#include "mem/import_trust.hpp"
#include "mem/live_handles.hpp"
#include "mem/mmap.hpp"
#include "mem/received_exports.hpp"
#include "rdma/export_blob.hpp"
#include "rdma/verbs.hpp"

#include <skiff/core/log.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <new>
#include <random>
#include <unistd.h>

namespace {

auto logger() {
    return skiff::log::get("mem");
}

constexpr uint32_t pci_access = DOCA_ACCESS_FLAG_PCI_READ_ONLY | DOCA_ACCESS_FLAG_PCI_READ_WRITE;
constexpr uint32_t rdma_access =
    DOCA_ACCESS_FLAG_RDMA_READ | DOCA_ACCESS_FLAG_RDMA_WRITE | DOCA_ACCESS_FLAG_RDMA_ATOMIC;

uint64_t random_token() {
    std::random_device rd;
    return (static_cast<uint64_t>(rd()) << 32) ^ rd();
}

// Common preconditions of every export; DOCA_SUCCESS when the mmap may be exported with dev.
doca_error_t check_exportable(const doca_mmap *m, const doca_dev *dev, const char *what) {
    if (m->from_export) {
        logger()->error("{}: an mmap created from an export cannot be exported again", what);
        return DOCA_ERROR_NOT_PERMITTED;
    }
    if (!m->started) {
        logger()->error("{}: the mmap is not started; start it before exporting", what);
        return DOCA_ERROR_NOT_PERMITTED;
    }
    if (std::find(m->devs.begin(), m->devs.end(), dev) == m->devs.end()) {
        logger()->error("{}: device {} was not added to the mmap (doca_mmap_add_dev before start)", what,
                        dev->info.desc.name);
        return DOCA_ERROR_NOT_FOUND;
    }
    return DOCA_SUCCESS;
}

// What the exporter repeats in its segment so that the importer can check the descriptor.
skiff::core::mem::SegmentRecord record_of(const skiff::core::mem::PciExportDesc &d) {
    skiff::core::mem::SegmentRecord r;
    r.addr = d.addr;
    r.len = d.len;
    r.permissions = d.permissions;
    std::strncpy(r.exporter_pci, d.exporter_pci.c_str(), sizeof(r.exporter_pci) - 1);
    r.liveness_fd = d.liveness_fd;
    r.backing_fd = d.backing_fd;
    r.backing_offset = d.backing_offset;
    r.backing_dev = d.backing_dev;
    r.backing_ino = d.backing_ino;
    return r;
}

bool same_record(const skiff::core::mem::SegmentRecord &a, const skiff::core::mem::SegmentRecord &b) {
    return a.addr == b.addr && a.len == b.len && a.permissions == b.permissions &&
           std::strncmp(a.exporter_pci, b.exporter_pci, sizeof(a.exporter_pci)) == 0 &&
           a.liveness_fd == b.liveness_fd && a.backing_fd == b.backing_fd &&
           a.backing_offset == b.backing_offset && a.backing_dev == b.backing_dev &&
           a.backing_ino == b.backing_ino;
}

} // namespace

extern "C" {

doca_error_t doca_mmap_export_pci(struct doca_mmap *mmap, const struct doca_dev *dev,
                                  const void **export_desc, size_t *export_desc_len) {
    using namespace skiff::core;
    if (mmap == nullptr || dev == nullptr || export_desc == nullptr || export_desc_len == nullptr)
        return DOCA_ERROR_INVALID_VALUE;
    if (auto r = check_exportable(mmap, dev, "doca_mmap_export_pci"); r != DOCA_SUCCESS) return r;
    const auto &desc = dev::desc_of(dev);
    if (!desc.has_cap(DevCap::mmap_export_pci)) {
        logger()->error(
            "doca_mmap_export_pci: device {} ({}-side) cannot export over PCI; only host-side functions "
            "can (see doca_mmap_cap_is_export_pci_supported)",
            desc.name, dev::side_name(desc.side));
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    if ((mmap->permissions & pci_access) == 0) {
        logger()->error(
            "doca_mmap_export_pci: the mmap grants no PCI access; set DOCA_ACCESS_FLAG_PCI_READ_ONLY or "
            "DOCA_ACCESS_FLAG_PCI_READ_WRITE before start");
        return DOCA_ERROR_NOT_PERMITTED;
    }
    // The same mmap exported again with the same device hands out the same descriptor.
    for (const auto &rec : mmap->exports)
        if (rec->dev == dev) {
            *export_desc = rec->blob.data();
            *export_desc_len = rec->blob.size();
            return DOCA_SUCCESS;
        }
    auto rec = std::make_unique<mem::ExportRecord>();
    uint64_t token = random_token();
    auto liveness = mem::exporter_liveness_fd();
    if (!liveness) {
        logger()->error("doca_mmap_export_pci: {}", liveness.error().message);
        return liveness.error().code;
    }
    mem::PciExportDesc d;
    d.exporter_pid = getpid();
    d.token = token;
    d.addr = reinterpret_cast<uintptr_t>(mmap->addr);
    d.len = mmap->len;
    d.permissions = mmap->permissions;
    d.exporter_pci = desc.pci_addr;
    d.exporter_name = desc.name;
    d.liveness_fd = liveness.value();
    rec->backing = mem::SharedBacking::find(mmap->addr, mmap->len,
                                            (mmap->permissions & DOCA_ACCESS_FLAG_PCI_READ_WRITE) != 0);
    if (rec->backing) {
        d.backing_fd = rec->backing->fd();
        d.backing_offset = rec->backing->offset();
        d.backing_dev = rec->backing->dev();
        d.backing_ino = rec->backing->ino();
    }
    auto segment = mem::ExportSegment::create(token, record_of(d));
    if (!segment) {
        logger()->error("doca_mmap_export_pci: {}", segment.error().message);
        return segment.error().code;
    }
    d.segment_fd = segment.value()->fd();
    rec->dev = dev;
    rec->segment = std::move(segment.value());
    rec->blob.resize(mem::pci_export_blob_size);
    mem::encode_pci_export(d, rec->blob.data());
    *export_desc = rec->blob.data();
    *export_desc_len = rec->blob.size();
    mmap->exports.push_back(std::move(rec));
    mmap->exported = true;
    logger()->debug("exported mmap [{:#x}, +{}) over PCI with {} (pid {}, {})", d.addr, d.len, desc.name,
                    d.exporter_pid, d.backing_fd >= 0 ? "shared memory" : "private memory");
    return DOCA_SUCCESS;
}

doca_error_t doca_mmap_export_rdma(struct doca_mmap *mmap, const struct doca_dev *dev,
                                   const void **export_desc, size_t *export_desc_len) {
    using namespace skiff::core;
    if (mmap == nullptr || dev == nullptr || export_desc == nullptr || export_desc_len == nullptr)
        return DOCA_ERROR_INVALID_VALUE;
    if (auto r = check_exportable(mmap, dev, "doca_mmap_export_rdma"); r != DOCA_SUCCESS) return r;
    if ((mmap->permissions & rdma_access) == 0) {
        logger()->error(
            "doca_mmap_export_rdma: the mmap grants no RDMA access; set DOCA_ACCESS_FLAG_RDMA_READ "
            "and/or DOCA_ACCESS_FLAG_RDMA_WRITE before start");
        return DOCA_ERROR_NOT_PERMITTED;
    }
    ibv_mr *mr = nullptr;
    if (auto r = rdma::mmap_mr(mmap, dev, &mr); r != DOCA_SUCCESS) return r;
    for (auto &reg : mmap->rdma_regs)
        if (reg.dev == dev) {
            if (reg.blob.empty()) {
                rdma::RdmaExportDesc d;
                d.addr = reinterpret_cast<uintptr_t>(mmap->addr);
                d.len = mmap->len;
                d.rkey = rdma::mr_rkey(mr);
                d.permissions = mmap->permissions;
                reg.blob.resize(rdma::rdma_export_blob_size);
                rdma::encode_rdma_export(d, reg.blob.data());
            }
            *export_desc = reg.blob.data();
            *export_desc_len = reg.blob.size();
            mmap->exported = true;
            return DOCA_SUCCESS;
        }
    return DOCA_ERROR_UNEXPECTED;
}

namespace {

// The mmap behind an import of either kind: started at once (it refuses start, stop and every
// setter), holding the importing device. The caller adds the kind's link and registers it.
doca_mmap *new_imported_mmap(const union doca_data *user_data, uint64_t addr, uint64_t len,
                             uint32_t permissions, doca_dev *dev) {
    auto *m = new (std::nothrow) doca_mmap{};
    if (m == nullptr) return nullptr;
    m->addr = reinterpret_cast<uint8_t *>(static_cast<uintptr_t>(addr));
    m->len = len;
    m->range_set = true;
    m->permissions = permissions;
    m->from_export = true;
    m->started = true;
    m->ever_started = true;
    if (user_data != nullptr) m->user_data = *user_data;
    m->devs.push_back(dev);
    skiff::core::dev::dev_hold(dev);
    return m;
}

// An RDMA export imported on an RDMA device: the remote side of read/write tasks.
doca_error_t import_rdma(const union doca_data *user_data, const void *export_desc, size_t export_desc_len,
                         struct doca_dev *dev, struct doca_mmap **mmap) {
    using namespace skiff::core;
    auto decoded = rdma::decode_rdma_export(export_desc, export_desc_len);
    if (!decoded) {
        logger()->error("doca_mmap_create_from_export: {}", decoded.error().message);
        return decoded.error().code;
    }
    const auto &desc = dev::desc_of(dev);
    if (!desc.has_cap(DevCap::rdma)) {
        logger()->error("doca_mmap_create_from_export: device {} has no RDMA; an RDMA export is imported "
                        "with an RDMA device",
                        desc.name);
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    const auto &d = decoded.value();
    doca_mmap *m = new_imported_mmap(user_data, d.addr, d.len, d.permissions, dev);
    if (m == nullptr) return DOCA_ERROR_NO_MEMORY;
    m->rdma_remote = true;
    m->rdma_rkey = d.rkey;
    mem::live_handles().add(m);
    logger()->debug("imported RDMA export [{:#x}, +{}) rkey {:#x} through {}", d.addr, d.len, d.rkey,
                    desc.name);
    *mmap = m;
    return DOCA_SUCCESS;
}

// The exporter's pages: mapped here when the export lies in shared memory, else (or when the
// mapping cannot be made) reached through /proc/<pid>/mem. Only for an exporter of this process's
// user (same_user_link).
doca_error_t attach_pages(const skiff::core::mem::PciExportDesc &d, skiff::core::mem::ImportLink &link) {
    using namespace skiff::core;
    bool writable = (d.permissions & DOCA_ACCESS_FLAG_PCI_READ_WRITE) != 0;
    if (d.backing_fd >= 0) {
        mem::SharedFileRef file{d.backing_fd, d.backing_offset, d.backing_dev, d.backing_ino};
        auto shared = mem::SharedMapping::map(d.exporter_pid, file, d.addr, d.len, writable);
        if (shared) {
            link.shared = std::move(shared.value());
            return DOCA_SUCCESS;
        }
        if (shared.error().code == DOCA_ERROR_INVALID_VALUE) {
            logger()->error("doca_mmap_create_from_export: {}", shared.error().message);
            return DOCA_ERROR_INVALID_VALUE;
        }
        logger()->info("doca_mmap_create_from_export: {}; using /proc/{}/mem instead", shared.error().message,
                       d.exporter_pid);
    }
    auto remote = mem::RemoteMemory::open(d.exporter_pid, writable);
    if (!remote) {
        logger()->error("doca_mmap_create_from_export: {}", remote.error().message);
        return remote.error().code;
    }
    link.remote = std::move(remote.value());
    return DOCA_SUCCESS;
}

// The segment of the export: refused when revoked, or when the descriptor disagrees with what the
// exporter recorded there (forged or corrupted).
doca_error_t check_segment(const skiff::core::mem::PciExportDesc &d,
                           const skiff::core::mem::SegmentView &segment) {
    if (segment.revoked()) {
        logger()->error(
            "doca_mmap_create_from_export: the export was revoked (the exporter stopped its mmap)");
        return DOCA_ERROR_NOT_CONNECTED;
    }
    if (!same_record(segment.record(), record_of(d))) {
        logger()->error(
            "doca_mmap_create_from_export: the descriptor does not match the export it names (its "
            "range, permissions, exporting function, liveness or shared-memory fields differ from what pid "
            "{} recorded): forged "
            "or corrupted descriptor",
            d.exporter_pid);
        return DOCA_ERROR_INVALID_VALUE;
    }
    return DOCA_SUCCESS;
}

// An export whose files this process received from the exporter over comch (comch_trust.hpp): no
// /proc/<pid>/fd is opened. Shared memory must be a memfd or hugetlbfs file the peer owns, open as
// the export needs; /proc/<pid>/mem is used only for a peer of this process's user.
doca_error_t received_link(const skiff::core::mem::PciExportDesc &d, skiff::core::mem::ReceivedExport &files,
                           skiff::core::mem::ImportLink &link) {
    using namespace skiff::core;
    const std::string whose = "pid " + std::to_string(files.pid) + " (uid " + std::to_string(files.uid) + ")";
    auto segment = mem::SegmentView::attach_fd(files.segment.get(), d.token, whose);
    if (!segment) {
        logger()->error("doca_mmap_create_from_export: {}", segment.error().message);
        return segment.error().code;
    }
    if (auto r = check_segment(d, *segment.value()); r != DOCA_SUCCESS) return r;
    auto liveness = mem::LivenessView::attach_fd(files.liveness.get(), files.pid, files.proc_dir.get());
    if (liveness) files.proc_dir.release(); // the liveness view's now
    if (!liveness || !liveness.value()->alive()) {
        logger()->error("doca_mmap_create_from_export: {}",
                        liveness ? "the exporter is gone" : liveness.error().message);
        return DOCA_ERROR_NOT_CONNECTED;
    }
    link.segment = std::move(segment.value());
    link.liveness = std::move(liveness.value());
    bool writable = (d.permissions & DOCA_ACCESS_FLAG_PCI_READ_WRITE) != 0;
    bool same_user = files.uid == ::geteuid();
    if (d.backing_fd >= 0) {
        skiff::Status usable = mem::check_shared_file(files.backing.get(), files.uid, writable, true);
        if (usable) {
            mem::SharedFileRef file{d.backing_fd, d.backing_offset, d.backing_dev, d.backing_ino};
            auto shared =
                mem::SharedMapping::map_fd(files.backing.get(), file, d.addr, d.len, writable, whose);
            if (!shared) {
                logger()->error("doca_mmap_create_from_export: {}", shared.error().message);
                return shared.error().code;
            }
            link.shared = std::move(shared.value());
            return DOCA_SUCCESS;
        }
        if (!same_user) {
            logger()->error("doca_mmap_create_from_export: refused the export of {}: {}", whose,
                            usable.error().message);
            return DOCA_ERROR_NOT_PERMITTED;
        }
        logger()->info("doca_mmap_create_from_export: {}; using /proc/{}/mem instead", usable.error().message,
                       files.pid);
    } else if (!same_user) {
        logger()->error("doca_mmap_create_from_export: refused the export of {}: it lies in private memory, "
                        "which this process (uid {}) would reach with its own rights through /proc/{}/mem; "
                        "an exporter of another user must export a memfd or hugetlbfs region",
                        whose, ::geteuid(), files.pid);
        return DOCA_ERROR_NOT_PERMITTED;
    }
    auto remote = mem::RemoteMemory::open(files.pid, writable);
    if (!remote) {
        logger()->error("doca_mmap_create_from_export: {}", remote.error().message);
        return remote.error().code;
    }
    link.remote = std::move(remote.value());
    return DOCA_SUCCESS;
}

// An export known only by its descriptor: the exporter's files are opened through /proc/<pid>, which
// this process may do only for an exporter of its own user. Otherwise it would open them with its
// own rights (as root: any file the exporter merely holds a descriptor on).
doca_error_t same_user_link(const skiff::core::mem::PciExportDesc &d, skiff::core::mem::ImportLink &link) {
    using namespace skiff::core;
    std::string dir = "/proc/" + std::to_string(d.exporter_pid);
    mem::OwnedFd proc_dir(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    auto uid = proc_dir.get() >= 0
                   ? mem::process_uid(proc_dir.get())
                   : skiff::Result<uid_t>(skiff::make_error(
                         DOCA_ERROR_NOT_CONNECTED, "the exporter (pid " + std::to_string(d.exporter_pid) +
                                                       ") is gone: " + dir + ": " + std::strerror(errno)));
    if (!uid) {
        logger()->error("doca_mmap_create_from_export: {}", uid.error().message);
        return uid.error().code;
    }
    if (uid.value() != ::geteuid()) {
        logger()->error(
            "doca_mmap_create_from_export: pid {} runs as uid {}, this process as uid {}: an export "
            "crosses users only when the exporter handed its files over the comch connection "
            "(skiff::core::comch::send_export_files), never through /proc",
            d.exporter_pid, uid.value(), ::geteuid());
        return DOCA_ERROR_NOT_PERMITTED;
    }
    auto segment = mem::SegmentView::attach(d.exporter_pid, d.segment_fd, d.token);
    if (!segment) {
        logger()->error("doca_mmap_create_from_export: {}", segment.error().message);
        return segment.error().code;
    }
    if (auto r = check_segment(d, *segment.value()); r != DOCA_SUCCESS) return r;
    auto liveness = mem::LivenessView::attach(d.exporter_pid, d.liveness_fd);
    if (!liveness || !liveness.value()->alive()) {
        logger()->error("doca_mmap_create_from_export: {}",
                        liveness ? "the exporter is gone" : liveness.error().message);
        return DOCA_ERROR_NOT_CONNECTED;
    }
    link.segment = std::move(segment.value());
    link.liveness = std::move(liveness.value());
    return attach_pages(d, link);
}

} // namespace

doca_error_t doca_mmap_create_from_export(const union doca_data *user_data, const void *export_desc,
                                          size_t export_desc_len, struct doca_dev *dev,
                                          struct doca_mmap **mmap) {
    using namespace skiff::core;
    if (export_desc == nullptr || dev == nullptr || mmap == nullptr) return DOCA_ERROR_INVALID_VALUE;
    if (rdma::is_rdma_export(export_desc, export_desc_len))
        return import_rdma(user_data, export_desc, export_desc_len, dev, mmap);
    auto decoded = mem::decode_pci_export(export_desc, export_desc_len);
    if (!decoded) {
        logger()->error("doca_mmap_create_from_export: {}", decoded.error().message);
        return decoded.error().code;
    }
    const mem::PciExportDesc &d = decoded.value();
    const auto &desc = dev::desc_of(dev);
    if (!desc.has_cap(DevCap::mmap_from_export_pci)) {
        logger()->error(
            "doca_mmap_create_from_export: device {} ({}-side) cannot import a PCI export; import with "
            "the DPU PF that manages the representor of {} (host-side processes can import only RDMA "
            "exports)",
            desc.name, dev::side_name(desc.side), d.exporter_pci);
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    if (!dev::dev_manages_function(dev, d.exporter_pci)) {
        logger()->error(
            "doca_mmap_create_from_export: device {} has no representor of the exporting function {} "
            "({}); import with its parent PF",
            desc.name, d.exporter_name, d.exporter_pci);
        return DOCA_ERROR_NOT_PERMITTED;
    }
    auto link = std::make_unique<mem::ImportLink>();
    auto received = mem::received_exports().find(d.token, d.exporter_pid);
    doca_error_t linked = received ? received_link(d, *received, *link) : same_user_link(d, *link);
    if (linked != DOCA_SUCCESS) return linked;

    doca_mmap *m = new_imported_mmap(user_data, d.addr, d.len, d.permissions, dev);
    if (m == nullptr) return DOCA_ERROR_NO_MEMORY;
    m->import = std::move(link);
    mem::live_handles().add(m);
    logger()->debug("imported [{:#x}, +{}) of pid {} ({}) through {}, {}", d.addr, d.len, d.exporter_pid,
                    d.exporter_name, desc.name, m->import->shared ? "shared mapping" : "/proc/<pid>/mem");
    *mmap = m;
    return DOCA_SUCCESS;
}

} // extern "C"
