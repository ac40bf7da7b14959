// The directory the channel's sockets live in, checked before anything is bound or connected in it
// (the local trust model, README.md). A directory another user created (or can write into) would
// let that user bind a channel's name first and receive what the other end sends.
#pragma once

#include <skiff/core/status.hpp>

#include <string>
#include <sys/types.h>

namespace skiff::core::comch {

// Creates `dir` with mode 0700 when it is missing (whatever the umask), or accepts it when it is a
// real directory (not a symbolic link) owned by root or this process's effective uid and closed to
// "other" users. A group may have access (0750 or 2770 with a "skiff" group: an administrator's
// choice for a peer running as another user). A directory of ours left open to others (the 1777 of
// earlier versions) is closed (mode & 02770) with a warning; one of another user, or open to others
// and not ours, is refused with NOT_PERMITTED naming the owner and the mode.
Status ensure_private_dir(const std::string &dir);

// Gives a socket file just bound in `dir` the mode the directory's group access implies (0660 when
// the group may enter the directory, else 0600): bind makes it 0777 & ~umask, so 0777 under umask 0.
void restrict_socket_file(const std::string &path, const std::string &dir);

} // namespace skiff::core::comch
