// Asynchronous Event Requests from a test's host controller, driven by hand: the test parks one
// on the admin queue and waits (bounded) for its completion; and the log page a namespace event
// points to. The controller must be connected without automatic keep-alive (the test owns the
// admin queue).
#pragma once

#include "skiff/nvmeof/host/controller.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <vector>

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

// The Changed Namespace List log page (04h), its non-zero entries; reading it without RAE clears
// it and re-arms the namespace-attribute notice.
inline std::vector<uint32_t> changed_list(nvmeof::host::Controller &c) {
    uint32_t list[1024] = {};
    EXPECT_TRUE(c.get_log_page(NVME_LOG_LID_CHANGED_NS, 0xFFFFFFFF, list, sizeof(list)).ok());
    std::vector<uint32_t> out;
    for (uint32_t v : list)
        if (v) out.push_back(v);
    return out;
}

} // namespace skiff::itest
