// A transport (TCP now, RDMA later) as the dataplane sees it: listen on an address, turn an
// accepted socket into a Connection. The command layer's side of a transport is
// target::TransportOps (queue_response); the two together are the transport's ops table.
#pragma once

#include "skiff/core/status.hpp"
#include "skiff/nvmeof/target/port.hpp"
#include "skiff/nvmeof/target/target.hpp"
#include "skiff/nvmeof/transport/connection.hpp"
#include "skiff/nvmeof/transport/ip_address.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace skiff::nvmeof::transport {

struct ListenAddress {
    std::string host; // numeric IPv4 or IPv6, without brackets: "10.0.0.1", "::1"
    uint16_t port = 0;
    std::string trtype = "tcp"; // which transport serves it: "tcp" or "rdma"
    target::SecureChannel secure_channel = target::SecureChannel::kNone; // tcp: TLS none/optional/required
    bool allow_plaintext_psk_hosts = false; // optional TLS: hosts with a PSK may skip it (Port)

    std::string str() const { return host_port(host, port); } // "10.0.0.1:4420", "[::1]:4420"
};

// Parses "ADDR:PORT" (IPv4) or "[ADDR]:PORT" (IPv6); the host is kept in its canonical form
// (canonical_ip). The error names the text and the expected form.
Result<ListenAddress> parse_listen_address(const std::string &text);

class Transport {
  public:
    virtual ~Transport() = default;
    virtual const char *name() const = 0;
    // A non-blocking listening fd bound to addr (port 0 picks a free port); the error names
    // the address and the errno text.
    virtual Result<int> listen(const ListenAddress &addr) = 0;
    // The port a listening fd ended up with.
    virtual uint16_t bound_port(int listen_fd) const = 0;
    // Accepts one pending connection, or nullptr when none is pending. `group` is the index of
    // the poll group that will drive it (resources shared per group, e.g. an RDMA shared
    // receive queue, are chosen by it).
    virtual std::unique_ptr<Connection> accept(int listen_fd, target::Target &target,
                                               const target::Port &port, int group) = 0;
    // For grace periods (live namespace removal): appends one run sequence per thread outside
    // the poll groups that runs command code (odd while it runs, advanced per run; see
    // skiff/core/dpa_quiescence.hpp). Transports whose queues all run on poll groups append
    // nothing. Any thread may call it.
    virtual void append_run_sequences(std::vector<uint64_t> &) const {}
};

// Where a transport's I/O queues run their data path (nvmeof/TARGET.md, "The dpa data path").
// poll: on the poll group that owns the connection. dpa: NVMe/RDMA I/O queues process their
// completions on a DPA thread each, on `dpa_eus` emulated execution units; the admin queue and
// every TCP queue stay on the poll groups.
struct DataPathOptions {
    enum class Mode { poll, dpa };
    Mode mode = Mode::poll;
    unsigned dpa_eus = 1;
};

// "tcp" -> the NVMe/TCP transport; anything else is an error saying what exists.
Result<std::unique_ptr<Transport>> make_transport(std::string_view name,
                                                  const DataPathOptions &datapath = {});

} // namespace skiff::nvmeof::transport
