// What an importer checks before it trusts an exporter's files (the local trust model, README.md
// "Local trust"). The importer may run as root next to processes of other users: it must never
// reach, with its own rights, a file the exporter could not reach with the exporter's.
#pragma once

#include <skiff/core/status.hpp>

#include <sys/types.h>

namespace skiff::core::mem {

// The uid of the process behind a /proc/<pid> directory descriptor: its real, effective, saved and
// filesystem uids when they agree; NOT_PERMITTED when they do not (a process between users is
// trusted as neither), NOT_CONNECTED when it is gone.
Result<uid_t> process_uid(int proc_dir);

// A file an import may map as the exporter's shared memory: a memfd (a nameless tmpfs file) or a
// hugetlbfs file, owned by `owner`; when `check_mode`, the descriptor itself must be open for
// reading, and for writing when `writable` (a descriptor received from the exporter keeps the mode
// the exporter opened it with; an O_PATH one is refused). NOT_SUPPORTED when the file is of another
// kind, NOT_PERMITTED for the owner or the mode; the message names what is wrong.
Status check_shared_file(int fd, uid_t owner, bool writable, bool check_mode);

} // namespace skiff::core::mem
