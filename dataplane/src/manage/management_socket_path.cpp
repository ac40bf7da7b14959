#include "skiff/dataplane/management_socket_path.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <utility>

namespace skiff::dataplane {

namespace {

std::string env(const char *name) {
    const char *v = std::getenv(name);
    return v ? v : "";
}

std::string folder_of(const std::string &path) {
    return std::filesystem::path(path).parent_path().string();
}

// Whether a folder may hold the management socket: a real directory (not a symlink) owned by
// this user or root, that no other user can write in (or a sticky one such as /tmp, where they
// cannot remove or rename what is ours). Anyone else who can write there could replace the socket
// with their own, and skiff-ctl would hand them the secrets. Empty: usable; else why not.
std::string check_folder(const std::string &folder) {
    struct stat st {};
    if (::lstat(folder.c_str(), &st) != 0) return "cannot use " + folder + ": " + std::strerror(errno);
    if (!S_ISDIR(st.st_mode)) return folder + " is not a directory (a symbolic link?); refusing it";
    if (st.st_uid != ::geteuid() && st.st_uid != 0)
        return folder + " belongs to uid " + std::to_string(st.st_uid) +
               ", not to this user or root: its owner could replace the socket; refusing it";
    if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX)) {
        char mode[8];
        std::snprintf(mode, sizeof(mode), "%04o", unsigned(st.st_mode & 07777));
        return folder + " (mode " + mode +
               ") is writable by other users, who could replace the socket; refusing it (chmod go-w)";
    }
    return "";
}

// Creates the folder when missing; the error text says why it cannot be used.
std::string prepare_folder(const std::string &folder, mode_t mode) {
    if (::mkdir(folder.c_str(), mode) != 0 && errno != EEXIST)
        return "cannot create " + folder + ": " + std::strerror(errno);
    if (auto why = check_folder(folder); !why.empty()) return why;
    if (::access(folder.c_str(), W_OK | X_OK) != 0)
        return "cannot write in " + folder + ": " + std::strerror(errno);
    return "";
}

} // namespace

std::vector<std::string> default_management_socket_paths() {
    std::vector<std::string> out;
    // systemd may list several runtime folders separated by ':'; skiff's unit names one.
    if (auto rt = env("RUNTIME_DIRECTORY"); !rt.empty())
        out.push_back(rt.substr(0, rt.find(':')) + "/target.sock");
    out.push_back("/run/skiff/target.sock");
    if (auto xdg = env("XDG_RUNTIME_DIR"); !xdg.empty()) out.push_back(xdg + "/skiff/target.sock");
    out.push_back("/tmp/skiff-" + std::to_string(::getuid()) + "/target.sock");
    return out;
}

ManagementSocketClaim::ManagementSocketClaim(ManagementSocketClaim &&other) noexcept
    : path_(std::move(other.path_)), lock_fd_(std::exchange(other.lock_fd_, -1)) {}

ManagementSocketClaim &ManagementSocketClaim::operator=(ManagementSocketClaim &&other) noexcept {
    if (this != &other) {
        if (lock_fd_ >= 0) ::close(lock_fd_);
        path_ = std::move(other.path_);
        lock_fd_ = std::exchange(other.lock_fd_, -1);
    }
    return *this;
}

ManagementSocketClaim::~ManagementSocketClaim() {
    if (lock_fd_ >= 0) ::close(lock_fd_); // the lock goes with the descriptor; the file stays
}

Result<ManagementSocketClaim> ManagementSocketClaim::take(const std::string &socket_path,
                                                          bool create_folder) {
    std::string folder = folder_of(socket_path);
    if (folder.empty()) folder = ".";
    if (create_folder) {
        // Per-user folders (XDG, /tmp) are private; /run/skiff is for the admin and the service.
        bool shared = socket_path.rfind("/run/skiff/", 0) == 0;
        if (auto why = prepare_folder(folder, shared ? 0755 : 0700); !why.empty())
            return make_error(DOCA_ERROR_NOT_PERMITTED, why);
    } else if (auto why = check_folder(folder); !why.empty()) {
        return make_error(DOCA_ERROR_NOT_PERMITTED, why);
    }
    std::string lock_path = socket_path + ".lock";
    // Never through a symbolic link, and only a lock file of our own (a sticky folder may hold
    // one another user put there first).
    int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return make_error(DOCA_ERROR_NOT_PERMITTED, "cannot open " + lock_path + ": " + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (st.st_uid != ::geteuid() && st.st_uid != 0)) {
        ::close(fd);
        return make_error(DOCA_ERROR_NOT_PERMITTED,
                          lock_path + " is not a regular file of this user or root; refusing it");
    }
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int e = errno;
        ::close(fd);
        if (e == EWOULDBLOCK)
            return make_error(DOCA_ERROR_IN_USE, socket_path +
                                                     " belongs to another running skiff-target (it holds " +
                                                     lock_path + ")");
        return make_error(DOCA_ERROR_OPERATING_SYSTEM, "cannot lock " + lock_path + ": " + std::strerror(e));
    }
    ManagementSocketClaim c;
    c.path_ = socket_path;
    c.lock_fd_ = fd;
    return c;
}

Result<ManagementSocketClaim> claim_default_management_socket(std::vector<std::string> &notes) {
    for (auto &path : default_management_socket_paths()) {
        auto claim = ManagementSocketClaim::take(path, true);
        if (claim || claim.error().code == DOCA_ERROR_IN_USE) return claim;
        notes.push_back(path + ": " + claim.error().message);
    }
    return make_error(DOCA_ERROR_NOT_PERMITTED, "no usable folder for the default management socket");
}

} // namespace skiff::dataplane
