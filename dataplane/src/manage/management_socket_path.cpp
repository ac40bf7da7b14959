#include "skiff/dataplane/management_socket_path.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
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

// Creates the folder when missing; the error text says why it cannot be used.
std::string prepare_folder(const std::string &folder, mode_t mode) {
    if (::mkdir(folder.c_str(), mode) != 0 && errno != EEXIST)
        return "cannot create " + folder + ": " + std::strerror(errno);
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
    if (create_folder) {
        // Per-user folders (XDG, /tmp) are private; /run/skiff is for the admin and the service.
        bool shared = socket_path.rfind("/run/skiff/", 0) == 0;
        if (auto why = prepare_folder(folder_of(socket_path), shared ? 0755 : 0700); !why.empty())
            return make_error(DOCA_ERROR_NOT_PERMITTED, why);
    }
    std::string lock_path = socket_path + ".lock";
    int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0)
        return make_error(DOCA_ERROR_NOT_PERMITTED, "cannot open " + lock_path + ": " + std::strerror(errno));
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
