// dpa_rdma_pingpong: DPA comms between two processes over a real RDMA device (soft-RoCE in the lab).
// Each side runs a doca_rdma context on the DPA data path with one DPA thread attached to its
// completion context; all traffic is posted by device code (doca_dpa_dev_rdma_*), all completions
// arrive on the DPA thread. The host only sets up, exchanges nothing itself, and checks results.
//
//   1. server -> client: SEND_IMM carrying the server mmap's RDMA export and its sync event's
//      remote-net export; client -> server: SEND_IMM with the client mmap's export; server -> client:
//      a "ready" SEND once it imported it.
//   2. --messages N ping-pongs: the client thread sends ping i, the server thread verifies its bytes
//      and sends pong i, the client thread verifies it and sends ping i+1 (receive buffers are
//      re-posted and acknowledged with doca_dpa_dev_rdma_receive_ack).
//   3. the client writes 4 KiB with immediate into the server; the server thread verifies the bytes
//      when RECV_RDMA_WRITE_IMM arrives and writes its own 4 KiB back with immediate.
//   4. the client posts two atomic fetch-adds (+5, OPTIMIZE_REPORTS then FLUSH: one completion),
//      sets the server's sync event to 7 and adds 3 (remote sync event signals), and reads 4 KiB of
//      the server's pattern (verified).
//   5. "bye" / "bye-ack"; the server checks its atomic word (10) and event (10); the client checks
//      it got exactly one SEND completion per signalled operation.
// Also the DPA-mode rules on a real device (attach order, handle before start, host tasks refused).
//
//   dpa_rdma_pingpong --server --device rxe0 --port 7472
//   dpa_rdma_pingpong --client --device rxe0 --addr 192.168.77.1 --port 7472
// One line per check; exit 0 only if every check passed. scripts/lab-tests.sh dpa-rdma-pingpong.
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_dpa.h>
#include <doca_dpa_dev.h>
#include <doca_dpa_dev_rdma.h>
#include <doca_mmap.h>
#include <doca_pe.h>
#include <doca_rdma.h>
#include <doca_sync_event.h>

#include <skiff/core/dpa_verbs_cq.hpp>

#include <CLI/CLI.hpp>

#include "check_lines.hpp"

#if __has_include(<infiniband/verbs.h>)
#include <infiniband/verbs.h>
#define HAVE_VERBS_WC 1
#endif

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

namespace {

using skiff::test::check;
using skiff::test::check_rc;
int &g_failed = skiff::test::g_checks_failed;
int &g_passed = skiff::test::g_checks_passed;

// Memory layout of each side (one mmap, exported for RDMA).
constexpr size_t kSlot = 512, kSlots = 8;
constexpr size_t kRecvOff = 0;                         // receive ring: kSlots x kSlot
constexpr size_t kSendOff = kRecvOff + kSlots * kSlot; // send slots
constexpr size_t kWriteDstOff = 8192;                  // where the peer's write_imm lands
constexpr size_t kWriteSrcOff = 12288;                 // what this side writes
constexpr size_t kReadSrcOff = 16384;                  // what the peer reads
constexpr size_t kReadDstOff = 20480;                  // where this side's read lands
constexpr size_t kAtomicOff = 24576;                   // the word the peer adds to
constexpr size_t kBlock = 4096;
constexpr size_t kMemory = 32768;

constexpr uint32_t kExportImm = 0xe0e0e0e0, kReadyImm = 0x0e0e0e0e, kWriteImm = 0x57000001,
                   kWriteBackImm = 0x57000002, kByeImm = 0xb1e, kByeAckImm = 0xb1eac;

uint8_t pattern(size_t i, uint8_t seed) {
    return static_cast<uint8_t>(i * 31 + seed);
}

// Shared between the host and the device code of one side (the emulated DPA reads host memory).
struct State {
    bool server = false;
    uint8_t *base = nullptr;
    uint64_t rdma = 0, comp = 0;
    doca_dpa_dev_mmap_t mmap = 0, remote_mmap = 0;
    uint64_t remote_base = 0, remote_event = 0;
    uint32_t conn = 0;
    uint32_t messages = 0;
    uint32_t consumed = 0; // receives consumed (the ring slot of the next one)
    // Recorded by the thread, read by the host.
    std::atomic<uint32_t> sends{0};      // SEND completions
    std::atomic<uint32_t> errors{0};     // error completions, bad bytes, unexpected completions
    std::atomic<uint32_t> pings{0};      // server: pings verified; client: pongs verified
    std::atomic<uint32_t> export_len{0}; // bytes of the export message received (from the raw wc)
    std::atomic<uint32_t> export_slot{0};
    std::atomic<bool> ready{false}, write_seen{false}, bye{false}, raw_wc_ok{true};
    std::atomic<uint32_t> wrong_user_data{0};
};

uint64_t addr(const State &s, size_t off) {
    return reinterpret_cast<uintptr_t>(s.base + off);
}

// ---- device code

// Fills send slot `slot` with message i (seq + pattern) and sends it with an immediate.
void send_message(State &s, uint32_t i, uint32_t imm, uint8_t seed) {
    uint8_t *m = s.base + kSendOff + (i % kSlots) * kSlot;
    std::memcpy(m, &i, sizeof i);
    for (size_t k = sizeof i; k < kSlot; ++k) m[k] = pattern(k + i, seed);
    doca_dpa_dev_rdma_post_send_imm(s.rdma, s.conn, s.mmap, addr(s, kSendOff + (i % kSlots) * kSlot), kSlot,
                                    imm, DOCA_DPA_DEV_SUBMIT_FLAG_FLUSH);
}

bool message_ok(const uint8_t *m, uint32_t i, uint8_t seed) {
    uint32_t seq = 0;
    std::memcpy(&seq, m, sizeof seq);
    if (seq != i) return false;
    for (size_t k = sizeof i; k < kSlot; ++k)
        if (m[k] != pattern(k + i, seed)) return false;
    return true;
}

bool block_ok(const uint8_t *p, uint8_t seed) {
    for (size_t k = 0; k < kBlock; ++k)
        if (p[k] != pattern(k, seed)) return false;
    return true;
}

void on_receive(State &s, uint32_t imm, uint32_t slot) {
    const uint8_t *m = s.base + kRecvOff + slot * kSlot;
    uint32_t seq = 0;
    std::memcpy(&seq, m, sizeof seq);
    if (imm == kExportImm) {
        s.export_slot = slot;
        return; // the host parses it (and re-posts the slot through an RPC)
    }
    if (imm == kReadyImm) {
        s.ready = true;
    } else if (imm == kByeImm) {
        s.bye = true;
        send_message(s, 0, kByeAckImm, 0x33);
    } else if (imm == kByeAckImm) {
        s.bye = true;
    } else if (s.server) { // ping seq -> pong seq
        if (!message_ok(m, seq, 0x10) || seq != s.pings.load()) ++s.errors;
        s.pings.fetch_add(1);
        send_message(s, seq, 0, 0x20);
    } else { // pong seq -> ping seq + 1
        if (!message_ok(m, seq, 0x20) || seq != s.pings.load()) ++s.errors;
        s.pings.fetch_add(1);
        if (seq + 1 < s.messages) send_message(s, seq + 1, 0, 0x10);
    }
    doca_dpa_dev_rdma_receive_ack(s.rdma, 1);
    doca_dpa_dev_rdma_post_receive(s.rdma, s.mmap, addr(s, kRecvOff + slot * kSlot), kSlot);
}

void pingpong_thread(uint64_t arg) {
    auto &s = *reinterpret_cast<State *>(arg);
    doca_dpa_dev_completion_element_t e;
    uint64_t n = 0;
    while (doca_dpa_dev_get_completion(s.comp, &e)) {
        ++n;
        doca_dpa_dev_completion_type_t type = doca_dpa_dev_get_completion_type(e);
        if (doca_dpa_dev_get_completion_user_data(e) != s.conn) ++s.wrong_user_data;
        uint32_t imm = doca_dpa_dev_get_completion_immediate(e);
#ifdef HAVE_VERBS_WC
        const ibv_wc *wc = skiff::core::dpa::dev_completion_verbs_wc(e);
        if (!wc || wc->status != IBV_WC_SUCCESS) s.raw_wc_ok = false;
#endif
        switch (type) {
        case DOCA_DPA_DEV_COMP_SEND:
            s.sends.fetch_add(1);
            break;
        case DOCA_DPA_DEV_COMP_RECV_SEND_IMM: {
            uint32_t slot = s.consumed++ % kSlots;
#ifdef HAVE_VERBS_WC
            if (imm == kExportImm && wc) s.export_len = wc->byte_len;
#else
            if (imm == kExportImm) s.export_len = kSlot;
#endif
            on_receive(s, imm, slot);
            break;
        }
        case DOCA_DPA_DEV_COMP_RECV_RDMA_WRITE_IMM:
            // The write-with-immediate consumed a receive entry without filling it.
            doca_dpa_dev_rdma_receive_ack(s.rdma, 1);
            doca_dpa_dev_rdma_post_receive(s.rdma, s.mmap,
                                           addr(s, kRecvOff + (s.consumed++ % kSlots) * kSlot), kSlot);
            if (s.server && imm == kWriteImm) {
                if (!block_ok(s.base + kWriteDstOff, 0xa0)) ++s.errors;
                doca_dpa_dev_rdma_post_write_imm(s.rdma, s.conn, s.remote_mmap, s.remote_base + kWriteDstOff,
                                                 s.mmap, addr(s, kWriteSrcOff), kBlock, kWriteBackImm,
                                                 DOCA_DPA_DEV_SUBMIT_FLAG_FLUSH);
            } else if (!s.server && imm == kWriteBackImm) {
                if (!block_ok(s.base + kWriteDstOff, 0xb0)) ++s.errors;
            } else {
                ++s.errors;
            }
            s.write_seen = true;
            break;
        default:
            ++s.errors;
            break;
        }
    }
    if (n) doca_dpa_dev_completion_ack(s.comp, n);
    doca_dpa_dev_completion_request_notification(s.comp);
    doca_dpa_dev_thread_reschedule();
}

uint64_t arm_rpc(uint64_t arg) {
    auto &s = *reinterpret_cast<State *>(arg);
    doca_dpa_dev_completion_request_notification(s.comp);
    return 0;
}

uint64_t post_receives_rpc(uint64_t arg) {
    auto &s = *reinterpret_cast<State *>(arg);
    for (size_t i = 0; i < kSlots; ++i)
        doca_dpa_dev_rdma_post_receive(s.rdma, s.mmap, addr(s, kRecvOff + i * kSlot), kSlot);
    return 0;
}

// Sends len bytes already in send slot 0 with an immediate.
uint64_t send_raw_rpc(uint64_t arg, uint64_t len, uint64_t imm) {
    auto &s = *reinterpret_cast<State *>(arg);
    doca_dpa_dev_rdma_post_send_imm(s.rdma, s.conn, s.mmap, addr(s, kSendOff), len,
                                    static_cast<uint32_t>(imm), DOCA_DPA_DEV_SUBMIT_FLAG_FLUSH);
    return 0;
}

// The export message was consumed by the host: give its slot back.
uint64_t repost_rpc(uint64_t arg, uint64_t slot) {
    auto &s = *reinterpret_cast<State *>(arg);
    doca_dpa_dev_rdma_receive_ack(s.rdma, 1);
    doca_dpa_dev_rdma_post_receive(s.rdma, s.mmap, addr(s, kRecvOff + slot * kSlot), kSlot);
    return 0;
}

uint64_t first_ping_rpc(uint64_t arg) {
    send_message(*reinterpret_cast<State *>(arg), 0, 0, 0x10);
    return 0;
}

uint64_t write_imm_rpc(uint64_t arg) {
    auto &s = *reinterpret_cast<State *>(arg);
    doca_dpa_dev_rdma_post_write_imm(s.rdma, s.conn, s.remote_mmap, s.remote_base + kWriteDstOff, s.mmap,
                                     addr(s, kWriteSrcOff), kBlock, kWriteImm,
                                     DOCA_DPA_DEV_SUBMIT_FLAG_FLUSH);
    return 0;
}

uint64_t atomics_signals_read_rpc(uint64_t arg) {
    auto &s = *reinterpret_cast<State *>(arg);
    // Two adds, one completion: the first is reported by the second.
    doca_dpa_dev_rdma_post_atomic_fetch_add(s.rdma, s.conn, s.remote_mmap, s.remote_base + kAtomicOff, 5,
                                            DOCA_DPA_DEV_SUBMIT_FLAG_OPTIMIZE_REPORTS);
    doca_dpa_dev_rdma_post_atomic_fetch_add(s.rdma, s.conn, s.remote_mmap, s.remote_base + kAtomicOff, 5,
                                            DOCA_DPA_DEV_SUBMIT_FLAG_FLUSH);
    doca_dpa_dev_rdma_signal_set(s.rdma, s.conn, s.remote_event, 7);
    doca_dpa_dev_rdma_signal_add(s.rdma, s.conn, s.remote_event, 3);
    doca_dpa_dev_rdma_post_read(s.rdma, s.conn, s.mmap, addr(s, kReadDstOff), s.remote_mmap,
                                s.remote_base + kReadSrcOff, kBlock, DOCA_DPA_DEV_SUBMIT_FLAG_FLUSH);
    return 0;
}

uint64_t bye_rpc(uint64_t arg) {
    send_message(*reinterpret_cast<State *>(arg), 0, kByeImm, 0x33);
    return 0;
}

template <typename F>
doca_dpa_func_t *fn(F *f) {
    return reinterpret_cast<doca_dpa_func_t *>(f);
}

// ---- host side

struct Conn {
    doca_rdma_connection *conn = nullptr;
    bool established = false, failed = false, disconnected = false;
};
Conn g_conn;

void on_request(doca_rdma_connection *c, doca_data) {
    g_conn.conn = c;
    check_rc(doca_rdma_connection_accept(c, nullptr, 0), "server: accept");
}
void on_established(doca_rdma_connection *c, doca_data, doca_data) {
    g_conn.conn = c;
    g_conn.established = true;
}
void on_failure(doca_rdma_connection *, doca_data, doca_data) {
    g_conn.failed = true;
}
void on_disconnect(doca_rdma_connection *, doca_data, doca_data) {
    g_conn.disconnected = true;
}

doca_dev *open_by(const char *what, const std::function<bool(doca_devinfo *)> &match) {
    doca_devinfo **list = nullptr;
    uint32_t n = 0;
    if (doca_devinfo_create_list(&list, &n) != DOCA_SUCCESS) return nullptr;
    doca_dev *dev = nullptr;
    for (uint32_t i = 0; i < n && dev == nullptr; ++i)
        if (match(list[i])) doca_dev_open(list[i], &dev);
    doca_devinfo_destroy_list(list);
    check(dev != nullptr, std::string("open ") + what);
    return dev;
}

struct Side {
    State s;
    std::vector<uint8_t> memory = std::vector<uint8_t>(kMemory);
    doca_dev *rdev = nullptr, *pdev = nullptr;
    doca_dpa_app *app = nullptr;
    doca_dpa *dpa = nullptr;
    doca_dpa_thread *thread = nullptr;
    doca_dpa_completion *comp = nullptr;
    doca_pe *pe = nullptr;
    doca_rdma *rdma = nullptr;
    doca_ctx *ctx = nullptr;
    doca_mmap *mmap = nullptr, *remote = nullptr;
    doca_sync_event *event = nullptr;
    doca_sync_event_remote_net *remote_event = nullptr;

    uint64_t rpc(doca_dpa_func_t *f, uint64_t a, uint64_t b = 0, uint64_t c = 0) {
        uint64_t r = 0;
        doca_error_t rc = doca_dpa_rpc(dpa, f, &r, a, b, c);
        if (rc != DOCA_SUCCESS) check_rc(rc, "doca_dpa_rpc");
        return r;
    }
    uint64_t arg() { return reinterpret_cast<uintptr_t>(&s); }
};

bool wait_for(Side &d, const std::function<bool()> &done, const std::string &what, int seconds = 30) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    while (!done()) {
        if (doca_pe_progress(d.pe) == 0) std::this_thread::sleep_for(std::chrono::microseconds(200));
        if (std::chrono::steady_clock::now() > deadline) return check(false, what, "timed out");
        if (d.s.errors.load() != 0) return check(false, what, "the DPA thread saw an error");
        if (doca_dpa_peek_at_last_error(d.dpa) != DOCA_SUCCESS) return check(false, what, "the DPA faulted");
    }
    return check(true, what);
}

bool setup(Side &d, const std::string &device, bool server, uint32_t messages) {
    d.s.server = server;
    d.s.base = d.memory.data();
    d.s.messages = messages;
    d.rdev = open_by(("RDMA device " + device).c_str(), [&](doca_devinfo *info) {
        char ib[DOCA_DEVINFO_IBDEV_NAME_SIZE] = {};
        return doca_devinfo_get_ibdev_name(info, ib, sizeof ib) == DOCA_SUCCESS && device == ib;
    });
    d.pdev = open_by("the DPU PF with the DPA (p0)", [](doca_devinfo *info) {
        char name[DOCA_DEVINFO_IFACE_NAME_SIZE] = {};
        return doca_devinfo_get_iface_name(info, name, sizeof name) == DOCA_SUCCESS &&
               std::string(name) == "p0";
    });
    if (!d.rdev || !d.pdev) return false;

    check_rc(skiff_dpa_app_create("dpa_rdma_pingpong", &d.app), "app create");
    check_rc(skiff_dpa_app_add_kernel(d.app, fn(&pingpong_thread), 1, "pingpong_thread"), "register thread");
    check_rc(skiff_dpa_app_add_rpc(d.app, fn(&arm_rpc), 1, "arm_rpc"), "register rpc");
    skiff_dpa_app_add_rpc(d.app, fn(&post_receives_rpc), 1, "post_receives_rpc");
    skiff_dpa_app_add_rpc(d.app, fn(&send_raw_rpc), 3, "send_raw_rpc");
    skiff_dpa_app_add_rpc(d.app, fn(&repost_rpc), 2, "repost_rpc");
    skiff_dpa_app_add_rpc(d.app, fn(&first_ping_rpc), 1, "first_ping_rpc");
    skiff_dpa_app_add_rpc(d.app, fn(&write_imm_rpc), 1, "write_imm_rpc");
    skiff_dpa_app_add_rpc(d.app, fn(&atomics_signals_read_rpc), 1, "atomics_signals_read_rpc");
    skiff_dpa_app_add_rpc(d.app, fn(&bye_rpc), 1, "bye_rpc");
    check_rc(doca_dpa_create(d.pdev, &d.dpa), "doca_dpa_create");
    check_rc(doca_dpa_set_app(d.dpa, d.app), "doca_dpa_set_app");
    check_rc(doca_dpa_start(d.dpa), "doca_dpa_start");
    check_rc(doca_dpa_thread_create(d.dpa, &d.thread), "thread create");
    check_rc(doca_dpa_thread_set_func_arg(d.thread, fn(&pingpong_thread), d.arg()), "thread func");
    check_rc(doca_dpa_thread_start(d.thread), "thread start");
    check_rc(doca_dpa_completion_create(d.dpa, 64, &d.comp), "completion create");
    check_rc(doca_dpa_completion_set_thread(d.comp, d.thread), "completion set thread");
    check_rc(doca_dpa_completion_start(d.comp), "completion start");
    check_rc(doca_dpa_completion_get_dpa_handle(d.comp, &d.s.comp), "completion handle");

    check_rc(doca_rdma_create(d.rdev, &d.rdma), "doca_rdma_create");
    d.ctx = doca_rdma_as_ctx(d.rdma);
    check_rc(doca_rdma_dpa_completion_attach(d.rdma, d.comp), "attach before set_datapath_on_dpa is refused",
             DOCA_ERROR_BAD_STATE);
    check_rc(doca_rdma_set_permissions(d.rdma, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE |
                                                   DOCA_ACCESS_FLAG_RDMA_READ | DOCA_ACCESS_FLAG_RDMA_WRITE |
                                                   DOCA_ACCESS_FLAG_RDMA_ATOMIC),
             "set permissions");
    check_rc(doca_rdma_set_send_queue_size(d.rdma, 16), "send queue size");
    check_rc(doca_rdma_set_recv_queue_size(d.rdma, 16), "recv queue size");
    check_rc(doca_rdma_set_max_num_connections(d.rdma, 1), "max connections");
    check_rc(doca_rdma_set_connection_state_callbacks(d.rdma, server ? on_request : nullptr, on_established,
                                                      on_failure, on_disconnect),
             "connection callbacks");
    check_rc(doca_ctx_set_datapath_on_dpa(d.ctx, d.dpa), "doca_ctx_set_datapath_on_dpa");
    doca_dpa_dev_rdma_t h = 0;
    check_rc(doca_rdma_get_dpa_handle(d.rdma, &h), "DPA handle before start is refused",
             DOCA_ERROR_BAD_STATE);
    check_rc(doca_rdma_dpa_completion_attach(d.rdma, d.comp), "doca_rdma_dpa_completion_attach");
    check_rc(doca_pe_create(&d.pe), "pe create");
    check_rc(doca_pe_connect_ctx(d.pe, d.ctx), "pe connect");
    if (!check_rc(doca_ctx_start(d.ctx), "doca_ctx_start on the DPA data path")) return false;
    check_rc(doca_rdma_get_dpa_handle(d.rdma, &d.s.rdma), "doca_rdma_get_dpa_handle");
    check_rc(doca_ctx_set_datapath_on_dpa(d.ctx, d.dpa), "set_datapath_on_dpa after start is refused",
             DOCA_ERROR_BAD_STATE);
    check_rc(doca_dpa_completion_stop(d.comp), "the completion context cannot stop under the RDMA ctx",
             DOCA_ERROR_IN_USE);

    check_rc(doca_mmap_create(&d.mmap), "mmap create");
    doca_mmap_set_memrange(d.mmap, d.memory.data(), d.memory.size());
    doca_mmap_set_permissions(d.mmap, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_READ |
                                          DOCA_ACCESS_FLAG_RDMA_WRITE | DOCA_ACCESS_FLAG_RDMA_ATOMIC);
    doca_mmap_add_dev(d.mmap, d.rdev);
    doca_mmap_add_dev(d.mmap, d.pdev);
    check_rc(doca_mmap_start(d.mmap), "mmap start");
    check_rc(doca_mmap_dev_get_dpa_handle(d.mmap, d.pdev, &d.s.mmap), "mmap DPA handle");
    for (size_t k = 0; k < kBlock; ++k) {
        d.memory[kWriteSrcOff + k] = pattern(k, server ? 0xb0 : 0xa0);
        d.memory[kReadSrcOff + k] = pattern(k, server ? 0xc0 : 0xd0);
    }

    // Host tasks and the DPA data path are exclusive.
    doca_rdma_task_receive *t = nullptr;
    check(doca_rdma_task_receive_allocate_init(d.rdma, nullptr, {}, &t) != DOCA_SUCCESS,
          "host tasks are refused on the DPA data path");

    check_rc(doca_dpa_thread_run(d.thread), "thread run");
    d.rpc(fn(&post_receives_rpc), d.arg());
    d.rpc(fn(&arm_rpc), d.arg());
    return g_failed == 0;
}

// Writes [len][mmap export][len][event export or nothing] into send slot 0; returns its length.
size_t pack_exports(Side &d, const void *a, size_t alen, const uint8_t *b, size_t blen) {
    uint8_t *m = d.memory.data() + kSendOff;
    uint32_t l1 = static_cast<uint32_t>(alen), l2 = static_cast<uint32_t>(blen);
    std::memcpy(m, &l1, 4);
    std::memcpy(m + 4, a, alen);
    std::memcpy(m + 4 + alen, &l2, 4);
    if (blen) std::memcpy(m + 8 + alen, b, blen);
    return 8 + alen + blen;
}

// Imports the peer's exports from the received message; re-posts its receive slot.
bool unpack_exports(Side &d, bool with_event) {
    uint32_t slot = d.s.export_slot.load(), len = d.s.export_len.load();
    const uint8_t *m = d.memory.data() + kRecvOff + slot * kSlot;
    uint32_t l1 = 0, l2 = 0;
    std::memcpy(&l1, m, 4);
    std::memcpy(&l2, m + 4 + l1, 4);
    check(len == 8 + l1 + l2, "export message length from the raw work completion (byte_len)",
          std::to_string(len) + " vs " + std::to_string(8 + l1 + l2));
    if (!check_rc(doca_mmap_create_from_export(nullptr, m + 4, l1, d.rdev, &d.remote),
                  "import the peer's mmap"))
        return false;
    void *raddr = nullptr;
    size_t rlen = 0;
    doca_mmap_get_memrange(d.remote, &raddr, &rlen);
    d.s.remote_base = reinterpret_cast<uintptr_t>(raddr);
    check_rc(doca_mmap_dev_get_dpa_handle(d.remote, d.pdev, &d.s.remote_mmap),
             "DPA handle of the remote mmap");
    if (with_event) {
        check_rc(doca_sync_event_remote_net_create_from_export(d.rdev, m + 8 + l1, l2, &d.remote_event),
                 "import the peer's remote-net sync event");
        check_rc(doca_sync_event_remote_net_get_dpa_handle(d.remote_event, d.dpa, &d.s.remote_event),
                 "remote sync event DPA handle");
    }
    d.rpc(fn(&repost_rpc), d.arg(), slot);
    return g_failed == 0;
}

void teardown(Side &d) {
    check_rc(doca_dpa_thread_stop(d.thread), "thread stop");
    doca_error_t rc = doca_ctx_stop(d.ctx);
    check(rc == DOCA_SUCCESS || rc == DOCA_ERROR_IN_PROGRESS, "doca_ctx_stop");
    doca_ctx_states st = DOCA_CTX_STATE_STOPPING;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (doca_ctx_get_state(d.ctx, &st) == DOCA_SUCCESS && st != DOCA_CTX_STATE_IDLE &&
           std::chrono::steady_clock::now() < deadline)
        if (doca_pe_progress(d.pe) == 0) std::this_thread::sleep_for(std::chrono::microseconds(200));
    check(st == DOCA_CTX_STATE_IDLE, "ctx IDLE after stop");
    check_rc(doca_rdma_destroy(d.rdma), "doca_rdma_destroy");
    check_rc(doca_pe_destroy(d.pe), "pe destroy");
    check_rc(doca_dpa_completion_stop(d.comp), "completion stop");
    check_rc(doca_dpa_completion_destroy(d.comp), "completion destroy");
    check_rc(doca_dpa_thread_destroy(d.thread), "thread destroy");
    if (d.remote_event) check_rc(doca_sync_event_remote_net_destroy(d.remote_event), "remote event destroy");
    if (d.remote) check_rc(doca_mmap_destroy(d.remote), "remote mmap destroy");
    check_rc(doca_mmap_destroy(d.mmap), "mmap destroy");
    if (d.event) {
        doca_sync_event_stop(d.event);
        check_rc(doca_sync_event_destroy(d.event), "event destroy");
    }
    check_rc(doca_dpa_peek_at_last_error(d.dpa), "no DPA fault during the run");
    check_rc(doca_dpa_destroy(d.dpa), "dpa destroy");
    check_rc(skiff_dpa_app_destroy(d.app), "app destroy");
    doca_dev_close(d.pdev);
    doca_dev_close(d.rdev);
}

uint64_t event_value(doca_sync_event *ev) {
    uint64_t v = 0;
    doca_sync_event_get(ev, &v);
    return v;
}

int run_server(const std::string &device, uint16_t port, uint32_t messages) {
    Side d;
    if (!setup(d, device, true, messages)) return 1;
    check_rc(doca_sync_event_create(&d.event), "sync event create");
    check_rc(doca_sync_event_add_publisher_location_remote_net(d.event), "remote-net publisher");
    check_rc(doca_sync_event_add_subscriber_location_cpu(d.event, d.rdev), "cpu subscriber");
    check_rc(doca_sync_event_start(d.event), "sync event start");
    const uint8_t *ev_blob = nullptr;
    size_t ev_len = 0;
    check_rc(doca_sync_event_export_to_remote_net(d.event, &ev_blob, &ev_len), "export the sync event");
    const void *mm_blob = nullptr;
    size_t mm_len = 0;
    check_rc(doca_mmap_export_rdma(d.mmap, d.rdev, &mm_blob, &mm_len), "export the mmap for RDMA");

    check_rc(doca_rdma_start_listen_to_port(d.rdma, port), "listen");
    std::printf("listening on port %u\n", port);
    std::fflush(stdout);
    if (!wait_for(
            d, [] { return g_conn.established; }, "server: established", 60))
        return 1;
    check_rc(doca_rdma_connection_get_id(g_conn.conn, &d.s.conn), "connection id");

    size_t len = pack_exports(d, mm_blob, mm_len, ev_blob, ev_len);
    d.rpc(fn(&send_raw_rpc), d.arg(), len, kExportImm);
    if (!wait_for(
            d, [&] { return d.s.export_len.load() != 0; }, "server: the client's export arrived"))
        return 1;
    if (!unpack_exports(d, false)) return 1;
    d.rpc(fn(&send_raw_rpc), d.arg(), 8, kReadyImm);

    if (!wait_for(
            d, [&] { return d.s.pings.load() == messages; }, "server: every ping verified, pong sent"))
        return 1;
    if (!wait_for(
            d, [&] { return d.s.write_seen.load(); }, "server: write_imm bytes verified, written back"))
        return 1;
    if (!wait_for(
            d, [&] { return d.s.bye.load(); }, "server: bye"))
        return 1;
    uint64_t word = 0;
    std::memcpy(&word, d.memory.data() + kAtomicOff, sizeof word);
    check(word == 10, "server: two remote fetch-adds of 5", std::to_string(word));
    // The signals were acknowledged before the client said bye; the CPU sees them now.
    check(event_value(d.event) == 10, "server: remote sync event set to 7, then 3 added",
          std::to_string(event_value(d.event)));
    check_rc(doca_sync_event_wait_gt(d.event, 9, 0), "server: wait_gt on the remotely signalled event");
    wait_for(
        d, [&] { return d.s.sends.load() == messages + 4; }, "server: one SEND completion per operation");
    check(d.s.wrong_user_data.load() == 0, "server: every completion names the connection");
    check(d.s.raw_wc_ok.load(), "server: every completion carries its raw work completion");
    wait_for(
        d, [] { return g_conn.disconnected; }, "server: disconnect event");
    teardown(d);
    std::printf("server: %d passed, %d failed\n", g_passed, g_failed);
    return g_failed == 0 ? 0 : 1;
}

int run_client(const std::string &device, const std::string &address, uint16_t port, uint32_t messages) {
    Side d;
    if (!setup(d, device, false, messages)) return 1;
    const void *mm_blob = nullptr;
    size_t mm_len = 0;
    check_rc(doca_mmap_export_rdma(d.mmap, d.rdev, &mm_blob, &mm_len), "export the mmap for RDMA");
    doca_rdma_addr *a = nullptr;
    check_rc(doca_rdma_addr_create(DOCA_RDMA_ADDR_TYPE_IPv4, address.c_str(), port, &a), "addr create");
    for (int attempt = 0; attempt < 40 && !g_conn.established; ++attempt) {
        g_conn.failed = false;
        if (!check_rc(doca_rdma_connect_to_addr(d.rdma, a, {}), "client: connect")) return 1;
        auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (!g_conn.established && !g_conn.failed && std::chrono::steady_clock::now() < deadline)
            if (doca_pe_progress(d.pe) == 0) std::this_thread::sleep_for(std::chrono::microseconds(200));
        if (!g_conn.established) std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
    doca_rdma_addr_destroy(a);
    if (!check(g_conn.established, "client: established")) return 1;
    check_rc(doca_rdma_connection_get_id(g_conn.conn, &d.s.conn), "connection id");

    if (!wait_for(
            d, [&] { return d.s.export_len.load() != 0; }, "client: the server's exports arrived"))
        return 1;
    if (!unpack_exports(d, true)) return 1;
    size_t len = pack_exports(d, mm_blob, mm_len, nullptr, 0);
    d.rpc(fn(&send_raw_rpc), d.arg(), len, kExportImm);
    if (!wait_for(
            d, [&] { return d.s.ready.load(); }, "client: server ready"))
        return 1;

    auto t0 = std::chrono::steady_clock::now();
    d.rpc(fn(&first_ping_rpc), d.arg());
    if (!wait_for(
            d, [&] { return d.s.pings.load() == messages; },
            "client: " + std::to_string(messages) + " ping-pongs, every pong verified"))
        return 1;
    auto us =
        std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0).count();
    std::printf("round trip: %.1f us average over %u (TCG lab VM, not a performance number)\n",
                static_cast<double>(us) / messages, messages);

    d.rpc(fn(&write_imm_rpc), d.arg());
    if (!wait_for(
            d, [&] { return d.s.write_seen.load(); },
            "client: write_imm out, server's write_imm back verified"))
        return 1;
    uint32_t before = d.s.sends.load();
    d.rpc(fn(&atomics_signals_read_rpc), d.arg());
    // fetch-add x2 (one completion), signal_set, signal_add, read.
    if (!wait_for(
            d, [&] { return d.s.sends.load() >= before + 4; }, "client: atomics, signals and read complete"))
        return 1;
    bool same = true;
    for (size_t k = 0; k < kBlock; ++k) same &= d.memory[kReadDstOff + k] == pattern(k, 0xc0);
    check(same, "client: bytes read by RDMA READ");
    d.rpc(fn(&bye_rpc), d.arg());
    if (!wait_for(
            d, [&] { return d.s.bye.load(); }, "client: bye-ack"))
        return 1;
    // export, pings, write_imm, 2 fetch-adds reported once, 2 signals, read, bye.
    wait_for(
        d, [&] { return d.s.sends.load() >= messages + 7; }, "client: SEND completions");
    check(d.s.sends.load() == messages + 7, "client: OPTIMIZE_REPORTS left one completion for two fetch-adds",
          std::to_string(d.s.sends.load()) + " vs " + std::to_string(messages + 7));
    check(d.s.wrong_user_data.load() == 0, "client: every completion names the connection");
    check(d.s.raw_wc_ok.load(), "client: every completion carries its raw work completion");
    check_rc(doca_rdma_connection_disconnect(g_conn.conn), "client: disconnect");
    wait_for(
        d, [] { return g_conn.disconnected; }, "client: disconnect event");
    teardown(d);
    std::printf("client: %d passed, %d failed\n", g_passed, g_failed);
    return g_failed == 0 ? 0 : 1;
}

} // namespace

int main(int argc, char **argv) {
    CLI::App app{
        "DPA comms over a real RDMA device: two processes, each with a DPA thread, ping-pong messages "
        "with device-side send/receive, RDMA write with immediate, atomic fetch-add, remote sync event "
        "signals and RDMA read, verifying every byte. Run the server first, then the client."};
    bool server = false, client = false;
    std::string device = "rxe0", address = "192.168.77.1";
    uint16_t port = 7472;
    uint32_t messages = 64;
    app.add_flag("--server", server, "listen and serve one client");
    app.add_flag("--client", client, "connect to the server");
    app.add_option("--device", device, "rdma-core device name (ibv_devices)")->capture_default_str();
    app.add_option("--addr", address, "server IP address (client)")->capture_default_str();
    app.add_option("--port", port, "RDMA-CM port")->capture_default_str();
    app.add_option("--messages", messages, "ping-pong round trips (same on both sides)")
        ->check(CLI::Range(1u, 100000u))
        ->capture_default_str();
    CLI11_PARSE(app, argc, argv);
    if (server == client) {
        std::fprintf(stderr, "dpa_rdma_pingpong: give exactly one of --server / --client (see --help)\n");
        return 2;
    }
    return server ? run_server(device, port, messages) : run_client(device, address, port, messages);
}
