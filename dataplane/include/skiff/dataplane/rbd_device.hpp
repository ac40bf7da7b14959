// The rbd backend: a Ceph RBD image, read and written through librbd's asynchronous calls
// (rbd_aio_readv / writev / flush / discard / write_zeroes / compare_and_write). One cluster
// connection and one open image per namespace; each poll group's channel submits to the image
// and receives librbd's completions through an RbdCompletionQueue (a lock-free stack plus an
// eventfd in the group's epoll set), so the group never blocks or locks.
//
// Reachability is the namespace's ANA state: a watcher thread asks the monitor and the OSD
// holding the image header every `probe_interval_ms`; an I/O that times out or finds the client
// disconnected marks the image lost at once, and so does each channel's age watchdog when an
// I/O has been inside librbd for longer than `op_timeout_s`. While lost, I/O fails with ANA
// Inaccessible (a retryable path error); the watcher turns it accessible again when both
// answer and nothing is stuck in librbd any more.
// dataplane/src/backend/README.md ("rbd") says why, and what skiff does about exclusive-lock.
#pragma once

#include "skiff/core/status.hpp"
#include "skiff/nvmeof/target/block_device.hpp"

#include <rados/librados.h>
#include <rbd/librbd.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace skiff::dataplane {

struct RbdOptions {
    std::string pool;            // required
    std::string image;           // required
    std::string rados_namespace; // optional RADOS namespace inside the pool
    std::string conf_path = "/etc/ceph/ceph.conf";
    std::string client_name = "client.admin"; // "client.ID" (an ID alone gets "client." in front)
    std::string keyring;                      // empty: ceph.conf's (or librados' default search)
    uint32_t queue_depth = 128;               // librbd I/O in flight per poll group
    uint32_t connect_timeout_s = 10;          // client_mount_timeout: how long open waits
    uint32_t op_timeout_s = 10;               // rados_osd/mon_op_timeout; the I/O age watchdog's bound
    uint32_t probe_interval_ms = 1000;        // how often the watcher checks reachability
    uint64_t size_bytes = 0;                  // 0: the image's size; else at most that
};

class RbdDevice final : public nvmeof::target::BlockDevice {
  public:
    // Connects, opens the image and starts the watcher. Every error names the pool/image, the
    // ceph.conf path and the client, and says what failed.
    static Result<std::shared_ptr<RbdDevice>> open(const RbdOptions &options);
    ~RbdDevice() override;
    RbdDevice(const RbdDevice &) = delete;
    RbdDevice &operator=(const RbdDevice &) = delete;

    const char *kind() const override { return "rbd"; }
    uint64_t size_bytes() const override { return size_.load(std::memory_order_acquire); }
    // The image is resized (rbd_resize) when it is smaller; other gateways serving it see the
    // new size at their own resize.
    Status grow(uint64_t new_size_bytes) override;
    uint32_t min_block_size() const override { return 512; }
    // librbd's discard may skip partial objects (rbd_skip_partial_discard): no zeroes promised.
    nvmeof::target::DeallocateMode deallocate_mode() const override {
        return nvmeof::target::DeallocateMode::kUnspecified;
    }
    // The client-side cache is off (rbd_cache=false): a completed write is on the OSDs.
    bool volatile_write_cache() const override { return false; }
    Result<std::unique_ptr<nvmeof::target::IoChannel>>
    open_channel(nvmeof::target::PollContext &ctx, const nvmeof::target::ChannelParams &params) override;

    // Fused Compare and Write goes to librbd as one rbd_aio_compare_and_write (atomic on the
    // OSD, against every gateway) when librbd takes the range: inside one 512-byte sector
    // (librbd 16.x refuses anything larger with -EINVAL; backend README).
    bool atomic_compare_and_write(uint64_t offset, uint64_t len) const override {
        return fits_atomic_compare_and_write(offset, len);
    }
    static bool fits_atomic_compare_and_write(uint64_t offset, uint64_t len) {
        return len > 0 && offset % kAtomicCompareAndWriteUnit + len <= kAtomicCompareAndWriteUnit;
    }
    static constexpr uint64_t kAtomicCompareAndWriteUnit = 512;

    // Accessible = the watcher's probes answer, no I/O found the cluster gone since, and no
    // channel has an I/O inside librbd for longer than op_timeout_s.
    bool accessible() const override { return (state_.load(std::memory_order_acquire) & kDownMask) == 0; }
    uint64_t ana_changes() const override { return state_.load(std::memory_order_acquire) >> kChangesShift; }

    // Any thread: an I/O found the cluster unreachable (timeout, disconnected). The namespace
    // turns inaccessible now; the watcher brings it back.
    void mark_lost(int err);
    // A channel's watchdog (any thread, CLOCK_MONOTONIC_COARSE ms): a watcher probe that has not
    // returned for op_timeout_s marks the image lost (librados was seen not to bound a mon
    // command sent while the monitor went away, and a hung probe must not hide the loss).
    void check_probe(uint64_t now_ms);
    static uint64_t monotonic_ms();
    // A channel's watchdog (its poll group's thread): it has (true) / no longer has (false) an
    // I/O inside librbd for longer than op_timeout_s. Inaccessible while any channel has.
    void set_stalled(bool stalled);
    // The image has exclusive-lock (writes answered early by the watchdog rely on it).
    bool exclusive_lock() const { return exclusive_lock_; }

    rbd_image_t image() const { return image_; }
    const RbdOptions &options() const { return options_; }
    // "pool/namespace/image" for logs and errors.
    const std::string &label() const { return label_; }

  private:
    explicit RbdDevice(RbdOptions options);
    Status connect();
    void watch_loop();
    bool probe();
    void set_lost(bool lost);

    RbdOptions options_;
    std::string label_;
    rados_t cluster_ = nullptr;
    rados_ioctx_t ioctx_ = nullptr;
    rbd_image_t image_ = nullptr;
    std::string header_object_; // the image's header: the probe's OSD read
    std::atomic<uint64_t> size_{0};
    // One word, so a change of "accessible" and its count move together without a lock:
    // bit 0 lost (the watcher or an I/O), bits 1..31 stalled channels, bits 32..63 ANA changes.
    static constexpr uint64_t kLost = 1, kStalledOne = 2, kDownMask = 0xFFFFFFFFull;
    static constexpr int kChangesShift = 32;
    std::atomic<uint64_t> state_{0};
    std::atomic<uint64_t> probe_started_ms_{0}; // the watcher's probe running since; 0: none
    bool exclusive_lock_ = false;
    // Applies f to the state; counts an ANA change (and logs it) when accessibility flips.
    template <typename F>
    void update_state(F f, const char *why);
    std::thread watcher_;
    std::mutex mu_; // the watcher's sleep only (never taken by a poll group)
    std::condition_variable wake_;
    bool stop_ = false;
};

} // namespace skiff::dataplane
