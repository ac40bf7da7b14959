/*
 * skiff core: DOCA Clock, reading the device's and the host's clocks and taking two readings
 * together (cross timestamp).
 *
 * The emulated NIC's clocks are the host's: its free-running clock is CLOCK_MONOTONIC_RAW, its
 * real-time clock CLOCK_REALTIME and, on a device with the DPA, the DPA timer CLOCK_MONOTONIC_RAW
 * as well (the DPA threads are host threads). Every device has the first two; the DPA timer is
 * NOT_SUPPORTED on a device without a DPA. The host counter is the CPU's own (x86-64: RDTSC,
 * aarch64: CNTVCT_EL0) and comes back in `counter`; every other clock comes back in `ts`.
 *
 * A cross timestamp reads the NIC clock, then the primary clock, then the NIC clock again: the NIC
 * value is the middle of its two readings and the error margin half the gap between them, in
 * nanoseconds.
 */
#ifndef DOCA_CLOCK_H_
#define DOCA_CLOCK_H_

#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include <doca_compat.h>
/* doca_dev.h: NVIDIA's clock_cross_timestamp sample sizes its PCI address with
 * DOCA_DEVINFO_PCI_ADDR_SIZE after including only doca_error.h and this header. */
#include <doca_dev.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_clock;
struct doca_dev;
struct doca_devinfo;

/* Clock types: one bit each. */
#define DOCA_CLOCK_NIC_FREE_RUNNING 0x1
#define DOCA_CLOCK_NIC_REAL_TIME (0x1 << 1)
#define DOCA_CLOCK_NIC_DPA_TIMER (0x1 << 8)
#define DOCA_CLOCK_HOST_COUNTER_CYCLES (0x1 << 16)
#define DOCA_CLOCK_HOST_REAL_TIME (0x1 << 17)
#define DOCA_CLOCK_HOST_MONOTONIC (0x1 << 18)
#define DOCA_CLOCK_HOST_MONOTONIC_RAW (0x1 << 19)

/* A reading: `counter` for DOCA_CLOCK_HOST_COUNTER_CYCLES, `ts` for every other clock. */
union doca_clock_timespec_t {
    struct timespec ts;
    uint64_t counter;
};

/* DOCA_SUCCESS when the device has that NIC clock, NOT_SUPPORTED when not, INVALID_VALUE for NULL. */
DOCA_EXPERIMENTAL doca_error_t
doca_clock_cap_nic_free_running_is_supported(const struct doca_devinfo *devinfo);
DOCA_EXPERIMENTAL doca_error_t doca_clock_cap_nic_real_time_is_supported(const struct doca_devinfo *devinfo);
DOCA_EXPERIMENTAL doca_error_t doca_clock_cap_nic_dpa_timer_is_supported(const struct doca_devinfo *devinfo);

/* A clock on an opened device; destroy it before the device is closed. */
DOCA_EXPERIMENTAL doca_error_t doca_clock_create(const struct doca_dev *dev, struct doca_clock **clock);
DOCA_EXPERIMENTAL doca_error_t doca_clock_destroy(struct doca_clock *clock);

/* One clock (exactly one DOCA_CLOCK_* bit): NOT_SUPPORTED for an unknown type or a combination,
 * or a NIC clock the device does not have. */
DOCA_EXPERIMENTAL doca_error_t doca_clock_get_timestamp(const struct doca_clock *clock, uint64_t clock_type,
                                                        union doca_clock_timespec_t *clock_ts);

/* A primary clock (host or NIC) and a NIC clock read together; error_margin_nsecs is half the gap
 * between the two NIC readings around the primary one. */
DOCA_EXPERIMENTAL doca_error_t doca_clock_get_crosstimestamp(const struct doca_clock *clock,
                                                             uint64_t primary_clock_type,
                                                             uint64_t nic_clock_type,
                                                             union doca_clock_timespec_t *primary_clock_ts,
                                                             union doca_clock_timespec_t *nic_clock_ts,
                                                             uint64_t *error_margin_nsecs);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_CLOCK_H_ */
