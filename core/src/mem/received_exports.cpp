#include "mem/received_exports.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>

namespace skiff::core::mem {

OwnedFd::~OwnedFd() {
    if (fd_ >= 0) ::close(fd_);
}

OwnedFd &OwnedFd::operator=(OwnedFd &&o) noexcept {
    if (this != &o) {
        if (fd_ >= 0) ::close(fd_);
        fd_ = o.release();
    }
    return *this;
}

OwnedFd OwnedFd::dup() const {
    return OwnedFd(fd_ >= 0 ? ::fcntl(fd_, F_DUPFD_CLOEXEC, 0) : -1);
}

std::optional<ReceivedExport> ReceivedExport::copy() const {
    ReceivedExport c;
    c.connection = connection;
    c.pid = pid;
    c.uid = uid;
    c.token = token;
    c.segment = segment.dup();
    c.liveness = liveness.dup();
    c.backing = backing.dup();
    c.proc_dir = proc_dir.dup();
    if (c.segment.get() < 0 || c.liveness.get() < 0 || c.proc_dir.get() < 0 ||
        (backing.get() >= 0 && c.backing.get() < 0))
        return std::nullopt; // out of descriptors: the import fails as if nothing had arrived
    return c;
}

void ReceivedExports::add(ReceivedExport e) {
    std::lock_guard lock(mutex_);
    size_t same_connection = 0;
    for (auto it = entries_.begin(); it != entries_.end();) {
        if ((*it)->connection == e.connection && (*it)->token == e.token) {
            it = entries_.erase(it);
            continue;
        }
        same_connection += (*it)->connection == e.connection;
        ++it;
    }
    if (same_connection >= kPerConnection) {
        auto oldest = std::find_if(entries_.begin(), entries_.end(),
                                   [&](const auto &x) { return x->connection == e.connection; });
        entries_.erase(oldest);
    }
    entries_.push_back(std::make_unique<ReceivedExport>(std::move(e)));
}

void ReceivedExports::forget(const void *connection) {
    std::lock_guard lock(mutex_);
    std::erase_if(entries_, [&](const auto &x) { return x->connection == connection; });
}

std::optional<ReceivedExport> ReceivedExports::find(uint64_t token, pid_t pid) {
    std::lock_guard lock(mutex_);
    for (auto it = entries_.rbegin(); it != entries_.rend(); ++it)
        if ((*it)->token == token && (*it)->pid == pid) return (*it)->copy();
    return std::nullopt;
}

ReceivedExports &received_exports() {
    static ReceivedExports *registry = new ReceivedExports; // never destroyed: used until exit
    return *registry;
}

} // namespace skiff::core::mem
