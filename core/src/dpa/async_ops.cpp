// doca_dpa_async_ops: host API, execution, and the device posts (memcpy by mmap and by buf,
// post-wait greater-than / not-equal).
#include "dpa/async_ops.hpp"

#include "dpa/completion.hpp"
#include "dpa/device_call.hpp"
#include "dpa/owner_check.hpp"
#include "mem/buf_array.hpp"
#include "mem/dpa_mmap_handles.hpp"
#include "mem/mmap.hpp"
#include "sync/sync_event.hpp"

#include <doca_dpa_dev.h>
#include <doca_dpa_dev_buf.h>
#include <doca_dpa_dev_sync_event.h>

#include <cstring>
#include <new>

using skiff::core::dpa::AsyncOp;
using skiff::core::dpa::check_usable;
using skiff::core::dpa::DeviceCall;
using skiff::core::dpa::dpa_logger;

bool doca_dpa_async_ops::post(const AsyncOp &op) {
    if (posted - executed.load(std::memory_order_acquire) >= queue_size) return false;
    ring[posted % queue_size] = op;
    ++posted;
    if (op.flags & DOCA_DPA_DEV_SUBMIT_FLAG_FLUSH) {
        published.store(posted, std::memory_order_release);
        advance();
    }
    return true;
}

void doca_dpa_async_ops::advance() {
    // One advancer at a time; a caller that finds it busy leaves `again` for it.
    again.store(true, std::memory_order_seq_cst);
    while (again.load(std::memory_order_seq_cst)) {
        // seq_cst on `busy` too: the runner releases it and then loads `again`, a caller stores
        // `again` and then tries `busy`. A release store may be overtaken by the later load (x86's
        // store buffer does it as well), and both could leave, the new ops unrun.
        if (busy.exchange(true, std::memory_order_seq_cst)) return;
        again.store(false, std::memory_order_seq_cst);
        run_ops();
        busy.store(false, std::memory_order_seq_cst);
    }
}

void doca_dpa_async_ops::run_ops() {
    uint64_t end = published.load(std::memory_order_acquire);
    uint64_t i = executed.load(std::memory_order_relaxed);
    while (i < end) {
        AsyncOp &op = ring[i % queue_size];
        bool ok = op.valid;
        if (ok && op.kind != AsyncOp::Kind::memcpy) {
            skiff::core::dpa::add_waiter(this); // first: an update after the check still retries us
            uint64_t v = op.event->load();
            bool holds = op.kind == AsyncOp::Kind::wait_gt ? v > op.value : v != op.value;
            if (!holds) return;
        } else if (ok) {
            std::memcpy(op.dst, op.src, op.len);
        }
        bool report = (op.flags & DOCA_DPA_DEV_SUBMIT_FLAG_OPTIMIZE_REPORTS) == 0;
        deferred_failed = deferred_failed || !ok;
        executed.store(++i, std::memory_order_release);
        if (report) {
            uint32_t type = deferred_failed ? DOCA_DPA_DEV_COMP_SEND_ERR : DOCA_DPA_DEV_COMP_SEND;
            deferred_failed = false;
            comp->post(type, static_cast<uint32_t>(user_data), 0);
        }
    }
}

namespace {

doca_dpa_async_ops *async_ops_of(uint64_t handle, const char *api, DeviceCall *&call) {
    return skiff::core::dpa::decode_owned<doca_dpa_async_ops>(handle, api, "an async ops context", call);
}

void post_or_fault(DeviceCall &call, doca_dpa_async_ops *ao, const AsyncOp &op, const char *api) {
    if (!ao->started) {
        skiff::core::dpa::device_fault(call, std::string(api) + ": the async ops context is not started");
        return;
    }
    if (!ao->post(op)) {
        skiff::core::dpa::device_fault(call, std::string(api) + ": more than queue_size (" +
                                                 std::to_string(ao->queue_size) +
                                                 ") operations are outstanding");
    }
}

// The bytes [addr, addr + len) of an mmap handle, or nullptr when outside its range.
uint8_t *mmap_bytes(doca_dpa_dev_mmap_t mmap_handle, uint64_t addr, size_t len) {
    doca_mmap *m = skiff::core::mem::dpa_mmap_from_handle(mmap_handle);
    auto *p = reinterpret_cast<uint8_t *>(static_cast<uintptr_t>(addr));
    // A remote (RDMA-imported) mmap is reachable only through DPA RDMA posts.
    if (!m || !m->started || m->rdma_remote || !skiff::core::mem::mmap_contains(m, p, len)) return nullptr;
    return p;
}

void post_wait(doca_dpa_dev_async_ops_t handle, doca_dpa_dev_sync_event_t ev_handle, uint64_t value,
               AsyncOp::Kind kind, const char *api) {
    DeviceCall *call = nullptr;
    doca_dpa_async_ops *ao = async_ops_of(handle, api, call);
    if (!ao) return;
    auto *ev = reinterpret_cast<doca_sync_event *>(static_cast<uintptr_t>(ev_handle));
    if (!ev) {
        skiff::core::dpa::device_fault(*call, std::string(api) + ": invalid sync event handle");
        return;
    }
    if (value > skiff::core::dpa::kMaxDpaEventValue) {
        skiff::core::dpa::device_fault(*call, std::string(api) + ": value " + std::to_string(value) +
                                                  " is outside [0, 254]");
        return;
    }
    AsyncOp op;
    op.kind = kind;
    op.flags = DOCA_DPA_DEV_SUBMIT_FLAG_FLUSH; // a wait is issued at once (it has no flags argument)
    op.event = ev;
    op.value = value;
    post_or_fault(*call, ao, op, api);
}

} // namespace

extern "C" {

doca_error_t doca_dpa_async_ops_create(doca_dpa *dpa, unsigned int queue_size, uint64_t user_data,
                                       doca_dpa_async_ops **async_ops) {
    if (!async_ops) return DOCA_ERROR_INVALID_VALUE;
    if (auto r = check_usable(dpa); r != DOCA_SUCCESS) return r;
    if (queue_size == 0 || queue_size > skiff::core::dpa::kMaxQueueSize) {
        dpa_logger().error("doca_dpa_async_ops_create: queue_size {} is not in 1..{}", queue_size,
                           skiff::core::dpa::kMaxQueueSize);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (user_data >> DOCA_DPA_COMPLETION_LOG_MAX_USER_DATA) {
        dpa_logger().error("doca_dpa_async_ops_create: user_data {:#x} does not fit {} bits", user_data,
                           DOCA_DPA_COMPLETION_LOG_MAX_USER_DATA);
        return DOCA_ERROR_INVALID_VALUE;
    }
    *async_ops = new (std::nothrow) doca_dpa_async_ops();
    if (!*async_ops) return DOCA_ERROR_NO_MEMORY;
    (*async_ops)->dpa = dpa;
    (*async_ops)->queue_size = queue_size;
    (*async_ops)->user_data = user_data;
    dpa->objects.fetch_add(1);
    return DOCA_SUCCESS;
}

doca_error_t doca_dpa_async_ops_destroy(doca_dpa_async_ops *ao) {
    if (!ao || ao->magic != doca_dpa_async_ops::kMagic) return DOCA_ERROR_INVALID_VALUE;
    if (ao->started && ao->dpa->usable()) return DOCA_ERROR_BAD_STATE;
    skiff::core::dpa::remove_waiter(ao);
    if (ao->comp) ao->comp->attached.fetch_sub(1);
    ao->dpa->objects.fetch_sub(1);
    ao->magic = 0;
    delete ao;
    return DOCA_SUCCESS;
}

doca_error_t doca_dpa_async_ops_get_queue_size(doca_dpa_async_ops *ao, unsigned int *queue_size) {
    if (!ao || !queue_size) return DOCA_ERROR_INVALID_VALUE;
    *queue_size = ao->queue_size;
    return DOCA_SUCCESS;
}

doca_error_t doca_dpa_async_ops_get_user_data(doca_dpa_async_ops *ao, uint64_t *user_data) {
    if (!ao || !user_data) return DOCA_ERROR_INVALID_VALUE;
    *user_data = ao->user_data;
    return DOCA_SUCCESS;
}

doca_error_t doca_dpa_async_ops_attach(doca_dpa_async_ops *ao, doca_dpa_completion *comp) {
    if (!ao || !comp) return DOCA_ERROR_INVALID_VALUE;
    if (auto r = check_usable(ao->dpa); r != DOCA_SUCCESS) return r;
    if (ao->started) return DOCA_ERROR_BAD_STATE;
    if (comp->dpa != ao->dpa) {
        dpa_logger().error("doca_dpa_async_ops_attach: the completion context is on another DPA context");
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (ao->comp) ao->comp->attached.fetch_sub(1);
    ao->comp = comp;
    comp->attached.fetch_add(1);
    return DOCA_SUCCESS;
}

doca_error_t doca_dpa_async_ops_start(doca_dpa_async_ops *ao) {
    if (!ao) return DOCA_ERROR_INVALID_VALUE;
    if (auto r = check_usable(ao->dpa); r != DOCA_SUCCESS) return r;
    if (ao->started) return DOCA_ERROR_BAD_STATE;
    if (!ao->comp) {
        dpa_logger().error(
            "doca_dpa_async_ops_start: attach a completion context first (doca_dpa_async_ops_attach)");
        return DOCA_ERROR_BAD_STATE;
    }
    if (!ao->comp->started) {
        dpa_logger().error("doca_dpa_async_ops_start: start the attached completion context first");
        return DOCA_ERROR_BAD_STATE;
    }
    ao->ring.reset(new (std::nothrow) AsyncOp[ao->queue_size]);
    if (!ao->ring) return DOCA_ERROR_NO_MEMORY;
    ao->posted = 0;
    ao->published.store(0);
    ao->executed.store(0);
    ao->started = true;
    return DOCA_SUCCESS;
}

doca_error_t doca_dpa_async_ops_stop(doca_dpa_async_ops *ao) {
    if (!ao) return DOCA_ERROR_INVALID_VALUE;
    if (!ao->started) return DOCA_ERROR_BAD_STATE;
    skiff::core::dpa::remove_waiter(ao); // pending waits are dropped
    ao->started = false;
    return DOCA_SUCCESS;
}

doca_error_t doca_dpa_async_ops_get_dpa_handle(doca_dpa_async_ops *ao, doca_dpa_dev_async_ops_t *handle) {
    if (!ao || !handle) return DOCA_ERROR_INVALID_VALUE;
    if (auto r = check_usable(ao->dpa); r != DOCA_SUCCESS) return r;
    if (!ao->started) return DOCA_ERROR_BAD_STATE;
    *handle = static_cast<doca_dpa_dev_async_ops_t>(reinterpret_cast<uintptr_t>(ao));
    return DOCA_SUCCESS;
}

// ---- device posts

void doca_dpa_dev_post_memcpy(doca_dpa_dev_async_ops_t async_ops_handle, doca_dpa_dev_mmap_t dst_mmap_handle,
                              uint64_t dst_addr, doca_dpa_dev_mmap_t src_mmap_handle, uint64_t src_addr,
                              size_t length, uint32_t flags) {
    DeviceCall *call = nullptr;
    doca_dpa_async_ops *ao = async_ops_of(async_ops_handle, "doca_dpa_dev_post_memcpy", call);
    if (!ao) return;
    AsyncOp op;
    op.flags = flags;
    op.dst = mmap_bytes(dst_mmap_handle, dst_addr, length);
    op.src = mmap_bytes(src_mmap_handle, src_addr, length);
    op.len = length;
    op.valid = op.dst && op.src; // an address outside its mmap fails with SEND_ERR
    post_or_fault(*call, ao, op, "doca_dpa_dev_post_memcpy");
}

void doca_dpa_dev_post_buf_memcpy(doca_dpa_dev_async_ops_t async_ops_handle,
                                  doca_dpa_dev_buf_t dst_buf_handle, doca_dpa_dev_buf_t src_buf_handle,
                                  uint32_t flags) {
    DeviceCall *call = nullptr;
    doca_dpa_async_ops *ao = async_ops_of(async_ops_handle, "doca_dpa_dev_post_buf_memcpy", call);
    if (!ao) return;
    auto *dst =
        reinterpret_cast<const skiff::core::mem::BufArrElement *>(static_cast<uintptr_t>(dst_buf_handle));
    auto *src =
        reinterpret_cast<const skiff::core::mem::BufArrElement *>(static_cast<uintptr_t>(src_buf_handle));
    if (!dst || !src) {
        skiff::core::dpa::device_fault(*call, "doca_dpa_dev_post_buf_memcpy: invalid buffer handle");
        return;
    }
    AsyncOp op;
    op.flags = flags;
    op.dst = dst->addr;
    op.src = src->addr;
    op.len = dst->len < src->len ? dst->len : src->len;
    post_or_fault(*call, ao, op, "doca_dpa_dev_post_buf_memcpy");
}

void doca_dpa_dev_sync_event_post_wait_gt(doca_dpa_dev_async_ops_t async_ops_handle,
                                          doca_dpa_dev_sync_event_t wait_se_handle, uint64_t value) {
    post_wait(async_ops_handle, wait_se_handle, value, AsyncOp::Kind::wait_gt,
              "doca_dpa_dev_sync_event_post_wait_gt");
}

void doca_dpa_dev_sync_event_post_wait_ne(doca_dpa_dev_async_ops_t async_ops_handle,
                                          doca_dpa_dev_sync_event_t wait_se_handle, uint64_t value) {
    post_wait(async_ops_handle, wait_se_handle, value, AsyncOp::Kind::wait_ne,
              "doca_dpa_dev_sync_event_post_wait_ne");
}

} // extern "C"
