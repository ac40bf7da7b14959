// Internal: the I/O an asynchronous channel could not start yet (every slot busy), in
// submission order, linked through BackendIo::next: pushing and popping allocate nothing.
#pragma once

#include "skiff/nvmeof/target/block_device.hpp"

namespace skiff::dataplane {

class IoWaitList {
  public:
    bool empty() const { return head_ == nullptr; }
    void push_back(nvmeof::target::BackendIo &io) {
        io.next = nullptr;
        if (tail_)
            tail_->next = &io;
        else
            head_ = &io;
        tail_ = &io;
    }
    // Back to the front (it still could not start).
    void push_front(nvmeof::target::BackendIo &io) {
        io.next = head_;
        head_ = &io;
        if (!tail_) tail_ = &io;
    }
    // Unlinks the first one before it is started: starting may run its `done`, which may
    // submit the same descriptor again.
    nvmeof::target::BackendIo *pop_front() {
        nvmeof::target::BackendIo *io = head_;
        if (io) {
            head_ = io->next;
            if (!head_) tail_ = nullptr;
        }
        return io;
    }

  private:
    nvmeof::target::BackendIo *head_ = nullptr, *tail_ = nullptr;
};

} // namespace skiff::dataplane
