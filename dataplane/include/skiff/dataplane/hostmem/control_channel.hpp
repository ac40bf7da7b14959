// The control channel between skiff-host (the host-side agent that exports host memory) and the
// target's hostmem backend (on the DPU). It carries only control: the export descriptor and the
// revocation notice; the data moves by DMA. It is a DOCA Comch channel, as DOCA storage
// applications use across the PCIe boundary: the target runs the comch server on its DPU PF for
// the representor of the host function, skiff-host is a comch client on that function, and the
// channel's name (skiff-host --channel, skiff-target --hostmem-channel) is the server name.
//
// What travels is text lines, host to target only:
//   "EXPORT <hex descriptor> <host address> <length> <generation>"  as soon as the client connects
//   "REVOKED <generation>"                                           when the host revokes (SIGTERM)
// A comch message holds at most 4080 bytes, so a line goes as one or more fragments: each starts
// with '+' (more follow) or '.' (the line's last). The server's disconnect event (the client
// stopped or its process died) means the host is gone.
//
// Trust (core/src/comch/README.md): the comch server admits only clients of root, its own uid and
// SKIFF_COMCH_PEER_UIDS. Before each EXPORT line the client hands the export's files over the
// connection (skiff::core::comch::send_export_files), so a target running as another user imports
// without opening /proc/<pid>/fd; the server takes an EXPORT only when its descriptor names the
// process at the other end of that connection.
#pragma once

#include "skiff/core/status.hpp"

#include <doca_comch.h>

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

struct doca_pe;
struct doca_mmap;

namespace skiff::dataplane::hostmem {

// One export of host memory, as the target needs it to import and address the region.
struct ExportRecord {
    std::vector<uint8_t> descriptor; // doca_mmap_export_pci output
    uint64_t host_addr = 0;          // the region's address in the host process
    uint64_t length = 0;
    uint64_t generation = 0; // grows with every export skiff-host makes
};

// The lines of the channel.
std::string export_line(const ExportRecord &record);
Result<ExportRecord> parse_export_line(const std::string &line);

// Splits a line into comch messages of at most max_msg bytes (fragments, see above).
std::vector<std::string> split_line(const std::string &line, size_t max_msg);

// Reassembles lines from fragments, one assembler per connection.
class LineAssembler {
  public:
    // Takes one received message; true with `line` set when it completed a line. A malformed
    // fragment or a line beyond kMaxLine discards what was pending.
    bool add(const uint8_t *msg, size_t len, std::string &line);
    static constexpr size_t kMaxLine = 64 << 10;

  private:
    std::string pending_;
    bool skipping_ = false; // inside a line beyond kMaxLine: dropped up to its last fragment
};

// Target side (DPU): the comch server skiff-host connects to. One thread calls wait().
class ControlServer {
  public:
    enum class Event { none, exported, lost };

    // A server called `name` on the DPU PF `dpu` for the host function `host_pci` (empty: the
    // first host function whose representor the PF lists). Started: listening on return.
    static Result<std::unique_ptr<ControlServer>> create(doca_dev *dpu, const std::string &host_pci,
                                                         const std::string &name);
    ~ControlServer();
    ControlServer(const ControlServer &) = delete;
    ControlServer &operator=(const ControlServer &) = delete;

    // Progresses the channel for up to timeout_ms. `exported` with `out` set when a host sent its
    // export (it replaces any earlier one); `lost` when the host whose export is current revoked
    // it or went away.
    Event wait(int timeout_ms, ExportRecord &out);
    // For logs: "comch <name> on host function <pci>".
    const std::string &address() const { return address_; }

  private:
    ControlServer() = default;
    static void on_recv(doca_comch_event_msg_recv *, uint8_t *msg, uint32_t len, doca_comch_connection *conn);
    static void on_connect(doca_comch_event_connection_status_changed *, doca_comch_connection *conn,
                           uint8_t ok);
    static void on_disconnect(doca_comch_event_connection_status_changed *, doca_comch_connection *conn,
                              uint8_t ok);
    static void on_send_done(doca_comch_task_send *task, doca_data task_data, doca_data ctx_data);
    static ControlServer *of(doca_comch_connection *conn);
    void take_line(doca_comch_connection *conn, const std::string &line);

    doca_pe *pe_ = nullptr;
    doca_dev_rep *rep_ = nullptr;
    doca_comch_server *server_ = nullptr;
    std::string address_;
    std::map<doca_comch_connection *, LineAssembler> peers_;
    doca_comch_connection *current_ = nullptr; // the host whose export is current
    Event event_ = Event::none;
    ExportRecord record_;
};

// Host side: the comch client on the host function. Sends the export whenever it (re)connects:
// a target that starts later, or restarts, gets it without skiff-host restarting.
class ControlClient {
  public:
    // `exported` is the mmap whose PCI export (with host_function) export_line carries: its files
    // go to the target ahead of the line.
    static Result<std::unique_ptr<ControlClient>> create(doca_dev *host_function, const std::string &name,
                                                         const doca_mmap *exported, std::string export_line);
    ~ControlClient();
    ControlClient(const ControlClient &) = delete;
    ControlClient &operator=(const ControlClient &) = delete;

    // Keeps the channel up (connects, sends the export, reconnects when the target goes) until
    // stop_fd becomes readable.
    void serve(int stop_fd);
    // Sends `line` if connected, waits until it is delivered (or the target is gone), then stops.
    void send_and_close(const std::string &line);
    const std::string &address() const { return address_; }

  private:
    ControlClient() = default;
    static void on_send_done(doca_comch_task_send *task, doca_data task_data, doca_data ctx_data);
    bool running() const;
    bool send(const std::string &line);
    bool send_export();
    void progress_for(int timeout_ms, int stop_fd);

    doca_pe *pe_ = nullptr;
    doca_comch_client *client_ = nullptr;
    doca_dev *dev_ = nullptr;
    const doca_mmap *exported_ = nullptr;
    std::string address_;
    std::string export_line_;
    std::deque<std::string> out_; // fragments in flight (a deque: their bytes stay put until delivered)
    size_t in_flight_ = 0;
    bool was_running_ = false;
};

// Hex encoding of descriptors on the channel.
std::string to_hex(const uint8_t *data, size_t len);
bool from_hex(const std::string &text, std::vector<uint8_t> &out);

} // namespace skiff::dataplane::hostmem
