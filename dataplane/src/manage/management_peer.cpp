#include "skiff/dataplane/management_peer.hpp"

#include <grp.h>
#include <pwd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>

namespace skiff::dataplane {

namespace {

std::optional<uid_t> uid_of(const char *user) {
    std::vector<char> buf(4096);
    passwd pw{}, *found = nullptr;
    if (::getpwnam_r(user, &pw, buf.data(), buf.size(), &found) != 0 || !found) return std::nullopt;
    return found->pw_uid;
}

std::optional<gid_t> gid_of(const char *group) {
    std::vector<char> buf(4096);
    struct group gr {};
    struct group *found = nullptr;
    if (::getgrnam_r(group, &gr, buf.data(), buf.size(), &found) != 0 || !found) return std::nullopt;
    return found->gr_gid;
}

std::string user_name(uid_t uid) {
    std::vector<char> buf(4096);
    passwd pw{}, *found = nullptr;
    if (::getpwuid_r(uid, &pw, buf.data(), buf.size(), &found) != 0 || !found) return "";
    return found->pw_name;
}

} // namespace

std::string PeerCredentials::describe() const {
    std::string name = user_name(uid);
    return "pid " + std::to_string(pid) + ", uid " + std::to_string(uid) +
           (name.empty() ? "" : " (" + name + ")") + ", gid " + std::to_string(gid);
}

Result<PeerCredentials> peer_credentials(int fd) {
    ucred cred{};
    socklen_t len = sizeof(cred);
    if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0)
        return make_error(DOCA_ERROR_OPERATING_SYSTEM,
                          std::string("cannot read the peer's credentials (SO_PEERCRED): ") +
                              std::strerror(errno));
    PeerCredentials out;
    out.pid = cred.pid;
    out.uid = cred.uid;
    out.gid = cred.gid;
    // The supplementary groups the peer had when it connected; ERANGE tells how many there are.
    std::vector<gid_t> groups(64);
    for (int attempt = 0; attempt < 2; ++attempt) {
        len = socklen_t(groups.size() * sizeof(gid_t));
        if (::getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups.data(), &len) == 0) {
            groups.resize(len / sizeof(gid_t));
            out.groups = std::move(groups);
            return out;
        }
        if (errno != ERANGE) break;
        groups.resize(len / sizeof(gid_t) + 1);
    }
    return make_error(DOCA_ERROR_OPERATING_SYSTEM,
                      std::string("cannot read the peer's groups (SO_PEERGROUPS): ") + std::strerror(errno));
}

gid_t management_group() {
    return gid_of(kManagementGroup).value_or(::getegid());
}

bool may_manage(const PeerCredentials &peer, uid_t self, gid_t group) {
    if (peer.uid == 0 || peer.uid == self || peer.gid == group) return true;
    return std::find(peer.groups.begin(), peer.groups.end(), group) != peer.groups.end();
}

bool trusted_target(const PeerCredentials &target, uid_t self) {
    if (target.uid == 0 || target.uid == self) return true;
    auto service = uid_of(kServiceUser);
    return service && target.uid == *service;
}

} // namespace skiff::dataplane
