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

// One I/O queue; driven by exactly one thread.
class IoQueue {
  public:
    virtual ~IoQueue() = default;
    // Sends one command with `len` bytes of data to (write) or from (read) `data`, which stays
    // untouched until its completion is popped. more = another submit follows at once (the
    // transport may hold this one back to send both together).
    virtual Status submit(const nvmeof::wire::Sqe &sqe, bool write, void *data, uint32_t len, uint64_t tag,
                          bool more) = 0;
    // Takes whatever the target has sent so far, without waiting.
    virtual Status poll() = 0;
    virtual bool pop(IoCompletion &out) = 0;
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
