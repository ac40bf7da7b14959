// The files of PCI exports that arrived over a comch connection (SCM_RIGHTS,
// comch_trust.hpp send_export_files), kept for doca_mmap_create_from_export: an importer that runs as
// another user than the exporter imports only through them, never by opening /proc/<pid>/fd of a
// process a descriptor names. An entry belongs to its connection: it goes when the connection goes.
// Touched when a frame arrives and at import, never on the data path.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <sys/types.h>
#include <vector>

namespace skiff::core::mem {

// One descriptor this process owns (closed with the object).
class OwnedFd {
  public:
    OwnedFd() = default;
    explicit OwnedFd(int fd) : fd_(fd) {}
    ~OwnedFd();
    OwnedFd(OwnedFd &&o) noexcept : fd_(o.release()) {}
    OwnedFd &operator=(OwnedFd &&o) noexcept;
    int get() const { return fd_; }
    int release() {
        int fd = fd_;
        fd_ = -1;
        return fd;
    }
    // A second descriptor of the same open file (close-on-exec); empty on failure.
    OwnedFd dup() const;

  private:
    int fd_ = -1;
};

// What an import needs from a received export. The process is the peer that connected (its
// SO_PEERCRED pid and uid), which is also the pid the descriptor names.
struct ReceivedExport {
    const void *connection = nullptr;
    pid_t pid = 0;
    uid_t uid = 0;
    uint64_t token = 0;
    OwnedFd segment, liveness, backing; // backing: empty for private memory
    OwnedFd proc_dir;                   // /proc/<pid>, opened while the peer was connected

    // A copy with its own descriptors, for one import.
    std::optional<ReceivedExport> copy() const;
};

class ReceivedExports {
  public:
    // Files an export; one of the same token from the same connection is replaced. A connection
    // keeps at most kPerConnection entries (the oldest goes first).
    void add(ReceivedExport e);
    // Closes every entry of the connection.
    void forget(const void *connection);
    // A copy of the entry for (token, pid), if one arrived.
    std::optional<ReceivedExport> find(uint64_t token, pid_t pid);

    static constexpr size_t kPerConnection = 8;

  private:
    std::mutex mutex_;
    std::vector<std::unique_ptr<ReceivedExport>> entries_;
};

ReceivedExports &received_exports();

} // namespace skiff::core::mem
