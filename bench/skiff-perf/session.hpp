// What skiff-perf needs from a transport: a connected controller's namespace geometry and its
// I/O queues, each able to submit NVMe commands without waiting and to hand back completions
// when polled. TCP implements it on the in-repo initiator (tcp_session.cpp); an RDMA session
// plugs in the same way (connect_session() picks by PerfOptions::transport).
#pragma once

#include "options.hpp"

#include "skiff/core/status.hpp"
#include "skiff/nvmeof/wire/command.hpp"

#include <cstdint>
#include <memory>
#include <string>

namespace skiff::perf {

struct IoCompletion {
    uint64_t tag = 0;
    uint16_t status = 0; // CQE status field (phase bit included)
    bool ok() const { return (status >> 1) == 0; }
};

// One read or write of `len` bytes at `lba` to (write) or from (read) `data`, which stays
// untouched until its completion is polled.
struct IoCommand {
    uint64_t lba = 0;
    uint32_t nlb = 0;
    uint32_t len = 0;
    void *data = nullptr;
    uint64_t tag = 0;
    bool write = false;
};

// What the transport did for the I/Os so far: system calls that sent, that received bytes,
// and receives that found nothing (busy polling).
struct TransportCalls {
    uint64_t sends = 0, reads = 0, empty_reads = 0;
};

// One I/O queue; driven by exactly one thread. Calls take whole batches, so a run costs one
// (virtual) call per batch, not per command.
class IoQueue {
  public:
    virtual ~IoQueue() = default;
    // Sends the commands, in one system call when the transport can.
    virtual Status submit(const IoCommand *cmds, uint32_t count) = 0;
    // Takes whatever the target has sent so far, without waiting, and hands back up to `max`
    // completions (the rest wait for the next poll).
    virtual Result<uint32_t> poll(IoCompletion *out, uint32_t max) = 0;
    virtual TransportCalls calls() const = 0;
};

struct NamespaceGeometry {
    uint32_t block_size = 512;
    uint64_t blocks = 0;
    uint32_t max_transfer = 0; // bytes per command
};

class Session {
  public:
    virtual ~Session() = default;
    virtual const NamespaceGeometry &geometry() const = 0;
    virtual size_t queue_count() const = 0;
    virtual IoQueue &queue(size_t i) = 0;
    // One line for the banner: transport, address, controller model.
    virtual std::string describe() const = 0;
    virtual Status shutdown() = 0;
};

Result<std::unique_ptr<Session>> connect_session(const PerfOptions &o);
Result<std::unique_ptr<Session>> connect_tcp_session(const PerfOptions &o);

} // namespace skiff::perf
