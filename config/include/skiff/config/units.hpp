// Text forms used in configuration files: sizes with binary units and 16-byte identifiers.
#pragma once

#include "skiff/config/config.hpp"

#include <optional>
#include <string>

namespace skiff::config {

// "512MiB", "1TiB", "4096", "64KiB", "4K", "2G" -> bytes; nullopt when malformed or overflowing.
std::optional<uint64_t> parse_size(const std::string &text);
// The shortest exact form: 1073741824 -> "1GiB", 4608 -> "4608".
std::string format_size(uint64_t bytes);

// "01234567-89ab-cdef-0123-456789abcdef" or 32 hex digits -> 16 bytes.
std::optional<Id16> parse_id16(const std::string &text);
// Always the dashed 8-4-4-4-12 form.
std::string format_id16(const Id16 &id);
// An EUI-64: 16 hex digits -> 8 bytes; printed as 16 hex digits.
std::optional<Id8> parse_id8(const std::string &text);
std::string format_id8(const Id8 &id);

} // namespace skiff::config
