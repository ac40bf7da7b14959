// One command in flight: everything it needs from parse to completion. Requests are
// preallocated per queue by the transport (each transport embeds Request in its own slot) and
// reused; nothing here allocates.
#pragma once

#include "skiff/nvmeof/target/block_device.hpp"
#include "skiff/nvmeof/wire/command.hpp"

#include <cstdint>

namespace skiff::nvmeof::target {

class Queue;
class Namespace;

// Which way the command's data moves.
enum class DataDir : uint8_t { kNone, kHostToCtrl, kCtrlToHost };

struct Request;

// Where a command made of several backend I/Os in a row is (Copy, Verify; the driver is
// src/target/io_sequence.hpp). Set up by the command when it starts executing.
struct IoSequence {
    bool (*next)(Request &, uint16_t) = nullptr; // plans the next I/O, or completes the command
    uint16_t status = 0;                         // of an I/O that completed inline
    bool submitting = false;                     // inside IoChannel::submit: a completion is inline
    bool completed_inline = false;
    bool write_next = false; // Copy: the next I/O writes the chunk just read
    uint32_t range = 0;      // Copy: the Source Range entry being copied
    uint32_t chunk = 0;      // blocks in the I/O planned last
    uint64_t done = 0;       // blocks finished of that range (Verify: of the command)
    uint64_t dest = 0;       // Copy: the destination LBA of the next chunk
};

struct Request {
    wire::Sqe cmd{};
    wire::Cqe cqe{};
    uint8_t *buf = nullptr; // the command's data: the slot's buffer, or where the transport left
    uint32_t buf_cap = 0;   // the host's data in place (NVMe/RDMA in-capsule data)
    // The slot's own buffer (preallocated by the transport, the target's max transfer) whatever
    // buf points to: room for commands that move data inside the target (Copy, Verify).
    uint8_t *slot_buf = nullptr;
    uint32_t slot_cap = 0;
    uint32_t data_len = 0; // bytes the SGL describes (what the transport moves)
    DataDir dir = DataDir::kNone;
    Queue *queue = nullptr;
    Namespace *ns = nullptr;                        // set by I/O parse
    void (*execute)(Request &) = nullptr;           // chosen by parse
    Request *fused_partner = nullptr;               // the other half of a fused Compare and Write
    bool data_ready = false;                        // the host's data (if any) has arrived
    bool fused_waiting = false;                     // first half of a fused pair, waiting for its partner
    Request *next_deferred = nullptr;               // Queue's list of requests waiting for the I/O gate
    bool holds_gate = false;                        // entered ns->gate(); Queue::complete() leaves it
    uint32_t step = 0;                              // progress of commands made of several backend I/Os
    BackendIo io;                                   // the backend I/O in flight (io.owner = this)
    void (*io_done)(Request &, uint16_t) = nullptr; // what the command does when io completes
    IoSequence seq;                                 // commands of several I/Os in a row
    // Metrics on (Queue::admit): monotonic ns when the capsule was received; 0: not timed.
    uint64_t received_ns = 0;
    // QoS (qos_throttle.hpp): the queue's FIFO of requests over their namespace's limit, when
    // one was queued, its lane there, and whether it passed (run_deferred runs it again).
    Request *next_throttled = nullptr;
    uint64_t qos_since_ns = 0;
    uint8_t qos_lane = 0;
    bool qos_admitted = false;

    // The CQE status as sent (wire::Status layout; 0 = success).
    uint16_t status() const { return cqe.status; }
    void set_status(uint16_t wire_status) { cqe.status = wire_status; }
    void fail(uint8_t sct, uint8_t sc, bool dnr = true) { cqe.status = wire::Status::make(sct, sc, dnr); }
    bool failed() const { return cqe.status != 0; }

    // Resets everything but the slot's buffer for a new command.
    void reset() {
        cqe = {};
        data_len = 0;
        dir = DataDir::kNone;
        ns = nullptr;
        execute = nullptr;
        fused_partner = nullptr;
        data_ready = false;
        fused_waiting = false;
        next_deferred = nullptr;
        holds_gate = false;
        step = 0;
        received_ns = 0;
        next_throttled = nullptr;
        qos_admitted = false;
    }
};

} // namespace skiff::nvmeof::target
