// Who may talk to whom over the management socket. The socket carries every secret the target
// holds (host add --dhchap-key, save), so both ends check the other's credentials as the kernel
// reports them (SO_PEERCRED, SO_PEERGROUPS), not only the socket file's mode:
//   - skiff-target serves root, its own user, and members of the management group (the group
//     "skiff" when it exists, else the target's own group); anyone else gets one refusal line
//     and the connection closes.
//   - skiff-ctl talks only to a target running as root, as the caller, or as the user "skiff"
//     (the service's user): a socket another user put at that path gets no request, no secret.
// dataplane/src/manage/README.md has the whole trust model.
#pragma once

#include "skiff/core/status.hpp"

#include <sys/types.h>

#include <string>
#include <vector>

namespace skiff::dataplane {

// The user and group skiff-target.service runs as (packaging/sysusers.d/skiff.conf).
constexpr const char *kServiceUser = "skiff";
constexpr const char *kManagementGroup = "skiff";

struct PeerCredentials {
    pid_t pid = 0;
    uid_t uid = 0;
    gid_t gid = 0;             // the peer's effective group
    std::vector<gid_t> groups; // its supplementary groups

    // "pid 123, uid 65534 (nobody), gid 65534" for logs and refusals.
    std::string describe() const;
};

// The credentials of the process at the other end of a connected Unix socket.
Result<PeerCredentials> peer_credentials(int fd);

// The management group: "skiff" when the system has it, else this process's effective group.
gid_t management_group();

// Server side: root, the target's own user (`self`), or a member of `group`.
bool may_manage(const PeerCredentials &peer, uid_t self, gid_t group);

// Client side: the target must run as root, as the caller (`self`) or as the service user.
bool trusted_target(const PeerCredentials &target, uid_t self);

} // namespace skiff::dataplane
