// Exporter side of the shared-memory fast path: finds the file behind an exported range when
// another process can map the same pages (a memfd, a hugetlbfs file, a file mapped MAP_SHARED,
// shared anonymous memory), and keeps an fd on it for the export's life so that the importer can
// open it as /proc/<exporter>/fd/<n> (the same ptrace-read check as /proc/<pid>/mem).
// Private memory (anonymous or MAP_PRIVATE) has no such file: its export keeps the /proc/<pid>/mem
// path (remote_memory.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

namespace skiff::core::mem {

class SharedBacking {
  public:
    // The file behind [addr, addr + len), or nullptr when the range is private memory, spans
    // more than one file, or no fd on the file can be had (the reason is logged at debug level).
    // The fd is open read-write when `writable` (the export grants PCI write): an importer that
    // receives the descriptor itself maps it as it is open.
    static std::unique_ptr<SharedBacking> find(const void *addr, size_t len, bool writable);
    ~SharedBacking();
    SharedBacking(const SharedBacking &) = delete;
    SharedBacking &operator=(const SharedBacking &) = delete;

    int fd() const { return fd_; }              // held open until the export is revoked
    uint64_t offset() const { return offset_; } // of addr within the file
    uint64_t dev() const { return dev_; }       // the file's identity, checked by the importer
    uint64_t ino() const { return ino_; }

  private:
    SharedBacking() = default;
    int fd_ = -1;
    uint64_t offset_ = 0, dev_ = 0, ino_ = 0;
};

} // namespace skiff::core::mem
