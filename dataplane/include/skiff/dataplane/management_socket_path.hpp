// Where skiff-target's management socket lives when the configuration names none, and the claim
// that keeps two targets from fighting over one socket. skiff-ctl looks in the same places.
//
// The default, first usable of:
//   $RUNTIME_DIRECTORY/target.sock      (systemd's RuntimeDirectory=skiff: /run/skiff)
//   /run/skiff/target.sock
//   $XDG_RUNTIME_DIR/skiff/target.sock  (a user session)
//   /tmp/skiff-<uid>/target.sock
// A folder is usable when it exists or can be created, this process can write in it, and nobody
// else can swap the socket in it: a real directory (no symbolic link) owned by this user or root,
// not writable by group or others unless sticky (dataplane/src/manage/README.md).
#pragma once

#include "skiff/core/status.hpp"

#include <string>
#include <vector>

namespace skiff::dataplane {

// The candidates above, in order (those whose variable is unset left out).
std::vector<std::string> default_management_socket_paths();

// Holds "<socket>.lock" (flock) for as long as it lives: the socket belongs to this process.
class ManagementSocketClaim {
  public:
    ManagementSocketClaim() = default;
    ManagementSocketClaim(ManagementSocketClaim &&other) noexcept;
    ManagementSocketClaim &operator=(ManagementSocketClaim &&other) noexcept;
    ~ManagementSocketClaim();

    // Takes the lock of `socket_path`, creating its folder (mode 0700 for per-user folders,
    // 0755 otherwise) when `create_folder`; the folder must pass the checks above either way
    // (DOCA_ERROR_NOT_PERMITTED with the reason). DOCA_ERROR_IN_USE: another live process holds it.
    static Result<ManagementSocketClaim> take(const std::string &socket_path, bool create_folder);
    const std::string &path() const { return path_; }

  private:
    std::string path_;
    int lock_fd_ = -1;
};

// The first default candidate whose folder is usable, claimed. Notes (one line each) say which
// candidates were passed over and why; DOCA_ERROR_IN_USE when the first usable one belongs to
// another live target (a second target does not move to the next folder: skiff-ctl would find the
// first target there).
Result<ManagementSocketClaim> claim_default_management_socket(std::vector<std::string> &notes);

} // namespace skiff::dataplane
