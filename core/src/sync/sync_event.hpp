// doca_sync_event: a 64-bit counter, used standalone (start/get/update/wait) or as a ctx whose
// tasks (get, notify_set, notify_add, wait_gt) complete inside doca_pe_progress().
#pragma once

#include "exec/context.hpp"
#include "exec/task.hpp"
#include "sync/update_signal.hpp"
#include "sync/wait_mask.hpp"

#include <doca_sync_event.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

struct ibv_mr;

struct doca_sync_event_task_get : doca_task {
    uint64_t *ret_val_ptr = nullptr;
};
struct doca_sync_event_task_notify_set : doca_task {
    uint64_t set_val = 0;
};
struct doca_sync_event_task_notify_add : doca_task {
    uint64_t inc_val = 0;
    uint64_t *fetched_val_ptr = nullptr;
};
struct doca_sync_event_task_wait_gt : doca_task {
    uint64_t wait_val = 0;
    uint64_t mask = 0;
};

struct doca_sync_event_task_wait_eq : doca_task {
    uint64_t wait_val = 0;
    uint64_t mask = 0;
};

struct doca_sync_event final : doca_ctx {
  public:
    enum class Use { undecided, standalone, ctx };

    doca_sync_event();
    ~doca_sync_event() override;

    // ---- configuration (before start)
    doca_error_t add_location(bool publisher, const char *where);
    doca_error_t set_addr(uint64_t *addr);
    // A DPA publisher or subscriber location was declared (needed for a DPA handle).
    bool has_dpa_location() const { return has_dpa_location_; }
    void add_dpa_location() { has_dpa_location_ = true; }
    // Remote-net publishers (remote_net.cpp): a peer updates the counter over RDMA, through the
    // device of a CPU location.
    void set_cpu_dev(doca_dev *dev) { cpu_dev_ = dev; }
    doca_dev *cpu_dev() const { return cpu_dev_; }
    void add_remote_net_location() { has_remote_net_location_ = true; }
    bool has_remote_net_location() const { return has_remote_net_location_; }
    uint64_t *counter_address() const { return external_value_ ? external_value_ : &own_value_; }
    // The registration and descriptor of doca_sync_event_export_to_remote_net (until destroy).
    struct RemoteNetExport {
        ibv_mr *mr = nullptr;
        uint8_t blob[32]{};
        size_t blob_len = 0;
        uint8_t pci_blob[16]{}; // doca_sync_event_export_to_remote_pci (remote_pci.cpp)
    };
    RemoteNetExport remote_export;
    // ---- standalone use
    doca_error_t start_standalone();
    doca_error_t stop_standalone();
    doca_ctx *as_ctx();
    Use use() const { return use_; }
    bool frozen() const { return standalone_started_ || state() != DOCA_CTX_STATE_IDLE; }
    // ---- the counter (standalone started or ctx RUNNING)
    bool operational() const { return standalone_started_ || state() == DOCA_CTX_STATE_RUNNING; }
    uint64_t load() const;
    void store(uint64_t value);
    uint64_t fetch_add(uint64_t value);
    void wait(uint64_t threshold, uint64_t mask, skiff::core::WaitOp op, bool yield_only);

    skiff::core::TypedTaskKind<doca_sync_event_task_get> get_kind{"sync_event get"};
    skiff::core::TypedTaskKind<doca_sync_event_task_notify_set> set_kind{"sync_event notify_set"};
    skiff::core::TypedTaskKind<doca_sync_event_task_notify_add> add_kind{"sync_event notify_add"};
    skiff::core::TypedTaskKind<doca_sync_event_task_wait_gt> wait_kind{"sync_event wait_gt"};
    skiff::core::TypedTaskKind<doca_sync_event_task_wait_eq> wait_eq_kind{"sync_event wait_eq"};

    // Remote-PCI export (remote_pci.cpp): the counter lives in a shared memory page (memfd) that an
    // importer in another process maps; an imported event maps the exporter's page.
    void add_remote_pci_location() { has_remote_pci_location_ = true; }
    bool has_remote_pci_location() const { return has_remote_pci_location_; }
    // Places the counter in shared memory (the exporter, at start; an importer, at creation).
    void use_shared_counter(uint64_t *addr, int fd, void *mapping, size_t mapping_len) {
        external_value_ = addr;
        shared_fd_ = fd;
        shared_mapping_ = mapping;
        shared_mapping_len_ = mapping_len;
    }
    int shared_fd() const { return shared_fd_; }
    bool user_set_addr() const { return external_value_ != nullptr && shared_mapping_ == nullptr; }

  protected:
    doca_error_t on_start() override;
    void on_stop_requested() override { flushing_ = true; }
    doca_error_t validate(const doca_task *task) const override;
    void execute(doca_task *task) override;
    doca_task *poll_completion() override;
    bool completions_pending() const override;

  private:
    std::atomic_ref<uint64_t> counter() const;
    bool ready(const doca_task *task) const;
    void run(doca_task *task);
    void updated();

    alignas(8) mutable uint64_t own_value_ = 0;
    uint64_t *external_value_ = nullptr;
    Use use_ = Use::undecided;
    bool standalone_started_ = false;
    bool has_publisher_ = false;
    bool has_subscriber_ = false;
    bool has_dpa_location_ = false;
    bool has_remote_net_location_ = false;
    bool has_remote_pci_location_ = false;
    int shared_fd_ = -1;
    void *shared_mapping_ = nullptr;
    size_t shared_mapping_len_ = 0;
    doca_dev *cpu_dev_ = nullptr;
    bool flushing_ = false;
    std::vector<doca_task *> submitted_; // ctx mode: tasks waiting to run, capacity fixed at start
    skiff::core::UpdateSignal signal_;
    // Updates between their first and last touch of this object. A waiter that saw the new value
    // may destroy the event at once; the destructor waits for these to leave first.
    std::atomic<uint32_t> updaters_{0};
};
