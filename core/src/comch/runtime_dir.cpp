#include "comch/runtime_dir.hpp"

#include "comch/endpoint.hpp"

#include <spdlog/fmt/fmt.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace skiff::core::comch {

namespace {

Error refuse(const std::string &dir, const std::string &why) {
    return make_error(
        DOCA_ERROR_NOT_PERMITTED,
        fmt::format("comch socket directory '{}' {}: another user could bind a channel's name "
                    "there first and receive what is sent. Remove it, or set SKIFF_COMCH_DIR to "
                    "a directory owned by root or by this user (uid {}) with mode 0700 (0750 or "
                    "2770 to admit a group)",
                    dir, why, ::geteuid()));
}

} // namespace

Status ensure_private_dir(const std::string &dir) {
    if (::mkdir(dir.c_str(), 0700) == 0) {
        if (::chmod(dir.c_str(), 0700) != 0) // the umask cannot widen 0700; chmod states the intent
            return make_error(DOCA_ERROR_OPERATING_SYSTEM,
                              fmt::format("chmod 0700 '{}': {}", dir, std::strerror(errno)));
        return Status::success();
    }
    if (errno != EEXIST)
        return make_error(
            DOCA_ERROR_OPERATING_SYSTEM,
            fmt::format("cannot create the comch socket directory '{}': {} (set SKIFF_COMCH_DIR "
                        "to a directory this process may create)",
                        dir, std::strerror(errno)));
    struct stat st {};
    if (::lstat(dir.c_str(), &st) != 0)
        return make_error(DOCA_ERROR_OPERATING_SYSTEM,
                          fmt::format("comch socket directory '{}': {}", dir, std::strerror(errno)));
    if (S_ISLNK(st.st_mode)) return refuse(dir, "is a symbolic link");
    if (!S_ISDIR(st.st_mode)) return refuse(dir, "is not a directory");
    bool ours = st.st_uid == ::geteuid();
    if (!ours && st.st_uid != 0) return refuse(dir, fmt::format("is owned by uid {}", st.st_uid));
    if ((st.st_mode & 0007) == 0) return Status::success();
    if (!ours) return refuse(dir, fmt::format("has mode {:04o}, open to every user", st.st_mode & 07777));
    mode_t closed = st.st_mode & 02770;
    if (::chmod(dir.c_str(), closed) != 0)
        return refuse(dir, fmt::format("has mode {:04o} and cannot be closed ({})", st.st_mode & 07777,
                                       std::strerror(errno)));
    logger().warn("comch socket directory '{}' was open to every user (mode {:04o}); closed it to {:04o}",
                  dir, st.st_mode & 07777, closed);
    return Status::success();
}

void restrict_socket_file(const std::string &path, const std::string &dir) {
    struct stat st {};
    bool group = ::stat(dir.c_str(), &st) == 0 && (st.st_mode & S_IXGRP) != 0;
    if (::chmod(path.c_str(), group ? 0660 : 0600) != 0)
        logger().warn("comch: chmod of socket '{}': {} (the directory still guards it)", path,
                      std::strerror(errno));
}

} // namespace skiff::core::comch
