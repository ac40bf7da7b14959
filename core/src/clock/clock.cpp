// doca_clock: the emulated NIC's clocks (the host's clocks under other names, doca_clock.h says
// which) and cross timestamps between them and the host's clocks.
#include <doca_clock.h>

#include "dev/dev_caps.hpp"
#include "dev/device.hpp"

#include <skiff/core/log.hpp>

#include <cstdint>
#include <ctime>
#include <new>

struct doca_clock {
    bool has_dpa_timer = false; // the device had the DPA when the clock was created
};

namespace {

spdlog::logger &logger() {
    static auto log = skiff::log::get("clock");
    return *log;
}

constexpr uint64_t kNicClocks =
    DOCA_CLOCK_NIC_FREE_RUNNING | DOCA_CLOCK_NIC_REAL_TIME | DOCA_CLOCK_NIC_DPA_TIMER;

uint64_t host_counter() {
#if defined(__x86_64__)
    return __builtin_ia32_rdtsc();
#elif defined(__aarch64__)
    uint64_t value;
    asm volatile("isb; mrs %0, cntvct_el0" : "=r"(value));
    return value;
#else
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
#endif
}

// The POSIX clock behind a DOCA clock type; false for the counter and for anything unknown.
bool posix_clock_of(uint64_t type, clockid_t &id) {
    switch (type) {
    case DOCA_CLOCK_NIC_FREE_RUNNING:
    case DOCA_CLOCK_NIC_DPA_TIMER:
    case DOCA_CLOCK_HOST_MONOTONIC_RAW:
        id = CLOCK_MONOTONIC_RAW;
        return true;
    case DOCA_CLOCK_NIC_REAL_TIME:
    case DOCA_CLOCK_HOST_REAL_TIME:
        id = CLOCK_REALTIME;
        return true;
    case DOCA_CLOCK_HOST_MONOTONIC:
        id = CLOCK_MONOTONIC;
        return true;
    default:
        return false;
    }
}

bool clock_type_known(const doca_clock *clock, uint64_t type) {
    if (type == DOCA_CLOCK_HOST_COUNTER_CYCLES) return true;
    if (type == DOCA_CLOCK_NIC_DPA_TIMER && !clock->has_dpa_timer) return false;
    clockid_t id;
    return posix_clock_of(type, id);
}

// A known type (clock_type_known said so).
void read_clock(uint64_t type, doca_clock_timespec_t &out) {
    if (type == DOCA_CLOCK_HOST_COUNTER_CYCLES) {
        out.counter = host_counter();
        return;
    }
    clockid_t id = CLOCK_MONOTONIC_RAW;
    posix_clock_of(type, id);
    clock_gettime(id, &out.ts);
}

int64_t nanoseconds(const timespec &ts) {
    return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

timespec from_nanoseconds(int64_t ns) {
    return timespec{static_cast<time_t>(ns / 1000000000), static_cast<long>(ns % 1000000000)};
}

doca_error_t refuse_type(const char *api, uint64_t type) {
    logger().error("{}: clock type {:#x} is not one DOCA_CLOCK_* value this device has", api, type);
    return DOCA_ERROR_NOT_SUPPORTED;
}

} // namespace

extern "C" {

doca_error_t doca_clock_cap_nic_free_running_is_supported(const doca_devinfo *devinfo) {
    return devinfo ? DOCA_SUCCESS : DOCA_ERROR_INVALID_VALUE;
}

doca_error_t doca_clock_cap_nic_real_time_is_supported(const doca_devinfo *devinfo) {
    return devinfo ? DOCA_SUCCESS : DOCA_ERROR_INVALID_VALUE;
}

doca_error_t doca_clock_cap_nic_dpa_timer_is_supported(const doca_devinfo *devinfo) {
    if (!devinfo) return DOCA_ERROR_INVALID_VALUE;
    return skiff::core::devinfo_has_cap(devinfo, skiff::core::DevCap::dpa) ? DOCA_SUCCESS
                                                                           : DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_clock_create(const doca_dev *dev, doca_clock **clock) {
    if (!dev || !clock) return DOCA_ERROR_INVALID_VALUE;
    *clock = new (std::nothrow) doca_clock{skiff::core::dev_has_cap(dev, skiff::core::DevCap::dpa)};
    return *clock ? DOCA_SUCCESS : DOCA_ERROR_NO_MEMORY;
}

doca_error_t doca_clock_destroy(doca_clock *clock) {
    if (!clock) return DOCA_ERROR_INVALID_VALUE;
    delete clock;
    return DOCA_SUCCESS;
}

doca_error_t doca_clock_get_timestamp(const doca_clock *clock, uint64_t clock_type,
                                      doca_clock_timespec_t *clock_ts) {
    if (!clock || !clock_ts) return DOCA_ERROR_INVALID_VALUE;
    if (!clock_type_known(clock, clock_type)) return refuse_type("doca_clock_get_timestamp", clock_type);
    read_clock(clock_type, *clock_ts);
    return DOCA_SUCCESS;
}

doca_error_t doca_clock_get_crosstimestamp(const doca_clock *clock, uint64_t primary_clock_type,
                                           uint64_t nic_clock_type, doca_clock_timespec_t *primary_clock_ts,
                                           doca_clock_timespec_t *nic_clock_ts,
                                           uint64_t *error_margin_nsecs) {
    if (!clock || !primary_clock_ts || !nic_clock_ts || !error_margin_nsecs) return DOCA_ERROR_INVALID_VALUE;
    if (!clock_type_known(clock, primary_clock_type))
        return refuse_type("doca_clock_get_crosstimestamp (primary)", primary_clock_type);
    if ((nic_clock_type & kNicClocks) != nic_clock_type || !clock_type_known(clock, nic_clock_type))
        return refuse_type("doca_clock_get_crosstimestamp (NIC)", nic_clock_type);
    doca_clock_timespec_t before{}, after{};
    read_clock(nic_clock_type, before);
    read_clock(primary_clock_type, *primary_clock_ts);
    read_clock(nic_clock_type, after);
    int64_t first = nanoseconds(before.ts), second = nanoseconds(after.ts);
    nic_clock_ts->ts = from_nanoseconds(first + (second - first) / 2);
    *error_margin_nsecs = static_cast<uint64_t>(second - first) / 2;
    return DOCA_SUCCESS;
}

} // extern "C"
