#include "skiff/nvmeof/auth/secret_file.hpp"

#include <openssl/crypto.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace skiff::nvmeof::auth {

namespace {

// A key is one line; anything much longer is not a key file.
constexpr size_t kMaxSecretFileBytes = 64 * 1024;

} // namespace

std::string secret_mode_warning(const std::string &path, mode_t mode) {
    if (!(mode & (S_IROTH | S_IWOTH | S_IWGRP))) return "";
    char text[8];
    std::snprintf(text, sizeof(text), "%04o", unsigned(mode & 07777));
    return path + " holds secrets but its mode " + text + " lets other users " +
           ((mode & S_IROTH) ? "read" : "change") + " it; chmod 0600 " + path + " (or 0640 for one group)";
}

Result<SecretFile> read_secret_file(const std::string &path) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return make_error(DOCA_ERROR_NOT_FOUND, "cannot read " + path + ": " + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        return make_error(DOCA_ERROR_INVALID_VALUE, path + ": not a regular file");
    }
    SecretFile out;
    out.warning = secret_mode_warning(path, st.st_mode);
    char buf[4096];
    for (;;) {
        ssize_t n = ::read(fd, buf, sizeof(buf));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        out.text.append(buf, size_t(n));
        if (out.text.find('\n') != std::string::npos || out.text.size() > kMaxSecretFileBytes) break;
    }
    ::close(fd);
    OPENSSL_cleanse(buf, sizeof(buf));
    if (auto nl = out.text.find('\n'); nl != std::string::npos) out.text.resize(nl);
    while (!out.text.empty() && (out.text.back() == '\r' || out.text.back() == ' ')) out.text.pop_back();
    if (out.text.empty())
        return make_error(DOCA_ERROR_INVALID_VALUE, path + ": empty (expected the key on its first line)");
    return out;
}

} // namespace skiff::nvmeof::auth
