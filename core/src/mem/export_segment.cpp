#include "mem/export_segment.hpp"

#include <skiff/core/log.hpp>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <new>
#include <string>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace skiff::core::mem {

namespace {

constexpr uint64_t segment_magic = 0x534b4946465345ull; // "SKIFFSE"
constexpr size_t segment_size = 4096;

std::string errno_text() {
    return std::strerror(errno);
}

} // namespace

Result<std::unique_ptr<ExportSegment>> ExportSegment::create(uint64_t token, const SegmentRecord &record) {
    int fd = memfd_create("skiff-mmap-export", MFD_CLOEXEC);
    if (fd < 0)
        return make_error(DOCA_ERROR_OPERATING_SYSTEM, "memfd_create for an export failed: " + errno_text());
    if (ftruncate(fd, segment_size) != 0) {
        std::string why = errno_text();
        close(fd);
        return make_error(DOCA_ERROR_OPERATING_SYSTEM, "sizing the export segment failed: " + why);
    }
    void *p = ::mmap(nullptr, segment_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        std::string why = errno_text();
        close(fd);
        return make_error(DOCA_ERROR_OPERATING_SYSTEM, "mapping the export segment failed: " + why);
    }
    auto *layout = new (p) SegmentLayout{segment_magic, token, {0}, record};
    auto *seg = new ExportSegment();
    seg->fd_ = fd;
    seg->layout_ = layout;
    return std::unique_ptr<ExportSegment>(seg);
}

void ExportSegment::revoke() {
    if (layout_ == nullptr) return;
    layout_->revoked.store(1, std::memory_order_seq_cst);
    // The exporter's later writes to the memory stay after the revocation: an importer copy that
    // sees them also sees `revoked` in its check after the copy (mem_access.cpp).
    std::atomic_thread_fence(std::memory_order_seq_cst);
}

ExportSegment::~ExportSegment() {
    revoke();
    if (layout_ != nullptr) ::munmap(layout_, segment_size);
    if (fd_ >= 0) close(fd_);
}

Result<std::unique_ptr<SegmentView>> SegmentView::attach(pid_t exporter, int fd, uint64_t token) {
    std::string path = "/proc/" + std::to_string(exporter) + "/fd/" + std::to_string(fd);
    int local = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (local < 0)
        return make_error(DOCA_ERROR_NOT_CONNECTED, "the exporter (pid " + std::to_string(exporter) +
                                                        ") or its export is gone: cannot open " + path +
                                                        ": " + errno_text());
    auto view = attach_fd(local, token, "pid " + std::to_string(exporter) + " (" + path + ")");
    close(local); // the mapping keeps the segment alive
    return view;
}

Result<std::unique_ptr<SegmentView>> SegmentView::attach_fd(int fd, uint64_t token,
                                                            const std::string &whose) {
    // After a stop the fd number may name another file of the exporter: only a regular file of
    // the segment's size can be ours (mapping a shorter one would fault, opening a FIFO would block).
    struct stat st {};
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || static_cast<size_t>(st.st_size) < segment_size)
        return make_error(DOCA_ERROR_NOT_CONNECTED,
                          "the export named by the descriptor no longer exists in " + whose +
                              ": not its segment (stale descriptor)");
    void *p = ::mmap(nullptr, segment_size, PROT_READ, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED)
        return make_error(DOCA_ERROR_NOT_CONNECTED,
                          "cannot map the export segment of " + whose + ": " + errno_text());
    auto *layout = static_cast<const SegmentLayout *>(p);
    if (layout->magic != segment_magic || layout->token != token) {
        ::munmap(p, segment_size);
        return make_error(DOCA_ERROR_NOT_CONNECTED,
                          "the export named by the descriptor no longer exists in " + whose +
                              " (stale descriptor)");
    }
    auto *view = new SegmentView();
    view->layout_ = layout;
    return std::unique_ptr<SegmentView>(view);
}

SegmentView::~SegmentView() {
    if (layout_ != nullptr) ::munmap(const_cast<SegmentLayout *>(layout_), segment_size);
}

} // namespace skiff::core::mem
