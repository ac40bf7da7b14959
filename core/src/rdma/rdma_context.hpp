// doca_rdma: the RDMA context over rdma-core. One CQ and one shared receive queue per context,
// one RC QP per connection, all on the device's process-wide PD (verbs.hpp) so that an mmap is
// registered once per device. Connection events (RDMA-CM) and completions are both handled in
// poll_completion(), i.e. inside doca_pe_progress() on the PE's thread.
#pragma once

#include "exec/context.hpp"
#include "exec/task.hpp"
#include "rdma/verbs.hpp"

#include <doca_rdma.h>

#include <cstdint>
#include <vector>

struct rdma_cm_id;
struct rdma_event_channel;
struct ibv_cq;
struct ibv_srq;
struct ibv_comp_channel;
struct ibv_qp;
struct doca_dpa;
struct doca_dpa_completion;

namespace skiff::core::rdma {
struct DpaRdma;
}

namespace skiff::core::rdma {

// Defaults and limits (DOCA rounds queue sizes up to a power of two; so do we).
constexpr uint32_t default_queue_size = 64;
constexpr uint32_t max_queue_size = 4096;
constexpr uint16_t default_max_connections = 16;
constexpr uint8_t max_request_private_data = 56; // RDMA-CM over RoCE/IB: REQ private data
constexpr uint8_t max_accept_private_data = 196; // REP private data
constexpr size_t connection_blob_len = 32;
constexpr uint32_t max_recv_buf_list_len = 16; // SGEs per receive (rxe allows 32, mlx5 more)       //
                                               // doca_rdma_export's descriptor (connect_direct.cpp)

} // namespace skiff::core::rdma

// One connection slot. Its index in the context is the connection id (stable, small: the DPA
// side routes completions by it).
struct doca_rdma_connection {
    // exported: a QP made by doca_rdma_export (no RDMA-CM), waiting for doca_rdma_connect.
    enum class State : uint8_t { free, resolving, requested, accepting, exported, established, closing };

    doca_rdma *rdma = nullptr;
    uint32_t id = 0;
    State state = State::free;
    rdma_cm_id *cm_id = nullptr; // nullptr for a connection made by export / connect
    ibv_qp *qp = nullptr;        // the connection's QP (the cm_id's one, or owned directly)
    uint32_t qp_num = 0;
    uint32_t psn = 0;                                              // export / connect: our send PSN
    uint8_t export_blob[skiff::core::rdma::connection_blob_len]{}; // what doca_rdma_export returned
    doca_data user_data{};
    uint8_t private_data[skiff::core::rdma::max_request_private_data]{};
    uint8_t private_data_len = 0;
    uint32_t outstanding = 0; // send-queue work requests not yet completed
};

struct doca_rdma_addr {
    doca_rdma_addr_type type = DOCA_RDMA_ADDR_TYPE_IPv4;
    char address[64]{};
    uint16_t port = 0;
};

// Every RDMA task: the connection it goes through (the receiving one for a receive task).
struct doca_rdma_task_base : doca_task {
    doca_rdma_connection *conn = nullptr;
    doca_rdma_task_base *next_posted = nullptr; // receive tasks on the SRQ (stop flushes them)
    doca_rdma_task_base *prev_posted = nullptr;
};
struct doca_rdma_task_receive : doca_rdma_task_base {
    doca_buf *dst = nullptr;
    doca_rdma_opcode opcode = DOCA_RDMA_OPCODE_RECV_SEND;
    doca_be32_t imm = 0;
    uint32_t result_len = 0; // bytes of the completed receive
};
struct doca_rdma_task_send : doca_rdma_task_base {
    const doca_buf *src = nullptr;
};
struct doca_rdma_task_send_imm : doca_rdma_task_base {
    const doca_buf *src = nullptr;
    doca_be32_t imm = 0;
};
struct doca_rdma_task_read : doca_rdma_task_base {
    const doca_buf *src = nullptr; // remote
    doca_buf *dst = nullptr;
    uint32_t result_len = 0; // bytes the completed read brought
};
struct doca_rdma_task_write : doca_rdma_task_base {
    const doca_buf *src = nullptr;
    doca_buf *dst = nullptr; // remote
};
struct doca_rdma_task_write_imm : doca_rdma_task_base {
    const doca_buf *src = nullptr;
    doca_buf *dst = nullptr; // remote
    doca_be32_t imm = 0;
};

// Remote-net sync event tasks: an 8-byte RDMA read / write / fetch-add on the peer's counter.
struct doca_rdma_task_remote_net_sync_event_get : doca_rdma_task_base {
    const doca_sync_event_remote_net *event = nullptr;
    doca_buf *dst = nullptr;
};
struct doca_rdma_task_remote_net_sync_event_notify_set : doca_rdma_task_base {
    doca_sync_event_remote_net *event = nullptr;
    const doca_buf *src = nullptr;
};
struct doca_rdma_task_remote_net_sync_event_notify_add : doca_rdma_task_base {
    doca_sync_event_remote_net *event = nullptr;
    doca_buf *result = nullptr;
    uint64_t add = 0;
};

struct doca_rdma final : doca_ctx {
  public:
    explicit doca_rdma(doca_dev *dev);
    ~doca_rdma() override;

    doca_dev *dev() const { return dev_; }

    // ---- configuration (IDLE only; checked by the API)
    uint32_t permissions = DOCA_ACCESS_FLAG_LOCAL_READ_WRITE;
    uint32_t gid_index = 0;
    uint32_t send_queue_size = skiff::core::rdma::default_queue_size;
    uint32_t recv_queue_size = skiff::core::rdma::default_queue_size;
    uint16_t max_connections = skiff::core::rdma::default_max_connections;
    doca_rdma_transport_type transport_type = DOCA_RDMA_TRANSPORT_TYPE_RC;
    bool grh_enabled = false;       // export / connect: GRH on every path (always on RoCE)
    uint32_t recv_buf_list_len = 1; // most buffers in a receive task's destination list
    doca_rdma_connection_request_cb_t request_cb = nullptr;
    doca_rdma_connection_established_cb_t established_cb = nullptr;
    doca_rdma_connection_failure_cb_t failure_cb = nullptr;
    doca_rdma_connection_disconnection_cb_t disconnect_cb = nullptr;

    skiff::core::TypedTaskKind<doca_rdma_task_receive> receive_kind{"rdma receive"};
    skiff::core::TypedTaskKind<doca_rdma_task_send> send_kind{"rdma send"};
    skiff::core::TypedTaskKind<doca_rdma_task_send_imm> send_imm_kind{"rdma send_imm"};
    skiff::core::TypedTaskKind<doca_rdma_task_read> read_kind{"rdma read"};
    skiff::core::TypedTaskKind<doca_rdma_task_write> write_kind{"rdma write"};
    skiff::core::TypedTaskKind<doca_rdma_task_write_imm> write_imm_kind{"rdma write_imm"};
    skiff::core::TypedTaskKind<doca_rdma_task_remote_net_sync_event_get> se_get_kind{"rdma sync_event get"};
    skiff::core::TypedTaskKind<doca_rdma_task_remote_net_sync_event_notify_set> se_set_kind{
        "rdma sync_event notify_set"};
    skiff::core::TypedTaskKind<doca_rdma_task_remote_net_sync_event_notify_add> se_add_kind{
        "rdma sync_event notify_add"};

    // ---- DPA data path (rdma_dpa.cpp). Set in IDLE; with dpa set, the CQ's completions go to
    // dpa_comp through a verbs-CQ attachment and device code posts through dpa_handle().
    doca_error_t set_datapath_on_dpa(doca_dpa *dpa) override;
    doca_error_t attach_dpa_completion(doca_dpa_completion *comp);
    bool on_dpa() const { return dpa_ != nullptr; }
    // Device code posts and reaps: no PE is needed unless RDMA-CM is used (its events come
    // through one).
    bool runs_without_pe() const override { return on_dpa(); }
    // The device-side state (nullptr unless started on the DPA).
    skiff::core::rdma::DpaRdma *dpa_state() const { return dpa_state_; }
    const std::vector<doca_rdma_connection> &connections() const { return conns_; }

    // ---- connection management (RUNNING; the API checks the state)
    doca_error_t listen(uint16_t port);
    doca_error_t connect(const doca_rdma_addr &addr, doca_data user_data, const void *private_data,
                         uint8_t private_data_len);
    doca_error_t accept(doca_rdma_connection *conn, const void *private_data, uint8_t len);
    doca_error_t reject(doca_rdma_connection *conn);
    doca_error_t disconnect(doca_rdma_connection *conn);
    // ---- connection without RDMA-CM (connect_direct.cpp): a QP and its descriptor, then the peer's
    doca_error_t export_connection(const void **blob, size_t *len, doca_rdma_connection **conn);
    doca_error_t connect_direct(const void *blob, size_t len, doca_rdma_connection *conn);

  protected:
    doca_error_t on_start() override;
    void on_stop_requested() override;
    void on_stopped() override;
    doca_error_t validate(const doca_task *task) const override;
    void execute(doca_task *task) override;
    doca_task *poll_completion() override;
    bool completions_pending() const override;

  private:
    doca_rdma_connection *free_slot();
    void handle_cm_event();
    doca_task *poll_cq();
    doca_error_t create_qp(doca_rdma_connection *conn);
    doca_error_t create_direct_qp(doca_rdma_connection *conn);
    void release(doca_rdma_connection *conn);
    void fail_connection(doca_rdma_connection *conn);
    void reap_closing();
    void complete_now(doca_task *task, doca_error_t status);
    doca_error_t post(doca_rdma_task_base *task);
    bool is_sync_event_task(const doca_task *task) const {
        return task->kind == &se_get_kind || task->kind == &se_set_kind || task->kind == &se_add_kind;
    }
    doca_error_t post_sync_event(doca_rdma_task_base *task); // remote_sync_event_tasks.cpp
    void sync_event_done(doca_rdma_task_base *task);         // on success: the local buffer's length
    doca_error_t local_sge(const doca_buf *buf, bool tail, uint64_t *addr, uint32_t *len, uint32_t *lkey);
    void link_posted(doca_rdma_task_base *t);
    void unlink_posted(doca_rdma_task_base *t);
    void teardown();
    doca_error_t start_dpa_datapath();
    void stop_dpa_datapath();

    doca_dev *dev_;
    skiff::core::rdma::VerbsDevice vd_{};
    rdma_event_channel *channel_ = nullptr;
    rdma_cm_id *listen_id_ = nullptr;
    ibv_cq *cq_ = nullptr;
    ibv_srq *srq_ = nullptr;
    std::vector<doca_rdma_connection> conns_;
    uint32_t active_conns_ = 0;
    // Tasks that finished without reaching the hardware (bad buffers, no connection, post
    // failure) or flushed by stop from the SRQ; returned by poll_completion. Sized at start.
    std::vector<doca_task *> done_now_;
    size_t done_now_head_ = 0;
    doca_rdma_task_base *posted_recvs_ = nullptr;
    // DPA data path
    doca_dpa *dpa_ = nullptr;
    doca_dpa_completion *dpa_comp_ = nullptr;
    ibv_comp_channel *comp_channel_ = nullptr;
    skiff::core::rdma::DpaRdma *dpa_state_ = nullptr;
};
