#include "comch/peer_policy.hpp"

#include <spdlog/fmt/fmt.h>

#include <pwd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>

namespace skiff::core::comch {

Result<PeerCredentials> socket_peer(int fd) {
    ucred cred{};
    socklen_t len = sizeof cred;
    if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 || len != sizeof cred)
        return make_error(DOCA_ERROR_OPERATING_SYSTEM,
                          fmt::format("SO_PEERCRED on a comch socket: {}", std::strerror(errno)));
    return PeerCredentials{cred.pid, cred.uid, cred.gid};
}

namespace {

// A uid, or a user name looked up in the password database; nullopt when it is neither.
std::optional<uid_t> parse_user(const std::string &text) {
    if (text.empty()) return std::nullopt;
    char *end = nullptr;
    errno = 0;
    unsigned long n = std::strtoul(text.c_str(), &end, 10);
    if (*end == '\0' && errno == 0 && text[0] != '-' && n <= 0xfffffffeul) return static_cast<uid_t>(n);
    passwd pw{}, *found = nullptr;
    char buf[1024];
    if (::getpwnam_r(text.c_str(), &pw, buf, sizeof buf, &found) == 0 && found != nullptr) return pw.pw_uid;
    return std::nullopt;
}

} // namespace

Result<PeerPolicy> PeerPolicy::from_environment() {
    PeerPolicy p;
    p.uids_ = {0, ::geteuid()};
    const char *env = std::getenv("SKIFF_COMCH_PEER_UIDS");
    std::string list = env != nullptr ? env : "";
    size_t at = 0;
    while (at <= list.size() && !list.empty()) {
        size_t comma = list.find(',', at);
        std::string entry = list.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
        entry.erase(0, entry.find_first_not_of(' '));
        entry.erase(entry.find_last_not_of(' ') + 1);
        auto uid = parse_user(entry);
        if (!uid)
            return make_error(DOCA_ERROR_INVALID_VALUE,
                              fmt::format("SKIFF_COMCH_PEER_UIDS=\"{}\": \"{}\" is neither a uid nor a user "
                                          "name; expected a comma-separated list such as \"1000,skiff\"",
                                          list, entry));
        p.uids_.push_back(*uid);
        if (comma == std::string::npos) break;
        at = comma + 1;
    }
    std::sort(p.uids_.begin(), p.uids_.end());
    p.uids_.erase(std::unique(p.uids_.begin(), p.uids_.end()), p.uids_.end());
    return p;
}

bool PeerPolicy::allows(uid_t uid) const {
    return std::find(uids_.begin(), uids_.end(), uid) != uids_.end();
}

std::string PeerPolicy::describe() const {
    std::string out = "uid";
    for (size_t i = 0; i < uids_.size(); ++i) out += fmt::format("{}{}", i == 0 ? " " : ", ", uids_[i]);
    return out;
}

} // namespace skiff::core::comch
