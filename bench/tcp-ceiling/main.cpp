// tcp-ceiling: the physical limit of this machine for NVMe/TCP-shaped traffic over loopback.
//
// A minimal request/response pair of processes, one pinned core each, exchanging messages of
// exactly the NVMe/TCP sizes and nothing else: no parsing, no backend, no digests. Reads are a
// 72-byte command answered by a 24-byte C2HData header + data + a 24-byte response capsule;
// writes are a 72-byte command with in-capsule data answered by a 24-byte response. Any
// NVMe/TCP target's IOPS for the same shape on the same cores is bounded by this number.
//
// Both sides batch as far as the traffic allows: one recv takes everything that arrived (up to
// 1 MiB) and one send answers every request it completed, so a side spends at most one receive
// and one send system call per batch, and exactly one each per message at QD1.
//
// How a side waits for bytes decides the QD1 figure, so the default (`best`) measures each
// busy-polling method for half the time and reports the faster:
//   spin  non-blocking recv in a loop (as skiff-target's busy poll of its connections, and
//         skiff-perf);
//   poll  poll() with a zero timeout until the socket is readable, then one recv: the readiness
//         check takes no socket lock, so the peer's segment is processed at once instead of
//         landing in the socket backlog of a receiver that holds the lock in recv;
//   block sleep in a blocking recv (for comparison: a sleep and a wake-up per round trip).
#include <CLI/CLI.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

constexpr size_t kCmdLen = 72;
constexpr size_t kRespLen = 24;
constexpr size_t kDataHdrLen = 24;

struct Shape {
    size_t request;  // bytes the initiator sends per I/O
    size_t response; // bytes the target sends back per I/O
};

Shape shape_for(const std::string &rw, size_t bs) {
    if (rw == "read") return {kCmdLen, kDataHdrLen + bs + kRespLen};
    return {kCmdLen + bs, kRespLen};
}

void pin(int core) {
    if (core < 0) return;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(core, &set);
    if (sched_setaffinity(0, sizeof(set), &set) != 0) std::perror("sched_setaffinity (continuing unpinned)");
}

void die(const char *what) {
    std::perror(what);
    std::exit(1);
}

void set_nodelay(int fd) {
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

enum class Wait { kSpin, kPoll, kBlock };
// How this process waits for bytes (set per measurement, inherited by the forked responder).
Wait g_wait = Wait::kSpin;

const char *wait_name(Wait w) {
    return w == Wait::kSpin ? "spin" : w == Wait::kPoll ? "poll" : "block";
}

// Receives what is there (busy-polling until something is, unless blocking); <= 0 on close or
// error.
ssize_t recv_some(int fd, char *buf, size_t len) {
    for (;;) {
        if (g_wait == Wait::kPoll) {
            pollfd p{fd, POLLIN, 0};
            if (poll(&p, 1, 0) == 0) continue;
        }
        ssize_t n = recv(fd, buf, len, g_wait == Wait::kBlock ? 0 : MSG_DONTWAIT);
        if (n >= 0) return n;
        if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) continue;
        return n;
    }
}

// Sends len bytes from a repeating buffer, looping over partial sends.
void send_all(int fd, const char *buf, size_t len) {
    while (len > 0) {
        ssize_t n = send(fd, buf, len, 0);
        if (n < 0) {
            if (errno == EINTR) continue;
            die("send");
        }
        buf += n;
        len -= static_cast<size_t>(n);
    }
}

// Target side: answer every complete request with one response, in batches.
void serve(int listen_fd, Shape shape) {
    int fd = accept(listen_fd, nullptr, nullptr);
    if (fd < 0) die("accept");
    set_nodelay(fd);
    std::vector<char> in(1 << 20), out(shape.response * 256);
    size_t partial = 0;
    for (;;) {
        ssize_t n = recv_some(fd, in.data(), in.size());
        if (n <= 0) break;
        partial += static_cast<size_t>(n);
        size_t complete = partial / shape.request;
        partial %= shape.request;
        while (complete > 0) {
            size_t batch = std::min<size_t>(complete, 256);
            send_all(fd, out.data(), batch * shape.response);
            complete -= batch;
        }
    }
    close(fd);
}

struct Result {
    uint64_t ios = 0;
    double seconds = 0;
};

// Initiator side: keep qd requests outstanding for the given time.
Result drive(int port, Shape shape, int qd, double seconds) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, reinterpret_cast<sockaddr *>(&addr), sizeof(addr)) != 0) die("connect");
    set_nodelay(fd);

    std::vector<char> out(shape.request * static_cast<size_t>(qd)), in(1 << 20);
    send_all(fd, out.data(), out.size());
    Result r;
    size_t partial = 0;
    auto start = std::chrono::steady_clock::now();
    auto deadline = start + std::chrono::duration<double>(seconds);
    bool stopping = false;
    uint64_t outstanding = static_cast<uint64_t>(qd);
    while (outstanding > 0) {
        ssize_t n = recv_some(fd, in.data(), in.size());
        if (n <= 0) die("recv");
        partial += static_cast<size_t>(n);
        size_t done = partial / shape.response;
        partial %= shape.response;
        outstanding -= done;
        r.ios += done;
        if (!stopping && std::chrono::steady_clock::now() >= deadline) stopping = true;
        if (!stopping && done > 0) {
            send_all(fd, out.data(), done * shape.request);
            outstanding += done;
        }
    }
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    close(fd);
    return r;
}

size_t parse_size(const std::string &s) {
    char *end = nullptr;
    size_t v = std::strtoull(s.c_str(), &end, 10);
    std::string unit = end ? end : "";
    if (unit == "k" || unit == "K" || unit == "KiB") return v * 1024;
    if (unit == "m" || unit == "M" || unit == "MiB") return v * 1024 * 1024;
    if (unit.empty()) return v;
    std::fprintf(stderr, "--bs: unknown unit \"%s\" (use 4k, 128k, 1M or a byte count)\n", unit.c_str());
    std::exit(2);
}

// One measurement: a fresh connection, the responder forked on its core, the requester here.
Result measure(Wait wait, Shape shape, int qd, double seconds, int target_core, int initiator_core) {
    g_wait = wait;
    int lfd = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(lfd, reinterpret_cast<sockaddr *>(&addr), sizeof(addr)) != 0) die("bind");
    if (listen(lfd, 1) != 0) die("listen");
    socklen_t alen = sizeof(addr);
    getsockname(lfd, reinterpret_cast<sockaddr *>(&addr), &alen);
    const int port = ntohs(addr.sin_port);

    pid_t child = fork();
    if (child < 0) die("fork");
    if (child == 0) {
        pin(target_core);
        serve(lfd, shape);
        _exit(0);
    }
    close(lfd);
    pin(initiator_core);
    Result r = drive(port, shape, qd, seconds);
    waitpid(child, nullptr, 0);
    return r;
}

} // namespace

int main(int argc, char **argv) {
    CLI::App app{"tcp-ceiling: loopback TCP request/response at NVMe/TCP message sizes, one core per side.\n"
                 "Prints the IOPS and bandwidth no NVMe/TCP target can exceed for the same shape here."};
    std::string rw = "read", bs_text = "4k";
    int qd = 32, target_core = 0, initiator_core = 1;
    double seconds = 5;
    bool json = false;
    std::string wait = "best";
    app.add_option("--rw", rw,
                   "read (72 B command -> 24 B header + data + 24 B response) or write "
                   "(72 B command + data -> 24 B response)")
        ->check(CLI::IsMember({"read", "write"}))
        ->capture_default_str();
    app.add_option("--bs", bs_text, "data bytes per I/O (4k, 128k, ...)")->capture_default_str();
    app.add_option("--qd", qd, "requests outstanding")->check(CLI::Range(1, 4096))->capture_default_str();
    app.add_option("--time", seconds, "seconds to run (best: half of it per busy-polling method)")
        ->check(CLI::Range(0.1, 3600.0))
        ->capture_default_str();
    app.add_option("--target-core", target_core, "core of the responding process (-1: unpinned)")
        ->capture_default_str();
    app.add_option("--initiator-core", initiator_core, "core of the requesting process (-1: unpinned)")
        ->capture_default_str();
    app.add_option("--wait", wait,
                   "how both sides wait for bytes: spin (busy-poll with non-blocking recv), poll (busy-poll "
                   "with poll(), then recv), block (sleep in recv), or best (spin and poll, half the time "
                   "each, the faster is reported)")
        ->check(CLI::IsMember({"best", "spin", "poll", "block"}))
        ->capture_default_str();
    app.add_flag("--json", json, "print one JSON object instead of text");
    CLI11_PARSE(app, argc, argv);

    const size_t bs = parse_size(bs_text);
    const Shape shape = shape_for(rw, bs);

    Wait used = wait == "poll" ? Wait::kPoll : wait == "block" ? Wait::kBlock : Wait::kSpin;
    Result r;
    if (wait == "best") {
        Result spin = measure(Wait::kSpin, shape, qd, seconds / 2, target_core, initiator_core);
        Result polled = measure(Wait::kPoll, shape, qd, seconds / 2, target_core, initiator_core);
        bool poll_wins = polled.ios / polled.seconds > spin.ios / spin.seconds;
        r = poll_wins ? polled : spin;
        used = poll_wins ? Wait::kPoll : Wait::kSpin;
    } else {
        r = measure(used, shape, qd, seconds, target_core, initiator_core);
    }

    const double iops = r.ios / r.seconds;
    const double mibs = iops * static_cast<double>(bs) / (1024.0 * 1024.0);
    if (json) {
        std::printf("{\"rw\":\"%s\",\"bs\":%zu,\"qd\":%d,\"wait\":\"%s\",\"iops\":%.0f,\"mib_s\":%.1f,"
                    "\"avg_us\":%.2f,\"seconds\":%.2f}\n",
                    rw.c_str(), bs, qd, wait_name(used), iops, mibs, qd / iops * 1e6, r.seconds);
    } else {
        std::printf("tcp-ceiling %s bs=%zu qd=%d wait=%s: %.0f IOPS, %.1f MiB/s, %.2f us per round trip at "
                    "this QD (%.2f s, target core %d, initiator core %d)\n",
                    rw.c_str(), bs, qd, wait_name(used), iops, mibs, qd / iops * 1e6, r.seconds, target_core,
                    initiator_core);
    }
    return 0;
}
