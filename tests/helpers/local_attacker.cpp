// A local user attacking the emulated Comch channel and PCI export of a skiff process next to it:
// the tests start it as an unprivileged user (setpriv --reuid=nobody ...) to show what such a user
// can and cannot do (core/src/comch/README.md, "Local trust"). It speaks the channel's frames on a
// raw socket (wire.hpp), so it can do what no well-behaved client does. One result per line.
//
// Usage (SKIFF_COMCH_DIR names the channel directory, as for every skiff process):
//   local_attacker join <server name>
//       Connects to the channel of host function 0b:00.0 and, if welcomed, sends an EXPORT line
//       naming a made-up export (the hostmem control channel's "replace the export").
//       Prints CANNOT_CONNECT <errno>, REFUSED <reason>, CLOSED, or JOINED then SENT.
//   local_attacker squat <server name> <seconds>
//       Creates the channel directory if missing (mode 0777) and binds the channel's socket first.
//       Prints CANNOT_MKDIR <errno>, CANNOT_BIND <errno> or SQUATTING; then, for <seconds>, prints
//       CLIENT <k> for each client that connects and counts the bytes they send; at the end
//       CLIENTS <n> BYTES <m>.
//   local_attacker serve-file <server name> <path> files|descriptor
//       Opens <path> with O_PATH (enough for a file it may not read), exports 4 KiB of a memfd of
//       its own with doca_mmap_export_pci, and rewrites its export (segment and descriptor) so
//       that the shared memory is that O_PATH descriptor. Then connects like `join`, hands over
//       the export's files with the O_PATH descriptor in the memfd's place ("files", the frame of
//       send_export_files) or nothing ("descriptor": the importer would have to open
//       /proc/<pid>/fd itself), and sends the 160-byte descriptor as a message. Prints JOINED and
//       SENT (or why not), then stays alive until its stdin closes. With "-" as <path> the export is
//       left as it is (a genuine export of a memfd filled with 0x5a: what a well-behaved exporter
//       of another user sends).
#include "../../core/src/comch/socket_path.hpp"
#include "../../core/src/comch/wire.hpp"
#include "../../core/src/mem/export_blob.hpp"
#include "../../core/src/mem/export_segment.hpp"

#include <doca_dev.h>
#include <doca_mmap.h>

#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

namespace comch = skiff::core::comch;
namespace mem = skiff::core::mem;

void say(const std::string &line) {
    std::printf("%s\n", line.c_str());
    std::fflush(stdout);
}

std::string channel_path(const std::string &name) {
    auto path = comch::socket_path("0000:0b:00.0", name);
    if (!path) {
        say("ERROR " + path.error().message);
        std::exit(2);
    }
    return path.value();
}

sockaddr_un address_of(const std::string &path) {
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
    return addr;
}

bool send_frame(int fd, comch::FrameType type, uint32_t word, const void *payload, size_t len,
                const int *fds = nullptr, int nfds = 0) {
    comch::FrameHeader h;
    h.type = type;
    h.max_msg_size = word;
    iovec iov[2] = {{&h, sizeof h}, {const_cast<void *>(payload), len}};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * comch::kMaxFrameFds)] = {};
    msghdr msg{};
    msg.msg_iov = iov;
    msg.msg_iovlen = payload != nullptr ? 2 : 1;
    if (nfds > 0) {
        msg.msg_control = control;
        msg.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
        cmsghdr *c = CMSG_FIRSTHDR(&msg);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
        std::memcpy(CMSG_DATA(c), fds, sizeof(int) * nfds);
    }
    return ::sendmsg(fd, &msg, MSG_NOSIGNAL) >= 0;
}

// Connects and says hello; the socket once welcomed, else -1 (the outcome printed).
int join(const std::string &name) {
    std::string path = channel_path(name);
    int fd = ::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    sockaddr_un addr = address_of(path);
    if (::connect(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0) {
        say(std::string("CANNOT_CONNECT ") + strerrorname_np(errno));
        return -1;
    }
    // A hello that cannot be sent (EPIPE) may mean the server refused us before it arrived: its
    // refuse frame is still queued, so read on either way.
    (void)send_frame(fd, comch::FrameType::hello, 4080, nullptr, 0);
    pollfd p{fd, POLLIN, 0};
    comch::FrameHeader reply{};
    ssize_t n = ::poll(&p, 1, 5000) == 1 ? ::recv(fd, &reply, sizeof reply, 0) : -1;
    if (n < 0 && errno == ECONNRESET)
        n = ::recv(fd, &reply, sizeof reply, MSG_DONTWAIT); // frames before the reset
    if (n == static_cast<ssize_t>(sizeof reply) && reply.type == comch::FrameType::welcome) {
        say("JOINED");
        return fd;
    }
    if (n == static_cast<ssize_t>(sizeof reply) && reply.type == comch::FrameType::refuse)
        say("REFUSED " + std::to_string(reply.reason));
    else
        say("CLOSED");
    ::close(fd);
    return -1;
}

int run_join(const std::string &name) {
    int fd = join(name);
    if (fd < 0) return 0;
    std::string line = ".EXPORT " + std::string(320, 'a') + " 4096 4096 1";
    say(send_frame(fd, comch::FrameType::data, 0, line.data(), line.size()) ? "SENT" : "CLOSED");
    ::usleep(200 * 1000); // let the server read it before the connection ends
    ::close(fd);
    return 0;
}

int run_squat(const std::string &name, int seconds) {
    std::string dir = comch::socket_dir();
    if (::mkdir(dir.c_str(), 0777) == 0) {
        ::chmod(dir.c_str(), 0777);
    } else if (errno != EEXIST) {
        say(std::string("CANNOT_MKDIR ") + strerrorname_np(errno));
        return 0;
    }
    std::string path = channel_path(name);
    int fd = ::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    sockaddr_un addr = address_of(path);
    if (::bind(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0 || ::listen(fd, 8) != 0) {
        say(std::string("CANNOT_BIND ") + strerrorname_np(errno));
        return 0;
    }
    ::chmod(path.c_str(), 0777);
    say("SQUATTING");
    int clients = 0;
    size_t bytes = 0;
    std::vector<int> conns;
    auto until = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    while (std::chrono::steady_clock::now() < until) {
        std::vector<pollfd> p{{fd, POLLIN, 0}};
        for (int c : conns) p.push_back({c, POLLIN, 0});
        if (::poll(p.data(), p.size(), 50) <= 0) continue;
        if (p[0].revents & POLLIN) {
            int c = ::accept4(fd, nullptr, nullptr, SOCK_CLOEXEC);
            if (c >= 0) {
                ++clients;
                conns.push_back(c);
                say("CLIENT " + std::to_string(clients));
            }
        }
        for (size_t i = 1; i < p.size(); ++i) {
            if (!(p[i].revents & (POLLIN | POLLHUP))) continue;
            char buf[8192];
            ssize_t n = ::recv(p[i].fd, buf, sizeof buf, MSG_DONTWAIT);
            if (n > 0) bytes += static_cast<size_t>(n);
        }
    }
    say("CLIENTS " + std::to_string(clients) + " BYTES " + std::to_string(bytes));
    ::unlink(path.c_str());
    return 0;
}

doca_dev *open_pf0() {
    setenv("SKIFF_SIDE", "host", 1);
    doca_devinfo **list = nullptr;
    uint32_t n = 0;
    doca_dev *dev = nullptr;
    if (doca_devinfo_create_list(&list, &n) != DOCA_SUCCESS) return nullptr;
    for (uint32_t i = 0; i < n && dev == nullptr; ++i) {
        uint8_t eq = 0;
        if (doca_devinfo_is_equal_pci_addr(list[i], "0b:00.0", &eq) == DOCA_SUCCESS && eq)
            doca_dev_open(list[i], &dev);
    }
    doca_devinfo_destroy_list(list);
    return dev;
}

// Rewrites the export so that its shared memory is `fd`: the record in the exporter's own segment
// (writable here: it is this process's memfd) and the descriptor, consistently.
bool retarget(mem::PciExportDesc &d, int fd) {
    struct stat st {};
    if (::fstat(fd, &st) != 0) return false;
    std::string seg_path = "/proc/self/fd/" + std::to_string(d.segment_fd);
    int seg = ::open(seg_path.c_str(), O_RDWR | O_CLOEXEC);
    if (seg < 0) return false;
    void *p = ::mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, seg, 0);
    ::close(seg);
    if (p == MAP_FAILED) return false;
    auto *layout = static_cast<mem::SegmentLayout *>(p);
    d.backing_fd = fd;
    d.backing_offset = 0;
    d.backing_dev = st.st_dev;
    d.backing_ino = st.st_ino;
    layout->record.backing_fd = fd;
    layout->record.backing_offset = 0;
    layout->record.backing_dev = st.st_dev;
    layout->record.backing_ino = st.st_ino;
    return true;
}

int run_serve_file(const std::string &name, const std::string &file, bool send_files) {
    bool genuine = file == "-";
    int target = genuine ? -1 : ::open(file.c_str(), O_PATH | O_CLOEXEC);
    if (!genuine && target < 0) {
        say(std::string("CANNOT_OPEN ") + strerrorname_np(errno));
        return 0;
    }
    int region_fd = memfd_create("attacker-region", MFD_CLOEXEC);
    void *region = MAP_FAILED;
    if (region_fd >= 0 && ::ftruncate(region_fd, 4096) == 0)
        region = ::mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, region_fd, 0);
    if (region != MAP_FAILED) std::memset(region, 0x5a, 4096);
    doca_dev *dev = open_pf0();
    doca_mmap *mmap = nullptr;
    const void *blob = nullptr;
    size_t blob_len = 0;
    if (region == MAP_FAILED || dev == nullptr || doca_mmap_create(&mmap) != DOCA_SUCCESS ||
        doca_mmap_set_memrange(mmap, region, 4096) != DOCA_SUCCESS ||
        doca_mmap_set_permissions(mmap, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE |
                                            DOCA_ACCESS_FLAG_PCI_READ_WRITE) != DOCA_SUCCESS ||
        doca_mmap_add_dev(mmap, dev) != DOCA_SUCCESS || doca_mmap_start(mmap) != DOCA_SUCCESS ||
        doca_mmap_export_pci(mmap, dev, &blob, &blob_len) != DOCA_SUCCESS) {
        say("ERROR cannot make an export of its own");
        return 1;
    }
    auto d = mem::decode_pci_export(blob, blob_len);
    if (!d || (!genuine && !retarget(d.value(), target))) {
        say("ERROR cannot rewrite the export");
        return 1;
    }
    uint8_t forged[mem::pci_export_blob_size];
    mem::encode_pci_export(d.value(), forged);
    int fd = join(name);
    if (fd < 0) return 0;
    if (send_files) {
        int fds[3] = {d->segment_fd, d->liveness_fd, genuine ? d->backing_fd : target};
        if (!send_frame(fd, comch::FrameType::export_files, 3, forged, sizeof forged, fds, 3)) {
            say("CLOSED");
            return 0;
        }
    }
    say(send_frame(fd, comch::FrameType::data, 0, forged, sizeof forged) ? "SENT" : "CLOSED");
    char c;
    while (::read(STDIN_FILENO, &c, 1) > 0) {
    }
    return 0;
}

} // namespace

int main(int argc, char **argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.size() == 2 && args[0] == "join") return run_join(args[1]);
    if (args.size() == 3 && args[0] == "squat") return run_squat(args[1], std::atoi(args[2].c_str()));
    if (args.size() == 4 && args[0] == "serve-file" && (args[3] == "files" || args[3] == "descriptor"))
        return run_serve_file(args[1], args[2], args[3] == "files");
    std::fprintf(stderr,
                 "usage: %s join <server name> | squat <server name> <seconds> |\n"
                 "       serve-file <server name> <path> files|descriptor\n",
                 argv[0]);
    return 2;
}
