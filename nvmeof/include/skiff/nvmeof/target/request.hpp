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

struct Request {
    wire::Sqe cmd{};
    wire::Cqe cqe{};
    uint8_t *buf = nullptr; // this slot's data buffer (preallocated by the transport)
    uint32_t buf_cap = 0;
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
    }
};

} // namespace skiff::nvmeof::target
