// The storage behind a namespace, as the controller sees it. nvmeof knows nothing of backends:
// dataplane implements this (null, RAM, aio, later host memory) and hands it to a Namespace.
//
// I/O is asynchronous, in the shape of SPDK's io_channel: each poll group opens one IoChannel
// per device (BlockDevice::open_channel, on the group's thread, through the group's
// PollContext) and submits BackendIo descriptors to it. A descriptor is preallocated (embedded
// in the Request); submitting one allocates nothing and takes no lock. Its `done` callback runs
// exactly once, on the poll group thread: inline from submit() for synchronous backends (null,
// RAM), later from the group's loop for asynchronous ones (aio: an eventfd in the group's
// epoll set; host memory: DMA tasks completing through the group's doca_pe).
//
// Lifetime rules (namespaces come and go at runtime):
// - A channel belongs to one poll group and is used, and destroyed, only on its thread.
// - The device outlives its channels (the poll group's channel table holds a shared_ptr).
// - A channel is destroyed only when in_flight() == 0 (the poll group drains it first), so the
//   buffers of in-flight I/O and the callbacks they complete into stay valid.
// - The Request (and its Namespace) a descriptor belongs to must outlive the I/O: connections
//   are destroyed only when their queue has no backend I/O in flight (Queue::io_in_flight).
#pragma once

#include "skiff/core/status.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace skiff::nvmeof::target {

class PollContext;

enum class IoOp : uint8_t {
    kRead,        // device -> buf
    kWrite,       // buf -> device
    kCompare,     // compare the stored bytes with buf: NVME_SC_COMPARE_FAILED when they differ
    kWriteZeroes, // the range reads back as zeroes
    kDeallocate,  // the range may be deallocated (see BlockDevice::deallocate_mode)
    kFlush,       // make completed writes durable (offset and len unused)
    // Fused Compare and Write in one step, atomic on the device: compare the stored bytes with
    // buf and, only when they are equal, store write_buf; NVME_SC_COMPARE_FAILED (nothing
    // written) when they differ. Sent only where BlockDevice::atomic_compare_and_write says yes.
    kCompareAndWrite,
};

class IoChannel;

// A read's bytes left in the device's memory (a RAM namespace) for the transport to send from,
// instead of a copy in the request's buffer: the NVMe/TCP socket copies them anyway. The
// transport embeds one per request and holds it with IoChannel::hold_view() until the bytes are
// on their way (or copied out); the channel meanwhile keeps the device (in_flight() counts held
// views) and, before an operation of its own changes any of those bytes, has the holder copy
// them out (materialize), so a read still returns the bytes as they were when it completed.
struct HeldView {
    const uint8_t *bytes = nullptr;
    uint64_t offset = 0; // the device range the bytes are
    uint64_t len = 0;
    IoChannel *channel = nullptr;
    // Copies the bytes into the holder's own buffer and stops using `bytes`. Called by the
    // channel, which has already let go of the view.
    void (*materialize)(HeldView &) = nullptr;
    void *owner = nullptr;                     // for `materialize`
    HeldView *prev = nullptr, *next = nullptr; // the channel's list of held views
};

// One I/O handed to a channel. Preallocated by its owner; the channel only reads the fields
// above the line and uses `next` while the I/O waits inside it.
struct BackendIo {
    IoOp op = IoOp::kRead;
    uint64_t offset = 0;       // bytes; a multiple of the namespace block size
    uint64_t len = 0;          // bytes; a multiple of the namespace block size
    void *buf = nullptr;       // read destination, write source or compare's expected bytes
    void *write_buf = nullptr; // kCompareAndWrite: what is written when the compare matches
    // Write only: durable before `done` runs (the command's FUA bit, or the host turned the
    // volatile write cache off). Backends without a volatile cache have nothing more to do.
    bool fua = false;
    // Runs once when the I/O is over, on the channel's poll group thread; status is an NVMe
    // status field (0 = success, else wire::Status::make()). May submit new I/O.
    void (*done)(BackendIo &io, uint16_t status) = nullptr;
    void *owner = nullptr; // for `done` (the command layer puts its Request here)
    // kRead only: the submitter can take the data as a view of the device's memory instead of a
    // copy in buf (see HeldView).
    bool view_ok = false;
    // ---- set by the channel
    // With view_ok, a channel whose device holds the bytes in memory may point `view` at them
    // and leave buf alone; `view_channel` is then the channel to hold the view with. Unless
    // held, the view is valid only until `done` returns.
    const uint8_t *view = nullptr;
    IoChannel *view_channel = nullptr;
    BackendIo *next = nullptr; // the channel's wait list (I/O submitted while it is full)
};

// What a channel needs to size its preallocated resources.
struct ChannelParams {
    uint32_t max_io_bytes = 128 * 1024; // the largest single I/O (the target's max transfer)
    uint32_t queue_depth = 0;           // 0: the backend's own default
};

class IoChannel {
  public:
    virtual ~IoChannel() = default;
    // Starts io, or queues it inside the channel when the channel is at its depth; never
    // refuses. io.done runs exactly once (possibly before submit returns).
    virtual void submit(BackendIo &io) = 0;
    // I/O submitted whose `done` has not run yet (and read views still held).
    virtual uint32_t in_flight() const = 0;
    // Keeps a view this channel returned (BackendIo::view) valid past `done`, until released or
    // materialized. Only channels that return views implement these.
    virtual void hold_view(HeldView &view) { (void)view; }
    virtual void release_view(HeldView &view) { (void)view; }
};

// What a namespace may promise about Deallocate (Identify Namespace DLFEAT, Identify
// Controller ONCS).
enum class DeallocateMode : uint8_t {
    kUnsupported, // Deallocate does nothing (it is advisory); ONCS does not advertise DSM
    kUnspecified, // ranges may be deallocated; they may not read back as zeroes
    kReadsZeroes, // deallocated ranges read back as zeroes (DLFEAT 001b)
};

class BlockDevice {
  public:
    virtual ~BlockDevice() = default;

    // A short name for logs: "ram", "null", "aio".
    virtual const char *kind() const = 0;
    // Capacity in bytes (a multiple of the namespace block size). May grow while I/O runs
    // (grow()): readers on the I/O path see the old or the new value, both valid.
    virtual uint64_t size_bytes() const = 0;
    // Grows the device to new_size_bytes (larger than today) while I/O runs; control plane.
    // Bytes already stored stay where they are. Backends that cannot grow refuse.
    virtual Status grow(uint64_t new_size_bytes) {
        (void)new_size_bytes;
        return make_error(DOCA_ERROR_NOT_SUPPORTED, std::string("the ") + kind() + " backend cannot grow");
    }
    // The smallest I/O unit the device takes; the namespace block size must be a multiple.
    virtual uint32_t min_block_size() const { return 512; }
    virtual DeallocateMode deallocate_mode() const = 0;
    // Whether a completed write may still be lost when power goes (a page cache, a disk's
    // cache): Identify Controller VWC, and the reason Flush and FUA exist. Memory backends
    // keep nothing that a flush would make safer.
    virtual bool volatile_write_cache() const { return false; }

    // Whether a fused Compare and Write of [offset, offset + len) can go to the device as one
    // kCompareAndWrite that the device itself makes atomic (rbd: against every gateway writing
    // the image). Otherwise the command layer compares, then writes, holding the namespace's
    // I/O gate: atomic against this target's own I/O only. Cheap: asked per fused pair.
    virtual bool atomic_compare_and_write(uint64_t offset, uint64_t len) const {
        (void)offset;
        (void)len;
        return false;
    }

    // Opens this device's channel for one poll group. Called on that group's thread.
    virtual Result<std::unique_ptr<IoChannel>> open_channel(PollContext &ctx,
                                                            const ChannelParams &params) = 0;

    // Asymmetric namespace access (ana.cpp): false while the storage cannot be reached through
    // this target (hostmem: the host agent is gone); its I/O then fails with ANA Inaccessible.
    // ana_changes() counts transitions, so controllers know when to raise the ANA change event.
    virtual bool accessible() const { return true; }
    virtual uint64_t ana_changes() const { return 0; }
};

// Base for backends whose every operation finishes at once (null, RAM): they implement the
// operations below and get a channel that completes each I/O inline. The calls must not
// allocate or lock; each returns an NVMe status field.
class SyncBlockDevice : public BlockDevice {
  public:
    virtual uint16_t read(uint64_t offset, void *dst, size_t len) = 0;
    // The bytes of [offset, offset + len) in the device's own memory, for a read that takes a
    // view (BackendIo::view_ok); nullptr: the device has no such memory and read() copies.
    virtual const uint8_t *read_view(uint64_t offset, size_t len) {
        (void)offset;
        (void)len;
        return nullptr;
    }
    virtual uint16_t write(uint64_t offset, const void *src, size_t len) = 0;
    // Sets `equal` to whether the stored bytes match `expected`.
    virtual uint16_t compare(uint64_t offset, const void *expected, size_t len, bool &equal) = 0;
    virtual uint16_t write_zeroes(uint64_t offset, size_t len) = 0;
    virtual uint16_t deallocate(uint64_t offset, size_t len) = 0;
    virtual uint16_t flush() = 0;

    // Runs io now; returns its status (what the inline channel passes to `done`).
    uint16_t run(BackendIo &io);
    Result<std::unique_ptr<IoChannel>> open_channel(PollContext &ctx, const ChannelParams &params) override;
};

} // namespace skiff::nvmeof::target
