// Hands completions from librbd's threads to one poll group thread without a lock.
//
// librbd runs its completion callbacks on its own threads. The poll group must not block or
// lock, so each callback pushes its (preallocated, intrusive) record onto a lock-free stack
// and, when the stack was empty, writes an eventfd the group's epoll set watches. The group
// reads the eventfd, takes the whole stack with one exchange and completes the records in the
// order they arrived. No allocation anywhere: the records belong to the channel.
//
// Why one eventfd write per batch is enough: the consumer reads the eventfd *before* it takes
// the stack, and a producer writes only when it found the stack empty, i.e. after the last
// take. Whatever is pushed after a take therefore either signals or joins a stack whose first
// push signals.
#pragma once

#include "skiff/core/status.hpp"

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>
#include <sys/eventfd.h>
#include <unistd.h>

namespace skiff::dataplane {

// Embed this in a record to pass it through an RbdCompletionQueue.
struct RbdCompletionNode {
    RbdCompletionNode *next_done = nullptr;
};

class RbdCompletionQueue {
  public:
    RbdCompletionQueue() = default;
    ~RbdCompletionQueue() {
        // A producer may still be between its push and its eventfd write; wait for it.
        while (producers_.load(std::memory_order_acquire) != 0) {
        }
        if (fd_ >= 0) ::close(fd_);
    }
    RbdCompletionQueue(const RbdCompletionQueue &) = delete;
    RbdCompletionQueue &operator=(const RbdCompletionQueue &) = delete;

    Status open() {
        fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
        if (fd_ < 0)
            return make_error(DOCA_ERROR_OPERATING_SYSTEM,
                              "rbd backend: eventfd: " + std::string(std::strerror(errno)));
        return Status::success();
    }
    // The fd to watch for readability.
    int fd() const { return fd_; }

    // Any thread. Lock-free; one write(2) when the stack was empty.
    void push(RbdCompletionNode *node) {
        producers_.fetch_add(1, std::memory_order_acq_rel);
        RbdCompletionNode *head = head_.load(std::memory_order_relaxed);
        do {
            node->next_done = head;
        } while (
            !head_.compare_exchange_weak(head, node, std::memory_order_release, std::memory_order_relaxed));
        if (head == nullptr) {
            uint64_t one = 1;
            [[maybe_unused]] ssize_t w = ::write(fd_, &one, sizeof(one));
        }
        producers_.fetch_sub(1, std::memory_order_acq_rel);
    }

    // The consumer thread only: clears the eventfd and returns everything pushed so far, oldest
    // first (nullptr when nothing is there).
    RbdCompletionNode *take_all() {
        uint64_t signalled;
        [[maybe_unused]] ssize_t r = ::read(fd_, &signalled, sizeof(signalled));
        RbdCompletionNode *stack = head_.exchange(nullptr, std::memory_order_acquire);
        RbdCompletionNode *fifo = nullptr; // the stack is newest first: reverse it
        while (stack) {
            RbdCompletionNode *next = stack->next_done;
            stack->next_done = fifo;
            fifo = stack;
            stack = next;
        }
        return fifo;
    }

  private:
    std::atomic<RbdCompletionNode *> head_{nullptr};
    std::atomic<uint32_t> producers_{0};
    int fd_ = -1;
};

} // namespace skiff::dataplane
