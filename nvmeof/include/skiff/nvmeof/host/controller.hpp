// An NVMe-oF controller as the host sees it over TCP: the admin queue (Connect, enable through
// Property Set CC.EN / CSTS.RDY, Identify, logs, features, Keep Alive) and N I/O queues.
//
// Admin calls are serialised by a mutex, so an automatic keep-alive thread can share the admin
// queue with the caller. I/O queues belong to the caller: one thread per queue.
//
//   ConnectOptions o;                       // 127.0.0.1:4420, fresh host NQN/ID, KATO 30 s
//   o.subnqn = "nqn.2026-11.io.skiff:default";
//   o.io_queues = 4;
//   auto ctrl = Controller::connect(o);     // Result<std::unique_ptr<Controller>>
//   if (!ctrl) log(ctrl.error().describe());
//   (*ctrl)->write(0, 1, lba, nlb, buf, len);            // synchronous, on I/O queue 0
//   TcpQueue &q = (*ctrl)->io_queue(1);                  // asynchronous: many in flight
//   q.submit(cmd::read(1, lba, nlb), DataDir::kControllerToHost, buf, len, tag);
//   q.poll(timeout); while (q.pop_completion(c)) ...
#pragma once

#include "skiff/core/status.hpp"
#include "skiff/nvmeof/host/dhchap.hpp"
#include "skiff/nvmeof/tls/psk.hpp"
#include "skiff/nvmeof/host/fabrics.hpp"
#include "skiff/nvmeof/host/tcp_queue.hpp"

#include <nvme/types.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <optional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace skiff::nvmeof::host {

struct ConnectOptions {
    std::string addr = "127.0.0.1";
    uint16_t port = 4420;
    std::string subnqn = NVME_DISC_SUBSYS_NAME; // the discovery subsystem unless told otherwise
    HostIdentity host = HostIdentity::generate();
    uint32_t kato_ms = 30000;    // 0: no keep-alive timer
    bool auto_keep_alive = true; // send Keep Alive every kato/2 from a background thread
    uint16_t admin_queue_size = 32;
    uint16_t io_queues = 1; // ignored for discovery controllers
    uint16_t io_queue_size = 128;
    bool header_digest = false;
    bool data_digest = false;
    uint8_t hpda = 0;
    bool disable_sq_flow_control = false;
    std::chrono::milliseconds timeout{10000};
    // DH-HMAC-CHAP secrets: every queue whose Connect response asks for authentication runs a
    // transaction with them (a controller that asks while no secret is set is an error).
    DhchapOptions dhchap;
    // NVMe/TCP over TLS 1.3: the configured PSK (interchange form parsed by
    // tls::parse_interchange); every queue offers the identity "NVMe0R0<h> <hostnqn> <subnqn>".
    std::optional<tls::ConfiguredPsk> tls_psk;
};

// The discovery log page (70h): header fields and every entry.
struct DiscoveryLog {
    uint64_t genctr = 0;
    uint16_t recfmt = 0;
    std::vector<nvmf_disc_log_entry> entries;
};

// One source range of a Copy: nlb blocks (1..65536, not 0's based) from slba.
struct CopyRange {
    uint64_t slba = 0;
    uint32_t nlb = 0;
};

// A fixed-width, space- or NUL-padded field of a spec structure as a string without padding.
std::string trim_field(const char *field, size_t width);

class Controller {
  public:
    // Connects the admin queue, enables the controller, reads Identify Controller and (for an
    // NVM subsystem) negotiates and connects the I/O queues.
    static Result<std::unique_ptr<Controller>> connect(const ConnectOptions &options);
    ~Controller();
    Controller(const Controller &) = delete;
    Controller &operator=(const Controller &) = delete;

    uint16_t cntlid() const { return cntlid_; }
    const nvme_id_ctrl &identity() const { return id_ctrl_; }
    bool is_discovery() const {
        return id_ctrl_.cntrltype == NVME_CTRL_CNTRLTYPE_DISCOVERY || discovery_nqn_;
    }
    uint64_t cap() const { return cap_; }
    // Largest transfer of one command: MDTS (in CAP.MPSMIN pages); 1 MiB when MDTS is 0 (no limit).
    uint32_t max_transfer_bytes() const;
    const ConnectOptions &options() const { return options_; }

    // Admin commands. admin() returns the raw completion (NVMe errors included); the named
    // calls fold an NVMe error into the returned Status.
    Result<Completion> admin(const wire::Sqe &sqe, DataDir dir = DataDir::kNone, void *data = nullptr,
                             uint32_t len = 0);
    Result<nvme_id_ctrl> identify_controller();
    Result<nvme_id_ns> identify_namespace(uint32_t nsid);
    Result<std::vector<uint32_t>> active_namespaces(uint32_t after_nsid = 0);
    Status get_log_page(uint8_t lid, uint32_t nsid, void *buf, uint32_t len, uint64_t offset = 0);
    Result<DiscoveryLog> discovery_log();
    Result<uint32_t> get_features(uint8_t fid, uint32_t nsid = 0, uint32_t cdw11 = 0);
    Result<uint32_t> set_features(uint8_t fid, uint32_t value, uint32_t nsid = 0);
    Status keep_alive();
    Result<uint64_t> property_get(uint32_t offset, bool eight_bytes);
    Status property_set(uint32_t offset, uint64_t value, bool eight_bytes);

    // Host-initiated re-authentication on an established queue (0: admin, 1..: I/O queue i-1):
    // a new DH-HMAC-CHAP transaction with the configured secrets.
    Result<DhchapResult> reauthenticate(uint16_t qid);
    // What the admin queue's authentication chose (nullopt: it did not authenticate).
    const std::optional<DhchapResult> &admin_auth() const { return admin_auth_; }
    // With secure channel concatenation (DhchapOptions::concat): the generated identity every
    // queue of this association offers, e.g. "NVMe1G01 <hostnqn> <subnqn> <digest>".
    std::string tls_identity() const { return tls_ ? tls_->identity : std::string(); }

    // Stops/starts the background keep-alive (started by connect() when auto_keep_alive and KATO).
    void start_keep_alive();
    void stop_keep_alive();

    size_t io_queue_count() const { return io_queues_.size(); }
    TcpQueue &io_queue(size_t i) { return *io_queues_.at(i); }
    TcpQueue &admin_queue() { return *admin_; }

    // Synchronous I/O on I/O queue `q`; len must be nlb * block size.
    Status read(size_t q, uint32_t nsid, uint64_t slba, uint32_t nlb, void *buf, uint32_t len);
    Status write(size_t q, uint32_t nsid, uint64_t slba, uint32_t nlb, const void *buf, uint32_t len);
    Status flush(size_t q, uint32_t nsid);
    Status write_zeroes(size_t q, uint32_t nsid, uint64_t slba, uint32_t nlb);
    Status deallocate(size_t q, uint32_t nsid, const std::vector<nvme_dsm_range> &ranges);
    // Verify: the controller reads the blocks and says whether it could (no data moves).
    Status verify(size_t q, uint32_t nsid, uint64_t slba, uint32_t nlb);
    // Copy (descriptor format 0h): each range in turn to consecutive blocks from sdlba.
    Status copy(size_t q, uint32_t nsid, uint64_t sdlba, const std::vector<CopyRange> &ranges);

    // Normal shutdown (CC.SHN, wait CSTS.SHST complete), then closes every queue. Idempotent.
    Status shutdown();

  private:
    explicit Controller(const ConnectOptions &options) : options_(options) {}
    Status connect_admin();
    // Secure channel concatenation: starts the association over on TLS with the PSK the plaintext
    // admin queue's authentication generated.
    Status restart_over_generated_tls();
    Status enable();
    Status connect_io_queues();
    // Authenticates a freshly connected queue when its Connect response set AUTHREQ.
    Result<std::optional<DhchapResult>> authenticate_if_required(TcpQueue &q, const Completion &connect);
    Result<Completion> admin_locked(const wire::Sqe &sqe, DataDir dir, void *data, uint32_t len);
    Status io(size_t q, const wire::Sqe &sqe, DataDir dir, void *buf, uint32_t len, const char *what);
    void keep_alive_loop();

    ConnectOptions options_;
    bool discovery_nqn_ = false;
    std::unique_ptr<TcpQueue> admin_;
    std::vector<std::unique_ptr<TcpQueue>> io_queues_;
    uint16_t cntlid_ = 0;
    uint16_t next_transaction_ = 1; // DH-HMAC-CHAP transaction ids, one per transaction
    std::optional<DhchapResult> admin_auth_;
    // The TLS PSK every queue offers: the configured one, or the one concatenation generated.
    std::optional<tls::SessionPsk> tls_;
    uint64_t cap_ = 0;
    nvme_id_ctrl id_ctrl_{};
    bool enabled_ = false; // CSTS.RDY seen: shutdown() then asks for CC.SHN
    bool shut_down_ = false;

    std::mutex admin_mu_;
    std::mutex ka_mu_;
    std::condition_variable ka_cv_;
    bool ka_stop_ = false;
    std::thread ka_thread_;
};

} // namespace skiff::nvmeof::host
