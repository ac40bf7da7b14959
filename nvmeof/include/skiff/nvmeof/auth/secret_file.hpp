// Keys kept in files rather than on command lines, where `ps` and /proc/<pid>/cmdline show them
// to every local user: DH-HMAC-CHAP secrets (--dhchap-key-file ...) and TLS PSKs
// (--tls-psk-file, --psk-file). Such a file, like a configuration that holds secrets, should be
// readable by its owner (and perhaps one group) only; a looser one still works but draws a
// warning that names the file and the fix.
#pragma once

#include "skiff/core/status.hpp"

#include <sys/types.h>

#include <string>

namespace skiff::nvmeof::auth {

struct SecretFile {
    std::string text;    // the first line, without trailing spaces, CR or LF
    std::string warning; // "" or why the file's mode exposes it (secret_mode_warning)
};

// Reads the first line of path; its mode is checked on the open file (no race with a rename).
Result<SecretFile> read_secret_file(const std::string &path);

// "" when a file of this mode keeps its secrets from other users: neither readable by others
// nor writable by group or others. Else a sentence naming path, its mode and the fix.
std::string secret_mode_warning(const std::string &path, mode_t mode);

} // namespace skiff::nvmeof::auth
