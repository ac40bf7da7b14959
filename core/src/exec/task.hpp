// Tasks: the generic doca_task every library task derives from, and TaskKind, one task type of a
// ctx (its callbacks and its fixed-size pool). Pools are built when the ctx starts and released when
// it is IDLE again, so allocation on the data path is a pop from a free list.
#pragma once

#include <doca_pe.h>

#include <cstdint>
#include <memory>
#include <vector>

namespace skiff::core {
class TaskKind;
}
struct doca_graph_instance;

// The part of a task common to every library: owner, kind, user data, status, ownership flags.
// Library tasks derive from it (struct doca_dma_task_memcpy : doca_task).
struct doca_task {
    doca_ctx *ctx = nullptr;
    skiff::core::TaskKind *kind = nullptr;
    doca_data user_data{};
    doca_error_t status = DOCA_SUCCESS;
    bool allocated = false; // taken from the pool and not yet freed
    bool in_flight = false; // submitted; owned by DOCA until its callback runs
    // Set while a graph instance runs the task as one of its ctx nodes: the completion goes to
    // the instance (doca_graph.h: a graph's tasks do not call their own callbacks).
    doca_graph_instance *graph_instance = nullptr;
    uint32_t graph_node = 0;
};

namespace skiff::core {

// One task type of a ctx ("memcpy", "wait_gt", ...).
class TaskKind {
  public:
    explicit TaskKind(const char *name) : name_(name) {}
    virtual ~TaskKind() = default;
    TaskKind(const TaskKind &) = delete;
    TaskKind &operator=(const TaskKind &) = delete;

    const char *name() const { return name_; }
    uint32_t capacity() const { return capacity_; }
    bool configured() const { return capacity_ > 0; }

    // Builds the pool of capacity() tasks (ctx start) / drops it (ctx back to IDLE).
    void build_pool(doca_ctx *owner);
    void release_pool();

    // A free task, or nullptr when all capacity() tasks are allocated.
    doca_task *take();
    void give_back(doca_task *task);
    // Tasks currently allocated by the application (in flight or held).
    uint32_t outstanding() const { return pool_built_ ? capacity_ - static_cast<uint32_t>(free_.size()) : 0; }

    // Runs the success or error callback of the task, depending on its status.
    virtual void deliver(doca_task *task, doca_data ctx_user_data) = 0;

  protected:
    void set_capacity(uint32_t num_tasks) { capacity_ = num_tasks; }
    // Creates capacity() task objects and returns them (stable addresses) for the free list.
    virtual void create_storage(std::vector<doca_task *> &out) = 0;
    virtual void destroy_storage() = 0;

  private:
    const char *name_;
    uint32_t capacity_ = 0;
    bool pool_built_ = false;
    std::vector<doca_task *> free_;
};

// A task kind whose tasks are of type T (deriving from doca_task) with callbacks of type
// void (*)(T *, doca_data task_user_data, doca_data ctx_user_data).
template <typename T>
class TypedTaskKind final : public TaskKind {
  public:
    using Callback = void (*)(T *, doca_data, doca_data);
    using TaskKind::TaskKind;

    void configure(Callback on_success, Callback on_error, uint32_t num_tasks) {
        on_success_ = on_success;
        on_error_ = on_error;
        set_capacity(num_tasks);
    }

    T *take_typed() { return static_cast<T *>(take()); }

    void deliver(doca_task *task, doca_data ctx_user_data) override {
        Callback cb = task->status == DOCA_SUCCESS ? on_success_ : on_error_;
        cb(static_cast<T *>(task), task->user_data, ctx_user_data);
    }

  protected:
    void create_storage(std::vector<doca_task *> &out) override {
        storage_ = std::make_unique<T[]>(capacity());
        for (uint32_t i = 0; i < capacity(); ++i) out.push_back(&storage_[i]);
    }
    void destroy_storage() override { storage_.reset(); }

  private:
    Callback on_success_ = nullptr;
    Callback on_error_ = nullptr;
    std::unique_ptr<T[]> storage_;
};

} // namespace skiff::core
