// Asynchronous Event Requests from a test's host controller, driven by hand: the test parks one
// on the admin queue and waits (bounded) for its completion. The controller must be connected
// without automatic keep-alive (the test owns the admin queue).
#pragma once

#include "skiff/nvmeof/host/controller.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <optional>

namespace skiff::itest {

// Parks one Asynchronous Event Request; returns its command id.
inline uint16_t park_aer(nvmeof::host::Controller &c) {
    nvmeof::wire::Sqe sqe{};
    sqe.opcode = nvme_admin_async_event;
    auto cid = c.admin_queue().submit(sqe, nvmeof::host::DataDir::kNone, nullptr, 0);
    EXPECT_TRUE(cid.ok());
    return cid.ok() ? *cid : 0;
}

// Waits up to `limit` for the AER's completion; returns its result dword.
inline std::optional<uint32_t> wait_aer(nvmeof::host::Controller &c, uint16_t cid,
                                        std::chrono::milliseconds limit = std::chrono::seconds(10)) {
    const auto step = std::chrono::milliseconds(100);
    for (auto waited = std::chrono::milliseconds(0); waited <= limit; waited += step) {
        nvmeof::host::Completion done;
        while (c.admin_queue().pop_completion(done))
            if (done.cid == cid) return static_cast<uint32_t>(done.cqe.result);
        (void)c.admin_queue().poll(step);
    }
    return std::nullopt;
}

} // namespace skiff::itest
