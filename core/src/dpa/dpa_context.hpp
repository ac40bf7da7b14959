// The object behind doca_dpa: a base context (on a PF; owns the EUs, the heap and the error state
// of the emulated DPA process) or an extended context (on a VF/SF; shares all of that with its
// base). Every DPA object points at the context it was created on.
#pragma once

#include <doca_dpa.h>

#include <skiff/core/log.hpp>

#include "dpa/app.hpp"
#include "dpa/eu_engine.hpp"

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>

namespace skiff::core::dpa {

struct Launch;

// Emulation limits (spec 3: the seeds leave them to the implementation).
constexpr unsigned kMaxThreadsPerKernel = 128;
constexpr unsigned long long kKernelMaxRunTimeSec = 10;
constexpr unsigned kMaxEus = 64;
constexpr unsigned kMaxQueueSize = 65536;
constexpr unsigned kMaxEuId = 255;
// The EU id space above as a BlueField-3 DPA lays it out: 16 cores of 16 EUs each (what
// doca_dpa_get_core_num, _get_num_eus_per_core and _get_total_num_eus_available report).
constexpr unsigned kNumCores = 16;
constexpr unsigned kEusPerCore = 16;
static_assert(kNumCores * kEusPerCore == kMaxEuId + 1, "every EU id names one EU");
// DPA sync-event values a DPA may wait for: [0, 254].
constexpr uint64_t kMaxDpaEventValue = 254;

// Takes n of the 256 hardware threads of the process; false when they would be exceeded.
bool reserve_hw_threads(unsigned n);
void release_hw_threads(unsigned n);

// A live allocation of the DPA heap containing [ptr, ptr + len), or false.
struct HeapRange {
    uintptr_t base;
    size_t size;
};

} // namespace skiff::core::dpa

struct doca_dpa {
    static constexpr uint32_t kMagic = 0x44504131; // "DPA1"
    uint32_t magic = kMagic;
    doca_dpa *base = nullptr; // set on an extended context
    doca_dev *dev = nullptr;
    doca_dpa_app *app = nullptr;
    unsigned num_eus = 1;
    bool started = false;
    std::atomic<uint32_t> objects{0}; // threads, completions, ... and extended contexts on it

    // ---- shared by a base and its extended contexts (use root())
    std::unique_ptr<skiff::core::dpa::Engine> engine;
    std::atomic<bool> fatal{false};
    std::once_flag fatal_once;
    std::string log_path;
    std::string trace_path;
    int log_level = 50;
    std::mutex io_mu; // log and trace files
    FILE *log_file = nullptr;
    FILE *trace_file = nullptr;
    std::mutex heap_mu;
    std::map<uintptr_t, size_t> heap; // live DPA heap allocations
    std::mutex launch_mu;
    std::set<skiff::core::dpa::Launch *> launches; // not yet complete

    ~doca_dpa();

    doca_dpa &root() { return base ? *base : *this; }
    const doca_dpa &root() const { return base ? *base : *this; }
    bool usable() const { return !root().fatal.load(std::memory_order_acquire); }
    skiff::core::dpa::Engine &eus() { return *root().engine; }

    // Enters the fatal error state (once) and writes the crash report.
    void fail(const std::string &reason);
    std::string crash_file_path() const;
    // Device log / trace output (error_state.cpp / log_trace.cpp).
    void write_log(int level, const char *text);
    void write_traces(unsigned eu, const skiff::core::dpa::TraceRecord *records, size_t n);
    // The heap allocation containing [ptr, ptr + len) (false when none).
    bool heap_contains(uintptr_t ptr, size_t len);
    // Stops the EUs after cancelling launches that never started.
    void stop_engine();
};

namespace skiff::core::dpa {

// Host-call guard: INVALID_VALUE for NULL, BAD_STATE once the context is in its fatal state.
inline doca_error_t check_usable(const doca_dpa *dpa) {
    if (!dpa) return DOCA_ERROR_INVALID_VALUE;
    return dpa->usable() ? DOCA_SUCCESS : DOCA_ERROR_BAD_STATE;
}

spdlog::logger &dpa_logger();

} // namespace skiff::core::dpa
