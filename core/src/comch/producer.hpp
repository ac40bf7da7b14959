// doca_comch_producer: the sending end of the Comch data path. RUNNING at start. A send is one
// datagram to the consumer's socket, written at submit; while the consumer's queue is full the
// task waits inside the ctx (FIFO, so sends keep their order) and progress retries it. The task
// completes inside progress: success, NOT_FOUND when no such consumer exists (never announced,
// or expired), NOT_CONNECTED once the comch connection has gone, SHUTDOWN when a stop flushed it.
#pragma once

#include "comch/data_path.hpp"
#include "exec/context.hpp"
#include "exec/task.hpp"

#include <doca_comch_producer.h>

#include <sys/types.h>

struct doca_buf;
struct doca_comch_connection;

struct doca_comch_producer_task_send : doca_task {
    const doca_buf *buf = nullptr;
    uint32_t consumer_id = 0;
    uint32_t imm_len = 0;
    uint8_t imm[skiff::core::comch::kMaxImmDataLen]{};
    doca_comch_producer_task_send *next = nullptr; // in the waiting or the done FIFO
};

struct doca_comch_producer final : doca_ctx {
  public:
    explicit doca_comch_producer(doca_comch_connection *conn);

    uint32_t id() const { return id_; }
    doca_error_t set_send_conf(doca_comch_producer_task_send_completion_cb_t ok,
                               doca_comch_producer_task_send_completion_cb_t err, uint32_t num_tasks);
    doca_error_t alloc_send(const doca_buf *buf, const uint8_t *imm, uint32_t imm_len, uint32_t consumer_id,
                            doca_comch_producer_task_send **out);

  protected:
    doca_error_t on_start() override;
    void on_stopped() override;
    doca_error_t validate(const doca_task *task) const override;
    void execute(doca_task *task) override;
    void on_stop_requested() override;
    doca_task *poll_completion() override;
    bool completions_pending() const override;

  private:
    // Writes the task's datagram: false while the consumer's queue is full (the task stays put),
    // else true with the outcome in the task's status.
    bool try_send(doca_comch_producer_task_send *send);
    void finish(doca_comch_producer_task_send *send);
    bool retry_waiting();

    doca_comch_connection *conn_;
    uint32_t id_;
    pid_t peer_pid_ = 0;
    int fd_ = -1;
    skiff::core::TypedTaskKind<doca_comch_producer_task_send> send_kind_{"send"};
    doca_comch_producer_task_send *waiting_head_ = nullptr;
    doca_comch_producer_task_send *waiting_tail_ = nullptr;
    doca_comch_producer_task_send *done_head_ = nullptr;
    doca_comch_producer_task_send *done_tail_ = nullptr;
};
