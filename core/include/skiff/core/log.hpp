// skiff's own logging: named spdlog loggers ("core", "nvmeof", "tcp", ...) sharing one sink and
// one level, so `--log-level debug` turns on every component at once.
#pragma once

#include <spdlog/spdlog.h>

#include <memory>
#include <optional>
#include <string_view>

namespace skiff::log {

// The logger for a component; created on first use with the shared sink and level.
std::shared_ptr<spdlog::logger> get(std::string_view component);

// Sets the level of every skiff logger (existing and future).
void set_level(spdlog::level::level_enum level);

// "trace", "debug", "info", "warn", "error", "critical", "off" -> level; nullopt otherwise.
std::optional<spdlog::level::level_enum> parse_level(std::string_view name);

// DOCA level numbers (10..70) -> spdlog level.
spdlog::level::level_enum from_doca_level(uint32_t doca_level);

} // namespace skiff::log
