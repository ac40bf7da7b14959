// DPA logging (control path: formatted lines to the log file or the "dpa" logger) and tracing
// (data path: five integers into the EU's buffer, written to the trace file on flush or when full).
#include "dpa/dpa_context.hpp"
#include "dpa/device_call.hpp"

#include <doca_dpa_dev.h>

#include <cstdarg>
#include <cstring>

using skiff::core::dpa::check_usable;

void doca_dpa::write_log(int level, const char *text) {
    doca_dpa &r = root();
    std::lock_guard lock(r.io_mu);
    if (!r.log_path.empty() && !r.log_file) r.log_file = std::fopen(r.log_path.c_str(), "a");
    if (r.log_file) {
        std::fprintf(r.log_file, "[%d] %s\n", level, text);
        std::fflush(r.log_file);
        return;
    }
    auto &log = skiff::core::dpa::dpa_logger();
    if (level <= DOCA_DPA_DEV_LOG_LEVEL_ERROR)
        log.error("device: {}", text);
    else if (level <= DOCA_DPA_DEV_LOG_LEVEL_WARNING)
        log.warn("device: {}", text);
    else if (level <= DOCA_DPA_DEV_LOG_LEVEL_INFO)
        log.info("device: {}", text);
    else
        log.debug("device: {}", text);
}

void doca_dpa::write_traces(unsigned eu, const skiff::core::dpa::TraceRecord *records, size_t n) {
    doca_dpa &r = root();
    if (n == 0) return;
    std::lock_guard lock(r.io_mu);
    if (r.trace_path.empty()) return; // no trace file: traces are discarded
    if (!r.trace_file) r.trace_file = std::fopen(r.trace_path.c_str(), "a");
    if (!r.trace_file) return;
    for (size_t i = 0; i < n; ++i) {
        const auto &a = records[i].args;
        std::fprintf(r.trace_file, "eu %u: %llu %llu %llu %llu %llu\n", eu, (unsigned long long)a[0],
                     (unsigned long long)a[1], (unsigned long long)a[2], (unsigned long long)a[3],
                     (unsigned long long)a[4]);
    }
    std::fflush(r.trace_file);
}

namespace {

doca_error_t set_path(doca_dpa *dpa, const char *path, bool log) {
    if (!path || !*path) return DOCA_ERROR_INVALID_VALUE;
    if (auto r = check_usable(dpa); r != DOCA_SUCCESS) return r;
    doca_dpa &root = dpa->root();
    std::lock_guard lock(root.io_mu);
    FILE *&file = log ? root.log_file : root.trace_file;
    if (file) {
        std::fclose(file);
        file = nullptr;
    }
    (log ? root.log_path : root.trace_path) = path;
    return DOCA_SUCCESS;
}

doca_error_t get_path(doca_dpa *dpa, char *out, uint32_t *len, bool log) {
    if (!dpa || !out || !len) return DOCA_ERROR_INVALID_VALUE;
    doca_dpa &root = dpa->root();
    std::lock_guard lock(root.io_mu);
    const std::string &p = log ? root.log_path : root.trace_path;
    if (*len < p.size() + 1) return DOCA_ERROR_INVALID_VALUE;
    std::memcpy(out, p.c_str(), p.size() + 1);
    *len = static_cast<uint32_t>(p.size() + 1);
    return DOCA_SUCCESS;
}

} // namespace

extern "C" {

doca_error_t doca_dpa_log_file_set_path(doca_dpa *dpa, const char *file_path) {
    return set_path(dpa, file_path, true);
}
doca_error_t doca_dpa_log_file_get_path(doca_dpa *dpa, char *file_path, uint32_t *len) {
    return get_path(dpa, file_path, len, true);
}
doca_error_t doca_dpa_trace_file_set_path(doca_dpa *dpa, const char *file_path) {
    return set_path(dpa, file_path, false);
}
doca_error_t doca_dpa_trace_file_get_path(doca_dpa *dpa, char *file_path, uint32_t *len) {
    return get_path(dpa, file_path, len, false);
}

doca_error_t doca_dpa_set_log_level(doca_dpa *dpa, int log_level) {
    if (auto r = check_usable(dpa); r != DOCA_SUCCESS) return r;
    if (log_level < DOCA_DPA_DEV_LOG_LEVEL_DISABLE || log_level > DOCA_DPA_DEV_LOG_LEVEL_DEBUG ||
        log_level % 10 != 0) {
        skiff::core::dpa::dpa_logger().error("doca_dpa_set_log_level: {} is not one of 10, 20, ..., 60",
                                             log_level);
        return DOCA_ERROR_INVALID_VALUE;
    }
    dpa->root().log_level = log_level;
    return DOCA_SUCCESS;
}

doca_error_t doca_dpa_get_log_level(doca_dpa *dpa, int *log_level) {
    if (!dpa || !log_level) return DOCA_ERROR_INVALID_VALUE;
    *log_level = dpa->root().log_level;
    return DOCA_SUCCESS;
}

void doca_dpa_dev_log(int log_level, const char *format, ...) {
    auto *call = skiff::core::dpa::device_call("doca_dpa_dev_log");
    if (!call) return;
    doca_dpa &root = call->dpa->root();
    if (log_level <= DOCA_DPA_DEV_LOG_LEVEL_DISABLE || log_level > root.log_level) return;
    char text[512];
    va_list ap;
    va_start(ap, format);
    std::vsnprintf(text, sizeof(text), format, ap);
    va_end(ap);
    size_t n = std::strlen(text);
    if (n > 0 && text[n - 1] == '\n') text[n - 1] = '\0';
    root.write_log(log_level, text);
}

void doca_dpa_dev_trace(uint64_t arg1, uint64_t arg2, uint64_t arg3, uint64_t arg4, uint64_t arg5) {
    auto *call = skiff::core::dpa::device_call("doca_dpa_dev_trace");
    if (!call || !call->eu) return;
    call->eu->trace({{arg1, arg2, arg3, arg4, arg5}});
}

void doca_dpa_dev_trace_flush(void) {
    auto *call = skiff::core::dpa::device_call("doca_dpa_dev_trace_flush");
    if (!call || !call->eu) return;
    call->eu->trace_flush();
}

} // extern "C"
