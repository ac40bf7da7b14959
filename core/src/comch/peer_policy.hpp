// Who may be at the other end of a comch connection (the local trust model, README.md): root, the
// effective uid of this process, and the uids SKIFF_COMCH_PEER_UIDS lists. The server applies it to
// every client that connects, the client to the server it reached (a socket someone else bound
// first is not a server of ours).
#pragma once

#include <skiff/core/comch_trust.hpp>
#include <skiff/core/status.hpp>

#include <string>
#include <vector>

namespace skiff::core::comch {

// The kernel's record of the process at the other end of a connected Unix socket (SO_PEERCRED).
Result<PeerCredentials> socket_peer(int fd);

class PeerPolicy {
  public:
    // Root, geteuid(), and SKIFF_COMCH_PEER_UIDS: a comma-separated list of uids or user names.
    // INVALID_VALUE naming the entry that is neither.
    static Result<PeerPolicy> from_environment();

    bool allows(uid_t uid) const;
    // For logs: "uid 0, 1000 (skiff)".
    std::string describe() const;

  private:
    std::vector<uid_t> uids_;
};

} // namespace skiff::core::comch
