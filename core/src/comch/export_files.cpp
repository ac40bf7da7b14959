#include "comch/export_files.hpp"

#include "comch/endpoint.hpp"
#include "mem/export_blob.hpp"
#include "mem/mmap.hpp"
#include "mem/received_exports.hpp"

#include <spdlog/fmt/fmt.h>

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace skiff::core::comch {

namespace {

bool connected(const doca_comch_connection *conn) {
    return conn != nullptr && conn->state == doca_comch_connection::State::connected && conn->fd >= 0;
}

// Why an export_files frame is refused; empty when it is acceptable.
std::string check_frame(const doca_comch_connection &conn, const mem::PciExportDesc &d, int nfds) {
    if (d.exporter_pid != conn.peer.pid)
        return fmt::format("it names pid {}, but pid {} sent it", d.exporter_pid, conn.peer.pid);
    int expected = d.backing_fd >= 0 ? 3 : 2;
    if (nfds != expected) return fmt::format("it carries {} files, the export has {}", nfds, expected);
    return {};
}

} // namespace

void file_export(const doca_comch_connection &conn, const uint8_t *payload, uint32_t len, const int *fds,
                 int nfds) {
    mem::OwnedFd owned[kMaxFrameFds];
    for (int i = 0; i < nfds && i < kMaxFrameFds; ++i) owned[i] = mem::OwnedFd(fds[i]);
    auto decoded = mem::decode_pci_export(payload, len);
    std::string why = decoded ? check_frame(conn, decoded.value(), nfds) : decoded.error().message;
    mem::ReceivedExport e;
    if (why.empty()) {
        std::string dir = "/proc/" + std::to_string(conn.peer.pid);
        e.proc_dir = mem::OwnedFd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
        if (e.proc_dir.get() < 0) why = fmt::format("{}: {}", dir, std::strerror(errno));
    }
    if (!why.empty()) {
        logger().warn("comch: export files from pid {} (uid {}) refused: {}", conn.peer.pid, conn.peer.uid,
                      why);
        return;
    }
    e.connection = &conn;
    e.pid = conn.peer.pid;
    e.uid = conn.peer.uid;
    e.token = decoded->token;
    e.segment = std::move(owned[0]);
    e.liveness = std::move(owned[1]);
    if (nfds == 3) e.backing = std::move(owned[2]);
    logger().debug("comch: pid {} (uid {}) handed over the files of its export [{:#x}, +{})", e.pid, e.uid,
                   decoded->addr, decoded->len);
    mem::received_exports().add(std::move(e));
}

void forget_exports(const doca_comch_connection &conn) {
    mem::received_exports().forget(&conn);
}

Result<PeerCredentials> peer_credentials(const doca_comch_connection *conn) {
    if (!connected(conn))
        return make_error(DOCA_ERROR_BAD_STATE, "comch: the connection is not connected (it went away?)");
    return conn->peer;
}

Status send_export_files(doca_comch_connection *conn, const doca_mmap *mmap, const doca_dev *dev) {
    if (!connected(conn))
        return make_error(DOCA_ERROR_BAD_STATE, "comch: the connection is not connected (it went away?)");
    const mem::ExportRecord *rec = nullptr;
    for (const auto &r : mmap->exports)
        if (r->dev == dev) rec = r.get();
    if (rec == nullptr)
        return make_error(DOCA_ERROR_NOT_FOUND,
                          "comch: the mmap has no PCI export with this device (doca_mmap_export_pci first)");
    auto d = mem::decode_pci_export(rec->blob.data(), rec->blob.size());
    if (!d) return d.error();
    int fds[kMaxFrameFds] = {rec->segment->fd(), d->liveness_fd, rec->backing ? rec->backing->fd() : -1};
    int nfds = rec->backing ? 3 : 2;
    FrameHeader header;
    header.type = FrameType::export_files;
    header.max_msg_size = static_cast<uint32_t>(nfds);
    iovec iov[2] = {{&header, sizeof header}, {const_cast<uint8_t *>(rec->blob.data()), rec->blob.size()}};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxFrameFds)] = {};
    msghdr msg{};
    msg.msg_iov = iov;
    msg.msg_iovlen = 2;
    msg.msg_control = control;
    msg.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
    cmsghdr *c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
    std::memcpy(CMSG_DATA(c), fds, sizeof(int) * nfds);
    ssize_t n;
    do {
        n = ::sendmsg(conn->fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
    } while (n < 0 && errno == EINTR);
    if (n >= 0) return Status::success();
    if (errno == EAGAIN || errno == EWOULDBLOCK)
        return make_error(DOCA_ERROR_AGAIN,
                          "comch: the connection's socket is full; send the export files again");
    return make_error(DOCA_ERROR_NOT_CONNECTED,
                      fmt::format("comch: sending the export files: {}", std::strerror(errno)));
}

Status check_export_from_peer(const doca_comch_connection *conn, const void *export_desc, size_t len) {
    auto peer = peer_credentials(conn);
    if (!peer) return peer.error();
    auto d = mem::decode_pci_export(export_desc, len);
    if (!d) return d.error();
    if (d->exporter_pid != peer->pid)
        return make_error(
            DOCA_ERROR_NOT_PERMITTED,
            fmt::format("the export descriptor names pid {}, but the process at the other end of "
                        "the connection is pid {} (uid {}): a peer hands over only its own exports",
                        d->exporter_pid, peer->pid, peer->uid));
    return Status::success();
}

} // namespace skiff::core::comch
