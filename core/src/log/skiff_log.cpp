// Named spdlog loggers for skiff components.
#include "skiff/core/log.hpp"

#include <doca_log.h>

#include <spdlog/sinks/stdout_color_sinks.h>

#include <cstdlib>
#include <mutex>
#include <string>

namespace skiff::log {
namespace {

struct State {
    std::mutex mutex;
    spdlog::sink_ptr sink = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
    spdlog::level::level_enum level = initial_level();

    // SKIFF_LOG_LEVEL lets tests and users raise verbosity without a flag.
    static spdlog::level::level_enum initial_level() {
        const char *env = std::getenv("SKIFF_LOG_LEVEL");
        if (env) {
            if (auto parsed = parse_level(env)) return *parsed;
        }
        return spdlog::level::info;
    }
};

State &state() {
    static State *s = new State();
    return *s;
}

} // namespace

std::shared_ptr<spdlog::logger> get(std::string_view component) {
    State &s = state();
    std::lock_guard lock(s.mutex);
    std::string name(component);
    if (auto existing = spdlog::get(name)) return existing;
    auto logger = std::make_shared<spdlog::logger>(name, s.sink);
    logger->set_level(s.level);
    logger->set_pattern("[%Y-%m-%d %H:%M:%S.%e] [%n] [%^%l%$] %v");
    spdlog::register_logger(logger);
    return logger;
}

void set_level(spdlog::level::level_enum level) {
    State &s = state();
    std::lock_guard lock(s.mutex);
    s.level = level;
    spdlog::apply_all([level](const std::shared_ptr<spdlog::logger> &l) { l->set_level(level); });
}

std::optional<spdlog::level::level_enum> parse_level(std::string_view name) {
    if (name == "trace") return spdlog::level::trace;
    if (name == "debug") return spdlog::level::debug;
    if (name == "info") return spdlog::level::info;
    if (name == "warn" || name == "warning") return spdlog::level::warn;
    if (name == "error") return spdlog::level::err;
    if (name == "critical") return spdlog::level::critical;
    if (name == "off") return spdlog::level::off;
    return std::nullopt;
}

spdlog::level::level_enum from_doca_level(uint32_t doca_level) {
    switch (doca_level) {
    case DOCA_LOG_LEVEL_DISABLE: return spdlog::level::off;
    case DOCA_LOG_LEVEL_CRIT: return spdlog::level::critical;
    case DOCA_LOG_LEVEL_ERROR: return spdlog::level::err;
    case DOCA_LOG_LEVEL_WARNING: return spdlog::level::warn;
    case DOCA_LOG_LEVEL_INFO: return spdlog::level::info;
    case DOCA_LOG_LEVEL_DEBUG: return spdlog::level::debug;
    default: return spdlog::level::trace;
    }
}

} // namespace skiff::log
