// doca_log over spdlog: sources are names, backends are spdlog loggers with a level window.
#include <doca_log.h>

#include "skiff/core/log.hpp"

#include <spdlog/sinks/ansicolor_sink.h>
#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

struct doca_log_backend {
    std::shared_ptr<spdlog::logger> logger;
    uint32_t lower = DOCA_LOG_LEVEL_INFO;
    uint32_t upper = DOCA_LOG_LEVEL_CRIT;
    bool sdk = false;
};

namespace {

struct Registry {
    std::mutex mutex; // control path only: registration and backend creation
    std::vector<std::string> sources;
    std::vector<std::unique_ptr<doca_log_backend>> backends;
    std::atomic<uint32_t> lower{DOCA_LOG_LEVEL_INFO};
    std::atomic<uint32_t> upper{DOCA_LOG_LEVEL_CRIT};
    std::atomic<uint32_t> sdk{DOCA_LOG_LEVEL_INFO};
};

Registry &registry() {
    static Registry *r = new Registry(); // never destroyed: sources unregister from destructors
    return *r;
}

bool valid_level(uint32_t level) {
    return level >= DOCA_LOG_LEVEL_DISABLE && level <= DOCA_LOG_LEVEL_TRACE && level % 10 == 0;
}

doca_error_t add_backend(std::shared_ptr<spdlog::sinks::sink> sink, bool sdk, uint32_t lower, uint32_t upper,
                         doca_log_backend **out) {
    auto backend = std::make_unique<doca_log_backend>();
    backend->logger = std::make_shared<spdlog::logger>("doca", std::move(sink));
    backend->logger->set_level(spdlog::level::trace);
    backend->logger->set_pattern("[%Y-%m-%d %H:%M:%S.%e] [%^%l%$] %v");
    backend->lower = lower;
    backend->upper = upper;
    backend->sdk = sdk;
    Registry &r = registry();
    std::lock_guard lock(r.mutex);
    if (out) *out = backend.get();
    r.backends.push_back(std::move(backend));
    return DOCA_SUCCESS;
}

} // namespace

extern "C" {

doca_error_t doca_log_level_set_global_lower_limit(uint32_t level) {
    if (!valid_level(level)) return DOCA_ERROR_INVALID_VALUE;
    Registry &r = registry();
    r.lower = level;
    std::lock_guard lock(r.mutex);
    for (auto &b : r.backends)
        if (!b->sdk) b->lower = level;
    return DOCA_SUCCESS;
}

doca_error_t doca_log_level_set_global_upper_limit(uint32_t upper_limit) {
    if (!valid_level(upper_limit)) return DOCA_ERROR_INVALID_VALUE;
    Registry &r = registry();
    r.upper = upper_limit;
    std::lock_guard lock(r.mutex);
    for (auto &b : r.backends)
        if (!b->sdk) b->upper = upper_limit;
    return DOCA_SUCCESS;
}

uint32_t doca_log_level_get_global_lower_limit(void) { return registry().lower; }
uint32_t doca_log_level_get_global_upper_limit(void) { return registry().upper; }

doca_error_t doca_log_level_set_global_sdk_limit(uint32_t level) {
    if (!valid_level(level)) return DOCA_ERROR_INVALID_VALUE;
    registry().sdk = level;
    skiff::log::set_level(skiff::log::from_doca_level(level));
    return DOCA_SUCCESS;
}

uint32_t doca_log_level_get_global_sdk_limit(void) { return registry().sdk; }

doca_error_t doca_log_register_source(const char *source_name, int *source) {
    if (!source_name || !source) return DOCA_ERROR_INVALID_VALUE;
    Registry &r = registry();
    std::lock_guard lock(r.mutex);
    r.sources.emplace_back(source_name);
    *source = static_cast<int>(r.sources.size() - 1);
    return DOCA_SUCCESS;
}

doca_error_t doca_log_unregister_source(int source) {
    Registry &r = registry();
    std::lock_guard lock(r.mutex);
    if (source < 0 || static_cast<size_t>(source) >= r.sources.size()) return DOCA_ERROR_INVALID_VALUE;
    r.sources[source].clear();
    return DOCA_SUCCESS;
}

doca_error_t doca_log_backend_create_standard(void) {
    Registry &r = registry();
    doca_error_t err = add_backend(std::make_shared<spdlog::sinks::stdout_sink_mt>(), false, r.lower,
                                   DOCA_LOG_LEVEL_INFO, nullptr);
    if (err != DOCA_SUCCESS) return err;
    return add_backend(std::make_shared<spdlog::sinks::stderr_sink_mt>(), false, DOCA_LOG_LEVEL_WARNING, r.upper,
                       nullptr);
}

doca_error_t doca_log_backend_create_with_file(FILE *fptr, doca_log_backend **backend) {
    if (!fptr || !backend) return DOCA_ERROR_INVALID_VALUE;
    auto sink = std::make_shared<spdlog::sinks::ansicolor_sink<spdlog::details::console_mutex>>(
        fptr, spdlog::color_mode::never);
    Registry &r = registry();
    return add_backend(std::move(sink), false, r.lower, r.upper, backend);
}

doca_error_t doca_log_backend_create_with_fd(int fd, doca_log_backend **backend) {
    if (fd < 0 || !backend) return DOCA_ERROR_INVALID_VALUE;
    FILE *f = fdopen(fd, "a");
    if (!f) return DOCA_ERROR_OPERATING_SYSTEM;
    return doca_log_backend_create_with_file(f, backend);
}

doca_error_t doca_log_backend_create_with_file_sdk(FILE *fptr, doca_log_backend **backend) {
    if (!fptr || !backend) return DOCA_ERROR_INVALID_VALUE;
    auto sink = std::make_shared<spdlog::sinks::ansicolor_sink<spdlog::details::console_mutex>>(
        fptr, spdlog::color_mode::never);
    Registry &r = registry();
    return add_backend(std::move(sink), true, r.sdk, DOCA_LOG_LEVEL_CRIT, backend);
}

doca_error_t doca_log_backend_set_level_lower_limit(doca_log_backend *backend, uint32_t level) {
    if (!backend || !valid_level(level)) return DOCA_ERROR_INVALID_VALUE;
    backend->lower = level;
    return DOCA_SUCCESS;
}

doca_error_t doca_log_backend_set_level_upper_limit(doca_log_backend *backend, uint32_t upper_limit) {
    if (!backend || !valid_level(upper_limit)) return DOCA_ERROR_INVALID_VALUE;
    backend->upper = upper_limit;
    return DOCA_SUCCESS;
}

doca_error_t doca_log_backend_set_sdk_level(doca_log_backend *backend, uint32_t level) {
    if (!backend || !valid_level(level) || !backend->sdk) return DOCA_ERROR_INVALID_VALUE;
    backend->lower = level;
    return DOCA_SUCCESS;
}

doca_error_t doca_log(uint32_t level, int source, const char *fname, int line, const char *func,
                      const char *format, ...) {
    if (!format || !valid_level(level) || level == DOCA_LOG_LEVEL_DISABLE) return DOCA_ERROR_INVALID_VALUE;
    Registry &r = registry();
    if (level > r.lower.load(std::memory_order_relaxed)) return DOCA_SUCCESS;

    char text[1024];
    va_list ap;
    va_start(ap, format);
    vsnprintf(text, sizeof(text), format, ap);
    va_end(ap);

    std::lock_guard lock(r.mutex);
    const char *name = (source >= 0 && static_cast<size_t>(source) < r.sources.size())
                           ? r.sources[source].c_str()
                           : "unknown";
    const auto spd_level = skiff::log::from_doca_level(level);
    bool any = false;
    for (auto &b : r.backends) {
        if (b->sdk || level > b->lower || level < b->upper) continue;
        b->logger->log(spd_level, "[{}:{}][{}] {}", name, line, func ? func : "", text);
        any = true;
    }
    if (!any && r.backends.empty()) skiff::log::get("app")->log(spd_level, "[{}] {}", name, text);
    (void)fname;
    return DOCA_SUCCESS;
}

} // extern "C"
