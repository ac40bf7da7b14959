// PCI addresses as DOCA prints them: "dddd:bb:dd.f" (domain, bus, device, function; lower-case hex).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace skiff::core::dev {

// "0000:0b:00.2" or "0b:00.2" (any case) -> "0000:0b:00.2"; nullopt when malformed.
std::optional<std::string> normalize_pci_addr(std::string_view text);

} // namespace skiff::core::dev
