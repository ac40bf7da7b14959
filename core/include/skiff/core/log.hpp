// skiff's own logging: named spdlog loggers ("core", "nvmeof", "tcp", ...) sharing one sink and
// one level, so `--log-level debug` turns on every component at once.
#pragma once

#include <spdlog/spdlog.h>

// Compile time: fmt 9 declares no explicit instantiation of detail::vformat_to<char>, so every file
// that logs would instantiate and compile fmt's whole formatting engine (about 80 functions, some
// 4 s of CPU per file at -O2, 12 s under clang's ASan + UBSan) although one copy is enough.
// Declaring it extern makes those files call one compiled copy: a file that logs compiles about 3x
// faster (4x under the sanitizers), in every build flavour. (fmt 8 declares it itself.)
// - GCC: the copy in libfmt.so (Debian builds it with GCC).
// - clang: its own copy, core/src/log/fmt_instance.cpp in libskiff-core: clang mangles this
//   signature's return-type alias differently from GCC, so libfmt.so's symbol does not match.
#if defined(FMT_VERSION) && FMT_VERSION >= 90000 && FMT_VERSION < 100000 && !defined(FMT_HEADER_ONLY)
#define SKIFF_FMT_EXTERN_VFORMAT_TO 1
#if defined(__clang__)
#define SKIFF_FMT_VFORMAT_TO_API
#else
#define SKIFF_FMT_VFORMAT_TO_API FMT_API
#endif
namespace fmt {
inline namespace v9 {
namespace detail {
extern template SKIFF_FMT_VFORMAT_TO_API void
vformat_to<char>(buffer<char> &, basic_string_view<char>,
                 basic_format_args<FMT_BUFFER_CONTEXT(type_identity_t<char>)>, locale_ref);
} // namespace detail
} // namespace v9
} // namespace fmt
#endif

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
