// How an importer learns, without a system call, that the exporter process died.
//
// With a shared mapping the exporter's pages outlive it, so nothing on the data path fails by
// itself when it dies. DOCA creates no threads, so no watcher either. Instead each exporting
// thread owns a one-page memfd holding a process-shared robust mutex that it locks once and
// never unlocks. The kernel walks a dying thread's robust list before the process is reaped and
// sets FUTEX_OWNER_DIED in the lock word; the importer maps the page read-only and loads that
// word before and after every copy.
//
// The word tracks the exporting thread, not the process. When it reports death, the importer
// confirms through the exporter's /proc directory (opened at
// import; one openat and read); if only the thread ended, the process is alive
// and every later access pays that poll (correct, slower; logged once). The same holds from the
// start when the exporter has no robust futex list (qemu-user refuses set_robust_list).
#pragma once

#include <skiff/core/status.hpp>

#include <atomic>
#include <cstdint>
#include <linux/futex.h>
#include <memory>
#include <sys/types.h>

namespace skiff::core::mem {

// Exporter side: the calling thread's liveness page (created on first use, kept for the thread's
// life and beyond: unmapping a locked robust mutex would corrupt the thread's robust list).
// Returns its fd number in this process.
Result<int> exporter_liveness_fd();

// Importer side.
class LivenessView {
  public:
    // NOT_CONNECTED when the exporter is gone or fd is not its liveness page.
    static Result<std::unique_ptr<LivenessView>> attach(pid_t exporter, int fd);
    // The same from a descriptor of the page held here (received over comch) and the exporter's
    // /proc directory; the view takes proc_dir on success (the caller keeps it on failure).
    static Result<std::unique_ptr<LivenessView>> attach_fd(int fd, pid_t exporter, int proc_dir);
    ~LivenessView();
    LivenessView(const LivenessView &) = delete;
    LivenessView &operator=(const LivenessView &) = delete;

    // True while the exporter process lives. One load while its exporting thread lives (inline:
    // every copy through a shared import asks twice).
    bool alive() const {
        uint32_t w = __atomic_load_n(word_, __ATOMIC_ACQUIRE);
        if ((w & FUTEX_TID_MASK) != 0 && (w & FUTEX_OWNER_DIED) == 0) return true;
        return confirm_alive();
    }

  private:
    LivenessView() = default;
    bool confirm_alive() const;
    const uint32_t *word_ = nullptr; // the robust mutex's lock word
    void *page_ = nullptr;
    int proc_dir_ = -1; // the exporter's /proc/<pid> directory
    pid_t pid_ = 0;
    bool robust_ = false; // the exporter's kernel marks the lock word when its thread dies
    mutable std::atomic<bool> dead_{false};
    mutable std::atomic<bool> warned_{false};
};

} // namespace skiff::core::mem
