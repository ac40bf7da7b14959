// The revocation channel of one PCI export: a one-page memfd the exporter creates and the importer
// maps read-only (through /proc/<exporter>/fd/<fd>). The exporter sets `revoked` when it stops the
// mmap; the importer checks it before every access without a system call.
#pragma once

#include <skiff/core/status.hpp>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <sys/types.h>

namespace skiff::core::mem {

// What the exporter itself says about the export, repeated in the descriptor: the importer refuses
// a descriptor that disagrees with its segment (forged or mismatched).
struct SegmentRecord {
    uint64_t addr = 0, len = 0;
    uint32_t permissions = 0;   // the rights exported: a descriptor may not claim more
    char exporter_pci[16] = {}; // the exporting function: decides which device may import
    int32_t liveness_fd = -1;   // exporter_liveness.hpp
    int32_t backing_fd = -1;    // -1: private memory (shared_backing.hpp)
    uint64_t backing_offset = 0, backing_dev = 0, backing_ino = 0;
};

struct SegmentLayout {
    uint64_t magic;
    uint64_t token; // the export's random token, also in the descriptor: proves we found the right segment
    std::atomic<uint32_t> revoked;
    SegmentRecord record;
};

// Exporter side: owns the memfd and its mapping.
class ExportSegment {
  public:
    static Result<std::unique_ptr<ExportSegment>> create(uint64_t token, const SegmentRecord &record);
    ~ExportSegment();
    ExportSegment(const ExportSegment &) = delete;
    ExportSegment &operator=(const ExportSegment &) = delete;

    int fd() const { return fd_; }
    // Marks the export revoked; every importer sees it at its next access.
    void revoke();

  private:
    ExportSegment() = default;
    int fd_ = -1;
    SegmentLayout *layout_ = nullptr;
};

// Importer side: a read-only view of the exporter's segment.
class SegmentView {
  public:
    // NOT_CONNECTED when the exporter or its export is gone, or the segment is not the one named.
    static Result<std::unique_ptr<SegmentView>> attach(pid_t exporter, int fd, uint64_t token);
    // The same from a descriptor of the segment held here (received over comch); `whose` names
    // the exporter in errors.
    static Result<std::unique_ptr<SegmentView>> attach_fd(int fd, uint64_t token, const std::string &whose);
    ~SegmentView();
    SegmentView(const SegmentView &) = delete;
    SegmentView &operator=(const SegmentView &) = delete;

    bool revoked() const { return layout_->revoked.load(std::memory_order_acquire) != 0; }
    const SegmentRecord &record() const { return layout_->record; }

  private:
    SegmentView() = default;
    const SegmentLayout *layout_ = nullptr;
};

} // namespace skiff::core::mem
