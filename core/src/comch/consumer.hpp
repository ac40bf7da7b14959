// doca_comch_consumer: the receiving end of the Comch data path. Start binds the consumer's
// datagram socket and returns IN_PROGRESS; the first progress announces the consumer on its comch
// connection (consumer_new frame) and makes it RUNNING. Posted receive tasks wait in a FIFO;
// progress receives the oldest waiting datagram straight into the oldest posted buffer (no copy
// in between). Stop announces the expiry, closes the socket and flushes posted tasks.
#pragma once

#include "comch/data_path.hpp"
#include "exec/context.hpp"
#include "exec/task.hpp"

#include <doca_comch_consumer.h>

#include <string>

struct doca_buf;
struct doca_mmap;
struct doca_comch_connection;

struct doca_comch_consumer_task_post_recv : doca_task {
    doca_buf *buf = nullptr;
    uint32_t producer_id = 0;
    uint32_t imm_len = 0;
    uint8_t imm[skiff::core::comch::kMaxImmDataLen]{};
    doca_comch_consumer_task_post_recv *next_posted = nullptr;
};

struct doca_comch_consumer final : doca_ctx {
  public:
    doca_comch_consumer(doca_comch_connection *conn, doca_mmap *mmap);
    ~doca_comch_consumer() override;

    uint32_t id() const { return id_; }
    doca_mmap *mmap() const { return mmap_; }
    uint32_t imm_data_len() const { return imm_data_len_; }
    doca_error_t set_imm_data_len(uint32_t len);
    doca_error_t set_recv_conf(doca_comch_consumer_task_post_recv_completion_cb_t ok,
                               doca_comch_consumer_task_post_recv_completion_cb_t err, uint32_t num_tasks);
    doca_error_t alloc_recv(doca_buf *buf, doca_comch_consumer_task_post_recv **out);

  protected:
    doca_error_t on_start() override;
    bool starts_asynchronously() const override { return true; }
    void on_stop_requested() override;
    void on_stopped() override;
    doca_error_t validate(const doca_task *task) const override;
    void execute(doca_task *task) override;
    doca_task *poll_completion() override;
    bool completions_pending() const override;
    bool deliver_event() override;
    bool events_pending() const override;

  private:
    bool announce(bool created);
    bool receive_one();
    void finish(doca_comch_consumer_task_post_recv *task, doca_error_t status);
    void close_socket();

    doca_comch_connection *conn_;
    doca_mmap *mmap_;
    uint32_t id_;
    uint32_t imm_data_len_ = skiff::core::comch::kMaxImmDataLen;
    skiff::core::TypedTaskKind<doca_comch_consumer_task_post_recv> recv_kind_{"post_recv"};
    int fd_ = -1;
    std::string path_;
    bool announced_ = false;
    // Posted tasks (FIFO) and the finished task waiting for delivery: one receive per progress
    // call, so at most one is ever finished and undelivered, except at stop (flush walks the FIFO).
    doca_comch_consumer_task_post_recv *posted_head_ = nullptr;
    doca_comch_consumer_task_post_recv *posted_tail_ = nullptr;
    doca_comch_consumer_task_post_recv *done_head_ = nullptr;
    doca_comch_consumer_task_post_recv *done_tail_ = nullptr;
};
