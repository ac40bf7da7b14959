// The progress engine: the one place where completions, events and ctx state changes reach the
// application, one unit of work per doca_pe_progress() call, on the caller's thread.
#pragma once

#include "exec/notifier.hpp"

#include <doca_pe.h>

#include <cstddef>
#include <vector>

struct doca_pe {
  public:
    doca_pe() = default;
    doca_pe(const doca_pe &) = delete;
    doca_pe &operator=(const doca_pe &) = delete;

    doca_error_t init() { return notifier_.open(); }
    skiff::core::Notifier &notifier() { return notifier_; }

    doca_error_t connect(doca_ctx *ctx);
    // Called when a connected ctx is destroyed.
    void disconnect(doca_ctx *ctx);
    size_t num_connected() const { return ctxs_.size(); }

    uint8_t progress();
    // Arms the notifier; signals at once when some ctx already has work ready.
    void request_notification();
    size_t inflight() const;

  private:
    std::vector<doca_ctx *> ctxs_;
    size_t cursor_ = 0; // round-robin start, so that no ctx starves the others
    bool in_progress_ = false;
    skiff::core::Notifier notifier_;
};
