// The control channel between skiff-host (the host-side agent that exports host memory) and the
// target's hostmem backend (on the DPU). It carries only control: the export descriptor, health
// checks and the revocation notice; the data moves by DMA. Here it is a Unix stream socket
// (unix_control_channel.cpp); on real hardware a PCIe mailbox can implement the same two classes.
//
// The exchange is line based, one request and one reply per line:
//   EXPORT            -> "EXPORT <hex descriptor> <host address> <length> <generation>"
//                        or "NOEXPORT" while nothing is exported
//   HEALTH            -> "OK <generation> <length>"
//   BYTES <off> <len> -> "BYTES <hex>" (only with skiff-host --test-commands: lets a test check
//                        the bytes inside the host's memory)
// and one unsolicited line from the host: "REVOKED <generation>" when it revokes the export
// (SIGTERM). A closed channel means the host is gone.
#pragma once

#include "skiff/core/status.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace skiff::dataplane::hostmem {

// One export of host memory, as the target needs it to import and address the region.
struct ExportRecord {
    std::vector<uint8_t> descriptor; // doca_mmap_export_pci output
    uint64_t host_addr = 0;          // the region's address in the host process
    uint64_t length = 0;
    uint64_t generation = 0; // grows with every export skiff-host makes
};

// Target side: one connection to the host agent.
class ControlClient {
  public:
    virtual ~ControlClient() = default;
    // Reaches the host agent; fails while it is not there.
    virtual Status connect() = 0;
    // Asks for the current export.
    virtual Result<ExportRecord> fetch_export() = 0;
    // One request line, its reply line (HEALTH, BYTES).
    virtual Result<std::string> request(const std::string &line) = 0;
    // Waits up to timeout_ms for the host to revoke or vanish. True when it did (the channel is
    // closed then); false on timeout with the host still there.
    virtual bool wait_for_loss(int timeout_ms) = 0;
    virtual void close() = 0;
    // For logs: the channel's address.
    virtual const std::string &address() const = 0;
};

// Host side: answers the target's requests. handle() gets one request line and returns the reply
// line (without newline).
class ControlServer {
  public:
    using Handler = std::function<std::string(const std::string &request)>;
    virtual ~ControlServer() = default;
    virtual Status listen() = 0;
    // Serves requests until stop_fd becomes readable; returns then. Runs on the caller's thread.
    virtual void serve(const Handler &handle, int stop_fd) = 0;
    // Sends a line to every connected client (the revocation notice).
    virtual void broadcast(const std::string &line) = 0;
    virtual void close() = 0;
    virtual const std::string &address() const = 0;
};

std::unique_ptr<ControlClient> make_unix_control_client(std::string path);
std::unique_ptr<ControlServer> make_unix_control_server(std::string path);

// Hex encoding of descriptors and test byte dumps on the channel.
std::string to_hex(const uint8_t *data, size_t len);
bool from_hex(const std::string &text, std::vector<uint8_t> &out);

} // namespace skiff::dataplane::hostmem
