#include "comch/socket_path.hpp"

#include "comch/runtime_dir.hpp"

#include <spdlog/fmt/fmt.h>

#include <sys/un.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace skiff::core::comch {

namespace {

// Names may hold any byte; the file name keeps [A-Za-z0-9._-] and escapes the rest as %XX.
std::string escape(std::string_view text) {
    std::string out;
    for (unsigned char c : text) {
        bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                     c == '_' || c == '-';
        if (plain)
            out.push_back(static_cast<char>(c));
        else
            out += fmt::format("%{:02X}", c);
    }
    return out;
}

} // namespace

std::string socket_dir() {
    const char *dir = std::getenv("SKIFF_COMCH_DIR");
    return dir != nullptr && *dir != '\0' ? dir : "/tmp/skiff-comch";
}

// 64-bit FNV-1a: a stable short stand-in for a name too long for a socket path.
static uint64_t name_hash(std::string_view text) {
    uint64_t h = 1469598103934665603ull;
    for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
    return h;
}

Result<std::string> socket_path(std::string_view function_pci, std::string_view server_name) {
    constexpr size_t limit = sizeof(sockaddr_un{}.sun_path) - 1;
    std::string dir = socket_dir() + "/" + escape(function_pci);
    std::string path = dir + "@" + escape(server_name);
    // A long name (up to kMaxNameLen) does not fit a sockaddr_un: both ends then use its hash.
    if (path.size() > limit) path = dir + "#" + fmt::format("{:016x}", name_hash(server_name));
    if (path.size() > limit)
        return make_error(
            DOCA_ERROR_INVALID_VALUE,
            fmt::format("comch socket path '{}' is {} bytes, a Unix socket takes at most {}: use a "
                        "shorter SKIFF_COMCH_DIR",
                        path, path.size(), limit));
    return path;
}

Status ensure_socket_dir() {
    return ensure_private_dir(socket_dir());
}

} // namespace skiff::core::comch
