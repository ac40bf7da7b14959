// rdma_pingpong: two doca_rdma contexts in two processes over a real RDMA device (soft-RoCE in
// the lab). The server listens; the client connects with private data, which the server checks
// before accepting. Then: SEND client -> server; SEND_IMM server -> client carrying the server
// mmap's RDMA export; RDMA WRITE and WRITE_IMM client -> server memory (the server verifies the
// bytes when the immediate arrives); RDMA READ of a server pattern (the client verifies);
// a final SEND; the client disconnects and both sides see the disconnect. Also checks the
// context's state rules on a real device (setters refused after start, task pool exhaustion).
// With --no-cm the connection is made without RDMA-CM: each side calls doca_rdma_export, the
// descriptors are exchanged over a TCP socket on the same port, each side calls doca_rdma_connect
// (QP to RTR/RTS by hand); the same traffic follows, then the client's disconnect is local only.
//
//   rdma_pingpong --server --device rxe0 --port 7471 [--no-cm]
//   rdma_pingpong --client --device rxe0 --addr 192.168.77.1 --port 7471 [--no-cm]
// Prints one line per check; exit 0 only if every check passed. scripts/lab-tests.sh doca-rdma.
#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_mmap.h>
#include <doca_pe.h>
#include <doca_rdma.h>

#include <CLI/CLI.hpp>

#include "check_lines.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <type_traits>
#include <thread>
#include <vector>

namespace {

using skiff::test::check;
using skiff::test::check_rc;
int &g_failed = skiff::test::g_checks_failed;
int &g_passed = skiff::test::g_checks_passed;

constexpr size_t kRegion = 4096;
constexpr char kRequestData[] = "skiff-pingpong-v1";
constexpr doca_be32_t kBlobImm = 0x5eed0001;
constexpr doca_be32_t kWriteImm = 0x77007700;

uint8_t pattern(size_t i, uint8_t seed) {
    return static_cast<uint8_t>(i * 31 + seed);
}

// What the callbacks record; the main flow waits on it.
struct Events {
    doca_rdma_connection *conn = nullptr;
    bool requested = false, established = false, failed = false, disconnected = false;
    std::string request_data;
    int recv_done = 0, send_done = 0, rdma_done = 0, errors = 0;
    doca_rdma_task_receive *last_recv = nullptr;
    doca_rdma_opcode last_opcode = DOCA_RDMA_OPCODE_RECV_SEND;
    doca_be32_t last_imm = 0;
    uint32_t last_len = 0;      // result length of the last receive
    uint32_t last_read_len = 0; // result length of the last RDMA read (recorded before it is freed)
    bool recv_conn_matches = false;
};
Events ev;

void on_request(doca_rdma_connection *c, doca_data) {
    ev.requested = true;
    ev.conn = c;
    const void *pd = nullptr;
    uint8_t len = 0;
    doca_rdma_connection_get_private_data(c, &pd, &len);
    ev.request_data.assign(static_cast<const char *>(pd), strnlen(static_cast<const char *>(pd), len));
    if (ev.request_data == kRequestData) {
        char reply[] = "welcome";
        check_rc(doca_rdma_connection_accept(c, reply, sizeof reply), "server: accept");
    } else {
        check_rc(doca_rdma_connection_reject(c), "server: reject a request with wrong private data");
    }
}
void on_established(doca_rdma_connection *c, doca_data, doca_data) {
    ev.established = true;
    ev.conn = c;
}
void on_failure(doca_rdma_connection *, doca_data, doca_data) {
    ev.failed = true;
}
void on_disconnect(doca_rdma_connection *, doca_data, doca_data) {
    ev.disconnected = true;
}

void recv_ok(doca_rdma_task_receive *t, doca_data, doca_data) {
    ev.recv_done++;
    ev.last_recv = t;
    ev.last_opcode = doca_rdma_task_receive_get_result_opcode(t);
    ev.last_imm = doca_rdma_task_receive_get_result_immediate_data(t);
    ev.last_len = doca_rdma_task_receive_get_result_len(t);
    ev.recv_conn_matches = doca_rdma_task_receive_get_result_rdma_connection(t) == ev.conn;
}
void recv_err(doca_rdma_task_receive *t, doca_data, doca_data) {
    ev.errors++;
    doca_task_free(doca_rdma_task_receive_as_task(t));
}
// Send tasks carry their source buf in the task user data (released here); RDMA tasks carry none.
template <typename T, doca_task *(*AsTask)(T *)>
void task_ok(T *t, doca_data ud, doca_data) {
    if constexpr (std::is_same_v<T, doca_rdma_task_read>)
        ev.last_read_len = doca_rdma_task_read_get_result_len(t);
    if (ud.ptr != nullptr) {
        doca_buf_dec_refcount(static_cast<doca_buf *>(ud.ptr), nullptr);
        ev.send_done++;
    } else {
        ev.rdma_done++;
    }
    doca_task_free(AsTask(t));
}
template <typename T, doca_task *(*AsTask)(T *)>
void task_err(T *t, doca_data, doca_data) {
    ev.errors++;
    std::printf("task error: %s\n", doca_error_get_name(doca_task_get_status(AsTask(t))));
    doca_task_free(AsTask(t));
}

struct Side {
    doca_dev *dev = nullptr;
    doca_pe *pe = nullptr;
    doca_rdma *rdma = nullptr;
    doca_ctx *ctx = nullptr;
    std::vector<uint8_t> memory = std::vector<uint8_t>(4 * kRegion);
    doca_mmap *mmap = nullptr;
    doca_buf_inventory *inv = nullptr;
};

bool progress_until(Side &s, const std::function<bool()> &done, const char *what, int seconds = 20) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    while (!done()) {
        if (doca_pe_progress(s.pe) == 0) std::this_thread::sleep_for(std::chrono::microseconds(200));
        if (std::chrono::steady_clock::now() > deadline) return check(false, what, "timed out");
        if (ev.errors > 0) return check(false, what, "a task failed");
    }
    return check(true, what);
}

doca_dev *open_device(const std::string &name) {
    doca_devinfo **list = nullptr;
    uint32_t n = 0;
    if (doca_devinfo_create_list(&list, &n) != DOCA_SUCCESS) return nullptr;
    doca_dev *dev = nullptr;
    for (uint32_t i = 0; i < n && dev == nullptr; ++i) {
        char ib[DOCA_DEVINFO_IBDEV_NAME_SIZE] = {};
        if (doca_devinfo_get_ibdev_name(list[i], ib, sizeof ib) == DOCA_SUCCESS && name == ib)
            doca_dev_open(list[i], &dev);
    }
    doca_devinfo_destroy_list(list);
    return dev;
}

bool setup(Side &s, const std::string &device, bool server) {
    s.dev = open_device(device);
    if (!check(s.dev != nullptr, "open RDMA device " + device)) return false;
    if (!check_rc(doca_rdma_create(s.dev, &s.rdma), "doca_rdma_create")) return false;
    s.ctx = doca_rdma_as_ctx(s.rdma);
    check_rc(doca_rdma_set_permissions(s.rdma, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE |
                                                   DOCA_ACCESS_FLAG_RDMA_READ | DOCA_ACCESS_FLAG_RDMA_WRITE),
             "set permissions");
    check_rc(doca_rdma_set_permissions(s.rdma, DOCA_ACCESS_FLAG_PCI_READ_WRITE),
             "non-RDMA permission refused", DOCA_ERROR_INVALID_VALUE);
    check_rc(doca_rdma_set_send_queue_size(s.rdma, 12), "set send queue size");
    uint32_t sq = 0;
    doca_rdma_get_send_queue_size(s.rdma, &sq);
    check(sq == 16, "send queue size rounded up to a power of two", std::to_string(sq));
    check_rc(doca_rdma_set_recv_queue_size(s.rdma, 16), "set recv queue size");
    check_rc(doca_rdma_set_max_num_connections(s.rdma, 2), "set max connections");
    check_rc(doca_rdma_set_connection_state_callbacks(s.rdma, server ? on_request : nullptr, on_established,
                                                      on_failure, on_disconnect),
             "set connection callbacks");
    check_rc(doca_rdma_task_receive_set_conf(s.rdma, recv_ok, recv_err, 4), "receive set_conf");
    using namespace std::placeholders;
    check_rc(doca_rdma_task_send_set_conf(s.rdma, task_ok<doca_rdma_task_send, doca_rdma_task_send_as_task>,
                                          task_err<doca_rdma_task_send, doca_rdma_task_send_as_task>, 4),
             "send set_conf");
    check_rc(doca_rdma_task_send_imm_set_conf(
                 s.rdma, task_ok<doca_rdma_task_send_imm, doca_rdma_task_send_imm_as_task>,
                 task_err<doca_rdma_task_send_imm, doca_rdma_task_send_imm_as_task>, 2),
             "send_imm set_conf");
    check_rc(doca_rdma_task_read_set_conf(s.rdma, task_ok<doca_rdma_task_read, doca_rdma_task_read_as_task>,
                                          task_err<doca_rdma_task_read, doca_rdma_task_read_as_task>, 2),
             "read set_conf");
    check_rc(doca_rdma_task_write_set_conf(s.rdma,
                                           task_ok<doca_rdma_task_write, doca_rdma_task_write_as_task>,
                                           task_err<doca_rdma_task_write, doca_rdma_task_write_as_task>, 2),
             "write set_conf");
    check_rc(doca_rdma_task_write_imm_set_conf(
                 s.rdma, task_ok<doca_rdma_task_write_imm, doca_rdma_task_write_imm_as_task>,
                 task_err<doca_rdma_task_write_imm, doca_rdma_task_write_imm_as_task>, 2),
             "write_imm set_conf");
    check_rc(doca_pe_create(&s.pe), "doca_pe_create");
    check_rc(doca_pe_connect_ctx(s.pe, s.ctx), "doca_pe_connect_ctx");
    if (!check_rc(doca_ctx_start(s.ctx), "doca_ctx_start")) return false;
    // State rules on a started context.
    check_rc(doca_rdma_set_send_queue_size(s.rdma, 32), "setter refused after start", DOCA_ERROR_BAD_STATE);
    check_rc(doca_rdma_set_max_num_connections(s.rdma, 4), "max connections refused after start",
             DOCA_ERROR_BAD_STATE);
    check_rc(doca_rdma_task_send_set_conf(s.rdma, task_ok<doca_rdma_task_send, doca_rdma_task_send_as_task>,
                                          task_err<doca_rdma_task_send, doca_rdma_task_send_as_task>, 8),
             "set_conf refused after start", DOCA_ERROR_BAD_STATE);

    check_rc(doca_mmap_create(&s.mmap), "doca_mmap_create");
    doca_mmap_set_memrange(s.mmap, s.memory.data(), s.memory.size());
    doca_mmap_set_permissions(s.mmap, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_READ |
                                          DOCA_ACCESS_FLAG_RDMA_WRITE);
    doca_mmap_add_dev(s.mmap, s.dev);
    check_rc(doca_mmap_start(s.mmap), "doca_mmap_start");
    check_rc(doca_buf_inventory_create(16, &s.inv), "doca_buf_inventory_create");
    check_rc(doca_buf_inventory_start(s.inv), "doca_buf_inventory_start");
    return g_failed == 0;
}

doca_buf *buf_at(Side &s, doca_mmap *m, uint8_t *addr, size_t len, bool with_data) {
    doca_buf *b = nullptr;
    doca_error_t rc = with_data ? doca_buf_inventory_buf_get_by_data(s.inv, m, addr, len, &b)
                                : doca_buf_inventory_buf_get_by_addr(s.inv, m, addr, len, &b);
    check_rc(rc, "buf");
    return b;
}

doca_rdma_task_receive *post_receive(Side &s, uint8_t *region) {
    doca_rdma_task_receive *t = nullptr;
    doca_buf *b = buf_at(s, s.mmap, region, kRegion, false);
    check_rc(doca_rdma_task_receive_allocate_init(s.rdma, b, {}, &t), "receive allocate");
    check_rc(doca_task_submit(doca_rdma_task_receive_as_task(t)), "receive submit");
    return t;
}

// A receive with no buffer: it only takes an immediate (NVIDIA's rdma_write_immediate_responder
// posts the receive for a write with immediate this way).
void post_receive_without_buffer(Side &s) {
    doca_rdma_task_receive *t = nullptr;
    check_rc(doca_rdma_task_receive_allocate_init(s.rdma, nullptr, {}, &t),
             "receive allocate without a buffer");
    check_rc(doca_task_submit(doca_rdma_task_receive_as_task(t)), "receive submit (no buffer)");
}

// Returns the received bytes of a completed receive task and frees it with its buffer.
std::string take_received(doca_rdma_task_receive *t) {
    doca_buf *b = doca_rdma_task_receive_get_dst_buf(t);
    void *data = nullptr;
    size_t len = 0;
    doca_buf_get_data(b, &data);
    doca_buf_get_data_len(b, &len);
    std::string out(static_cast<const char *>(data), len);
    doca_buf_dec_refcount(b, nullptr);
    doca_task_free(doca_rdma_task_receive_as_task(t));
    return out;
}

void send_bytes(Side &s, uint8_t *region, const void *bytes, size_t len, bool imm, doca_be32_t imm_value) {
    std::memcpy(region, bytes, len);
    doca_buf *b = buf_at(s, s.mmap, region, len, true);
    doca_data ud{.ptr = b};
    if (imm) {
        doca_rdma_task_send_imm *t = nullptr;
        check_rc(doca_rdma_task_send_imm_allocate_init(s.rdma, ev.conn, b, imm_value, ud, &t),
                 "send_imm allocate");
        check_rc(doca_task_submit(doca_rdma_task_send_imm_as_task(t)), "send_imm submit");
    } else {
        doca_rdma_task_send *t = nullptr;
        check_rc(doca_rdma_task_send_allocate_init(s.rdma, ev.conn, b, ud, &t), "send allocate");
        check_rc(doca_task_submit(doca_rdma_task_send_as_task(t)), "send submit");
    }
}

// ---- connection without RDMA-CM: descriptors exchanged over TCP (length-prefixed)

bool write_all(int fd, const void *p, size_t n) {
    auto *b = static_cast<const uint8_t *>(p);
    while (n > 0) {
        ssize_t w = ::write(fd, b, n);
        if (w <= 0) return false;
        b += w;
        n -= static_cast<size_t>(w);
    }
    return true;
}

bool read_all(int fd, void *p, size_t n) {
    auto *b = static_cast<uint8_t *>(p);
    while (n > 0) {
        ssize_t r = ::read(fd, b, n);
        if (r <= 0) return false;
        b += r;
        n -= static_cast<size_t>(r);
    }
    return true;
}

// Exports a connection, swaps descriptors with the peer over fd, connects. Sets ev.conn.
bool connect_without_cm(Side &s, int fd, const char *who) {
    const void *mine = nullptr;
    size_t mine_len = 0;
    doca_rdma_connection *conn = nullptr;
    if (!check_rc(doca_rdma_export(s.rdma, &mine, &mine_len, &conn), std::string(who) + ": doca_rdma_export"))
        return false;
    check_rc(doca_rdma_connect(s.rdma, "junk", 4, conn),
             std::string(who) + ": a foreign descriptor is refused", DOCA_ERROR_INVALID_VALUE);
    uint32_t len = static_cast<uint32_t>(mine_len), peer_len = 0;
    std::vector<uint8_t> peer;
    bool ok = write_all(fd, &len, sizeof len) && write_all(fd, mine, mine_len) &&
              read_all(fd, &peer_len, sizeof peer_len) && peer_len <= 4096 &&
              (peer.resize(peer_len), read_all(fd, peer.data(), peer_len));
    if (!check(ok, std::string(who) + ": descriptors exchanged over TCP")) return false;
    if (!check_rc(doca_rdma_connect(s.rdma, peer.data(), peer.size(), conn),
                  std::string(who) + ": doca_rdma_connect"))
        return false;
    check_rc(doca_rdma_connect(s.rdma, peer.data(), peer.size(), conn),
             std::string(who) + ": connecting twice", DOCA_ERROR_BAD_STATE);
    ev.conn = conn;
    ev.established = true;
    return true;
}

int tcp_accept_one(uint16_t port) {
    int ls = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    if (bind(ls, reinterpret_cast<sockaddr *>(&a), sizeof a) != 0 || listen(ls, 1) != 0) {
        ::close(ls);
        return -1;
    }
    std::printf("listening on port %u\n", port);
    std::fflush(stdout);
    int fd = accept(ls, nullptr, nullptr);
    ::close(ls);
    return fd;
}

int tcp_connect(const std::string &addr, uint16_t port) {
    for (int attempt = 0; attempt < 80; ++attempt) {
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_port = htons(port);
        inet_pton(AF_INET, addr.c_str(), &a.sin_addr);
        if (connect(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) == 0) return fd;
        ::close(fd);
        std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
    return -1;
}

// Without RDMA-CM no disconnect handshake tells the server that the client's last SEND was
// acknowledged: destroyed at once, the server's queue pair can take the acknowledgement with it,
// and the client retransmits to a queue pair that is gone until its send times out (seen on a
// loaded machine). So the TCP connection of the descriptor exchange stays open until the client's
// last send completed, and the server waits for the client to close it (bounded).
void wait_for_peer_close(int fd, int seconds) {
    pollfd p{fd, POLLIN, 0};
    char byte;
    while (::poll(&p, 1, seconds * 1000) > 0 && ::recv(fd, &byte, 1, 0) > 0) {
    }
}

bool stop_and_destroy(Side &s) {
    doca_error_t rc = doca_ctx_stop(s.ctx);
    check(rc == DOCA_SUCCESS || rc == DOCA_ERROR_IN_PROGRESS, "doca_ctx_stop");
    doca_ctx_states st = DOCA_CTX_STATE_STOPPING;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    ev.errors = 0; // flushed receives come back through their error callback
    while (doca_ctx_get_state(s.ctx, &st) == DOCA_SUCCESS && st != DOCA_CTX_STATE_IDLE &&
           std::chrono::steady_clock::now() < deadline) {
        if (doca_pe_progress(s.pe) == 0) std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    check(st == DOCA_CTX_STATE_IDLE, "ctx back to IDLE after stop");
    check_rc(doca_rdma_destroy(s.rdma), "doca_rdma_destroy");
    check_rc(doca_pe_destroy(s.pe), "doca_pe_destroy");
    check_rc(doca_buf_inventory_destroy(s.inv), "doca_buf_inventory_destroy");
    check_rc(doca_mmap_destroy(s.mmap), "doca_mmap_destroy (deregisters)");
    check_rc(doca_dev_close(s.dev), "doca_dev_close");
    return true;
}

int run_server(const std::string &device, uint16_t port, bool no_cm) {
    Side s;
    if (!setup(s, device, true)) return 1;
    uint8_t *recv_area = s.memory.data(), *send_area = recv_area + kRegion,
            *write_target = send_area + kRegion, *read_source = write_target + kRegion;
    for (size_t i = 0; i < kRegion; ++i) read_source[i] = pattern(i, 0xb0);

    // Pool sizing: 4 receive tasks, a fifth is NO_MEMORY.
    {
        std::vector<doca_rdma_task_receive *> held;
        doca_buf *b = buf_at(s, s.mmap, recv_area, kRegion, false);
        for (int i = 0; i < 4; ++i) {
            doca_rdma_task_receive *t = nullptr;
            if (doca_rdma_task_receive_allocate_init(s.rdma, b, {}, &t) == DOCA_SUCCESS) held.push_back(t);
        }
        check(held.size() == 4, "four receive tasks from a pool of four");
        doca_rdma_task_receive *extra = nullptr;
        check_rc(doca_rdma_task_receive_allocate_init(s.rdma, b, {}, &extra), "fifth receive task",
                 DOCA_ERROR_NO_MEMORY);
        for (auto *t : held) doca_task_free(doca_rdma_task_receive_as_task(t));
        doca_buf_dec_refcount(b, nullptr);
    }

    const void *blob = nullptr;
    size_t blob_len = 0;
    check_rc(doca_mmap_export_rdma(s.mmap, s.dev, &blob, &blob_len), "doca_mmap_export_rdma");
    const void *blob2 = nullptr;
    size_t blob2_len = 0;
    check_rc(doca_mmap_export_rdma(s.mmap, s.dev, &blob2, &blob2_len), "export again");
    check(blob2 == blob && blob2_len == blob_len, "a second export hands out the same descriptor");

    post_receive(s, recv_area); // before any connection: it sits on the shared receive queue
    int side_fd = -1;           // no_cm: the descriptor exchange's TCP connection (see wait_for_peer_close)
    if (no_cm) {
        side_fd = tcp_accept_one(port);
        if (!check(side_fd >= 0, "server: TCP peer for the descriptor exchange")) return 1;
        if (!connect_without_cm(s, side_fd, "server")) return 1;
    } else {
        check_rc(doca_rdma_start_listen_to_port(s.rdma, port), "doca_rdma_start_listen_to_port");
        std::printf("listening on port %u\n", port);
        std::fflush(stdout);
        if (!progress_until(
                s, [] { return ev.requested; }, "server: connection request", 40))
            return 1;
        check(ev.request_data == kRequestData, "server: request private data", ev.request_data);
        if (!progress_until(
                s, [] { return ev.established; }, "server: established"))
            return 1;
    }
    uint32_t id = 99;
    check_rc(doca_rdma_connection_get_id(ev.conn, &id), "connection id");
    check(id < 2, "connection id is a slot number", std::to_string(id));

    if (!progress_until(
            s, [] { return ev.recv_done == 1; }, "server: receive hello"))
        return 1;
    check(ev.last_opcode == DOCA_RDMA_OPCODE_RECV_SEND, "server: opcode SEND");
    check(ev.recv_conn_matches, "server: the receive names the connection");
    check(take_received(ev.last_recv) == "hello from the client", "server: hello bytes");

    // Two receives: one for the write-with-immediate (no buffer: only its immediate is taken), one
    // for the final message.
    post_receive_without_buffer(s);
    send_bytes(s, send_area, blob, blob_len, true, kBlobImm);
    if (!progress_until(
            s, [] { return ev.send_done == 1; }, "server: send_imm of the export"))
        return 1;
    if (!progress_until(
            s, [] { return ev.recv_done == 2; }, "server: write_imm arrives"))
        return 1;
    check(ev.last_opcode == DOCA_RDMA_OPCODE_RECV_WRITE_WITH_IMM, "server: opcode WRITE_WITH_IMM");
    check(ev.last_imm == kWriteImm, "server: immediate of the write");
    check(doca_rdma_task_receive_get_dst_buf(ev.last_recv) == nullptr,
          "server: the write_imm receive has no buffer");
    doca_task_free(doca_rdma_task_receive_as_task(ev.last_recv));
    bool same = true;
    for (size_t i = 0; i < kRegion; ++i) same &= write_target[i] == pattern(i, 0xa0);
    check(same, "server: bytes written by RDMA WRITE + WRITE_IMM");

    post_receive(s, recv_area);
    if (!progress_until(
            s, [] { return ev.recv_done == 3; }, "server: receive done"))
        return 1;
    check(take_received(ev.last_recv) == "read verified", "server: final message");
    if (!no_cm) // without RDMA-CM nothing tells this side about the peer's disconnect
        progress_until(
            s, [] { return ev.disconnected; }, "server: disconnect event");
    if (side_fd >= 0) {
        wait_for_peer_close(side_fd, 60);
        ::close(side_fd);
    }
    stop_and_destroy(s);
    std::printf("server: %d passed, %d failed\n", g_passed, g_failed);
    return g_failed == 0 ? 0 : 1;
}

int run_client(const std::string &device, const std::string &addr, uint16_t port, bool no_cm) {
    Side s;
    if (!setup(s, device, false)) return 1;
    uint8_t *recv_area = s.memory.data(), *send_area = recv_area + kRegion, *read_dst = send_area + kRegion,
            *write_src = read_dst + kRegion;
    for (size_t i = 0; i < kRegion; ++i) write_src[i] = pattern(i, 0xa0);

    post_receive(s, recv_area);
    int side_fd = -1; // no_cm: closed once the last send completed (wait_for_peer_close)
    if (no_cm) {
        side_fd = tcp_connect(addr, port);
        if (!check(side_fd >= 0, "client: TCP connection for the descriptor exchange")) return 1;
        if (!connect_without_cm(s, side_fd, "client")) return 1;
    }
    doca_rdma_addr *a = nullptr;
    check_rc(doca_rdma_addr_create(DOCA_RDMA_ADDR_TYPE_IPv4, addr.c_str(), port, &a),
             "doca_rdma_addr_create");
    // The server may not be listening yet: retry on failure.
    for (int attempt = 0; attempt < 40 && !ev.established; ++attempt) {
        ev.failed = false;
        if (!check_rc(skiff_rdma_connect_to_addr_with_private_data(s.rdma, a, {}, kRequestData,
                                                                   sizeof kRequestData),
                      "client: connect"))
            return 1;
        auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (!ev.established && !ev.failed && std::chrono::steady_clock::now() < deadline)
            if (doca_pe_progress(s.pe) == 0) std::this_thread::sleep_for(std::chrono::microseconds(200));
        if (!ev.established) std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
    doca_rdma_addr_destroy(a);
    if (!check(ev.established, "client: established")) return 1;

    const char hello[] = "hello from the client";
    send_bytes(s, send_area, hello, sizeof hello - 1, false, 0);
    if (!progress_until(
            s, [] { return ev.send_done == 1 && ev.recv_done == 1; }, "client: hello sent, export received"))
        return 1;
    check(ev.last_opcode == DOCA_RDMA_OPCODE_RECV_SEND_WITH_IMM && ev.last_imm == kBlobImm,
          "client: SEND_WITH_IMM and its immediate");
    std::string blob = take_received(ev.last_recv);
    check(ev.last_len == blob.size(), "client: receive result length is the export's size",
          std::to_string(ev.last_len));
    doca_mmap *remote = nullptr;
    if (!check_rc(doca_mmap_create_from_export(nullptr, blob.data(), blob.size(), s.dev, &remote),
                  "client: import the server's RDMA export"))
        return 1;
    void *raddr = nullptr;
    size_t rlen = 0;
    doca_mmap_get_memrange(remote, &raddr, &rlen);
    check(rlen == 4 * kRegion, "client: remote range length");
    auto *rbase = static_cast<uint8_t *>(raddr);

    // RDMA WRITE of the first half, WRITE_IMM of the second half into the server's third region.
    doca_buf *src1 = buf_at(s, s.mmap, write_src, kRegion / 2, true);
    doca_buf *src2 = buf_at(s, s.mmap, write_src + kRegion / 2, kRegion / 2, true);
    doca_buf *dst1 = buf_at(s, remote, rbase + 2 * kRegion, kRegion / 2, false);
    doca_buf *dst2 = buf_at(s, remote, rbase + 2 * kRegion + kRegion / 2, kRegion / 2, false);
    // Both tasks are allocated with each other's bufs and a wrong immediate, then retargeted with
    // the setters (as DOCA programs resubmit a task): the server checks where the bytes landed
    // and which immediate came.
    doca_rdma_task_write *w = nullptr;
    check_rc(doca_rdma_task_write_allocate_init(s.rdma, ev.conn, src2, dst2, {}, &w), "write allocate");
    doca_rdma_task_write_set_src_buf(w, src1);
    doca_rdma_task_write_set_dst_buf(w, dst1);
    doca_rdma_task_write_set_rdma_connection(w, ev.conn);
    check(doca_rdma_task_write_get_src_buf(w) == src1 && doca_rdma_task_write_get_dst_buf(w) == dst1 &&
              doca_rdma_task_write_get_rdma_connection(w) == ev.conn,
          "client: write task getters return what the setters set");
    check_rc(doca_task_submit(doca_rdma_task_write_as_task(w)), "write submit");
    doca_rdma_task_write_imm *wi = nullptr;
    check_rc(doca_rdma_task_write_imm_allocate_init(s.rdma, ev.conn, src1, dst1, 0, {}, &wi),
             "write_imm allocate");
    doca_rdma_task_write_imm_set_src_buf(wi, src2);
    doca_rdma_task_write_imm_set_dst_buf(wi, dst2);
    doca_rdma_task_write_imm_set_immediate_data(wi, kWriteImm);
    check(doca_rdma_task_write_imm_get_src_buf(wi) == src2 &&
              doca_rdma_task_write_imm_get_dst_buf(wi) == dst2 &&
              doca_rdma_task_write_imm_get_immediate_data(wi) == kWriteImm &&
              doca_rdma_task_write_imm_get_rdma_connection(wi) == ev.conn,
          "client: write_imm task getters return what the setters set");
    check_rc(doca_task_submit(doca_rdma_task_write_imm_as_task(wi)), "write_imm submit");
    if (!progress_until(
            s, [] { return ev.rdma_done == 2; }, "client: write + write_imm complete"))
        return 1;

    // RDMA READ of the server's pattern region.
    doca_buf *rsrc = buf_at(s, remote, rbase + 3 * kRegion, kRegion, true);
    doca_buf *ldst = buf_at(s, s.mmap, read_dst, kRegion, false);
    doca_rdma_task_read *r = nullptr;
    check_rc(doca_rdma_task_read_allocate_init(s.rdma, ev.conn, rsrc, rsrc, {}, &r), "read allocate");
    doca_rdma_task_read_set_dst_buf(r, ldst);
    doca_rdma_task_read_set_src_buf(r, rsrc);
    doca_rdma_task_read_set_rdma_connection(r, ev.conn);
    check(doca_rdma_task_read_get_src_buf(r) == rsrc && doca_rdma_task_read_get_dst_buf(r) == ldst &&
              doca_rdma_task_read_get_rdma_connection(r) == ev.conn,
          "client: read task getters return what the setters set");
    check_rc(doca_task_submit(doca_rdma_task_read_as_task(r)), "read submit");
    if (!progress_until(
            s, [] { return ev.rdma_done == 3; }, "client: read complete"))
        return 1;
    check(ev.last_read_len == kRegion, "client: read result length", std::to_string(ev.last_read_len));
    size_t got = 0;
    doca_buf_get_data_len(ldst, &got);
    check(got == kRegion, "client: read destination data length", std::to_string(got));
    bool same = true;
    for (size_t i = 0; i < kRegion; ++i) same &= read_dst[i] == pattern(i, 0xb0);
    check(same, "client: bytes read by RDMA READ");
    for (doca_buf *b : {src1, src2, dst1, dst2, rsrc, ldst}) doca_buf_dec_refcount(b, nullptr);

    const char done[] = "read verified";
    send_bytes(s, send_area, done, sizeof done - 1, false, 0);
    if (!progress_until(
            s, [] { return ev.send_done == 2; }, "client: final send"))
        return 1;
    if (side_fd >= 0) ::close(side_fd);
    check_rc(doca_rdma_connection_disconnect(ev.conn), "client: disconnect");
    if (!no_cm)
        progress_until(
            s, [] { return ev.disconnected; }, "client: disconnect event");
    check_rc(doca_mmap_destroy(remote), "client: destroy the imported mmap");
    stop_and_destroy(s);
    std::printf("client: %d passed, %d failed\n", g_passed, g_failed);
    return g_failed == 0 ? 0 : 1;
}

} // namespace

int main(int argc, char **argv) {
    CLI::App app{
        "Two doca_rdma contexts exchange send/receive, RDMA write (+imm) and RDMA read over a real RDMA "
        "device, verifying every byte. Run the server first, then the client."};
    bool server = false, client = false, no_cm = false;
    std::string device = "rxe0", addr = "192.168.77.1";
    uint16_t port = 7471;
    app.add_flag("--server", server, "listen and serve one client");
    app.add_flag("--client", client, "connect to the server");
    app.add_option("--device", device, "rdma-core device name (ibv_devices)")->capture_default_str();
    app.add_option("--addr", addr, "server IP address (client)")->capture_default_str();
    app.add_option("--port", port, "RDMA-CM port (with --no-cm: the TCP port of the descriptor exchange)")
        ->capture_default_str();
    app.add_flag("--no-cm", no_cm,
                 "connect without RDMA-CM: doca_rdma_export / doca_rdma_connect, descriptors over TCP");
    CLI11_PARSE(app, argc, argv);
    if (server == client) {
        std::fprintf(stderr, "rdma_pingpong: give exactly one of --server / --client (see --help)\n");
        return 2;
    }
    return server ? run_server(device, port, no_cm) : run_client(device, addr, port, no_cm);
}
