// DOCA Comch control path between two real processes: this test process is one end, a
// tests/helpers/comch_peer process the other (client on host pf0 / server on DPU p0 + hpf0).
// Each test uses its own SKIFF_COMCH_DIR so that parallel tests never meet.
#include <doca_comch.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_pe.h>

#include "../../core/src/mem/import_probe.hpp"
#include "comch_peer_process.hpp"
#include "local_attacker_process.hpp"
#include "mmap_fixture.hpp"

#include <doca_mmap.h>
#include <skiff/core/comch_trust.hpp>

#include <gtest/gtest.h>

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <optional>
#include <cstring>
#include <string>
#include <vector>

namespace {

using skiff::test::ComchPeerProcess;

// What the test's own end saw, in order.
struct Events {
    std::vector<std::string> log;
    std::vector<doca_comch_connection *> connected;
    std::vector<std::string> received;
    std::vector<doca_error_t> send_status;
    std::vector<doca_ctx_states> states;
};

Events *events_of_ctx(doca_ctx *ctx) {
    doca_data d{};
    doca_ctx_get_user_data(ctx, &d);
    return static_cast<Events *>(d.ptr);
}

Events *events_of(doca_comch_connection *conn) {
    if (doca_comch_server *s = doca_comch_server_get_server_ctx(conn))
        return events_of_ctx(doca_comch_server_as_ctx(s));
    return events_of_ctx(doca_comch_client_as_ctx(doca_comch_client_get_client_ctx(conn)));
}

void on_send(doca_comch_task_send *task, doca_data, doca_data ctx_data) {
    auto *ev = static_cast<Events *>(ctx_data.ptr);
    ev->send_status.push_back(doca_task_get_status(doca_comch_task_send_as_task(task)));
    doca_task_free(doca_comch_task_send_as_task(task));
}

void on_recv(doca_comch_event_msg_recv *, uint8_t *buf, uint32_t len, doca_comch_connection *conn) {
    events_of(conn)->received.emplace_back(reinterpret_cast<char *>(buf), len);
}

void on_connect(doca_comch_event_connection_status_changed *, doca_comch_connection *conn, uint8_t ok) {
    Events *ev = events_of(conn);
    ev->connected.push_back(conn);
    ev->log.push_back("connect " + std::to_string(ok));
}

void on_disconnect(doca_comch_event_connection_status_changed *, doca_comch_connection *conn, uint8_t ok) {
    Events *ev = events_of(conn);
    std::erase(ev->connected, conn);
    ev->log.push_back("disconnect " + std::to_string(ok));
}

void on_state(doca_data user, doca_ctx *, doca_ctx_states, doca_ctx_states next) {
    static_cast<Events *>(user.ptr)->states.push_back(next);
}

// A temporary SKIFF_COMCH_DIR for one test (inherited by the peer process).
class ComchDir {
  public:
    ComchDir() {
        char tmpl[] = "/tmp/skiff-comch-test-XXXXXX";
        dir_ = ::mkdtemp(tmpl);
        env_.emplace("SKIFF_COMCH_DIR", dir_);
    }
    ~ComchDir() {
        env_.reset();
        std::string cmd = "rm -rf " + dir_;
        (void)std::system(cmd.c_str());
    }
    const std::string &path() const { return dir_; }

  private:
    std::string dir_;
    std::optional<skiff::test::ScopedEnv> env_;
};

doca_dev_rep *open_hpf0(doca_dev *p0) {
    doca_devinfo_rep **list = nullptr;
    uint32_t n = 0;
    EXPECT_EQ(doca_devinfo_rep_create_list(p0, DOCA_DEVINFO_REP_FILTER_NET, &list, &n), DOCA_SUCCESS);
    doca_dev_rep *rep = nullptr;
    for (uint32_t i = 0; i < n && rep == nullptr; ++i) {
        uint8_t eq = 0;
        if (doca_devinfo_rep_is_equal_pci_addr(list[i], "0b:00.0", &eq) == DOCA_SUCCESS && eq) {
            EXPECT_EQ(doca_dev_rep_open(list[i], &rep), DOCA_SUCCESS);
        }
    }
    doca_devinfo_rep_destroy_list(list);
    return rep;
}

// The test's own end: a server on p0/hpf0 or a client on pf0, with its PE and event log.
class LocalEnd {
  public:
    static constexpr uint32_t kTasks = 64;

    explicit LocalEnd(bool server, const char *name = "skiff-test") : server_(server) {
        EXPECT_EQ(doca_pe_create(&pe_), DOCA_SUCCESS);
        if (server) {
            dev_ = skiff::test::open_dpu_p0();
            rep_ = open_hpf0(dev_);
            EXPECT_EQ(doca_comch_server_create(dev_, rep_, name, &s_), DOCA_SUCCESS);
            ctx_ = doca_comch_server_as_ctx(s_);
            EXPECT_EQ(doca_comch_server_task_send_set_conf(s_, on_send, on_send, kTasks), DOCA_SUCCESS);
            EXPECT_EQ(doca_comch_server_event_msg_recv_register(s_, on_recv), DOCA_SUCCESS);
            EXPECT_EQ(
                doca_comch_server_event_connection_status_changed_register(s_, on_connect, on_disconnect),
                DOCA_SUCCESS);
        } else {
            dev_ = skiff::test::open_host_pf0();
            EXPECT_EQ(doca_comch_client_create(dev_, name, &c_), DOCA_SUCCESS);
            ctx_ = doca_comch_client_as_ctx(c_);
            EXPECT_EQ(doca_comch_client_task_send_set_conf(c_, on_send, on_send, kTasks), DOCA_SUCCESS);
            EXPECT_EQ(doca_comch_client_event_msg_recv_register(c_, on_recv), DOCA_SUCCESS);
        }
        doca_data d{};
        d.ptr = &ev;
        EXPECT_EQ(doca_ctx_set_user_data(ctx_, d), DOCA_SUCCESS);
        EXPECT_EQ(doca_ctx_set_state_changed_cb(ctx_, on_state), DOCA_SUCCESS);
        EXPECT_EQ(doca_pe_connect_ctx(pe_, ctx_), DOCA_SUCCESS);
    }
    ~LocalEnd() {
        if (state() != DOCA_CTX_STATE_IDLE) {
            doca_ctx_stop(ctx_);
            while (state() != DOCA_CTX_STATE_IDLE) progress();
        }
        while (doca_pe_progress(pe_) != 0) {
        }
        EXPECT_EQ(server_ ? doca_comch_server_destroy(s_) : doca_comch_client_destroy(c_), DOCA_SUCCESS);
        EXPECT_EQ(doca_pe_destroy(pe_), DOCA_SUCCESS);
        if (rep_) {
            EXPECT_EQ(doca_dev_rep_close(rep_), DOCA_SUCCESS);
        }
        EXPECT_EQ(doca_dev_close(dev_), DOCA_SUCCESS);
    }

    doca_ctx_states state() const {
        doca_ctx_states s{};
        doca_ctx_get_state(ctx_, &s);
        return s;
    }
    void progress() { doca_pe_progress(pe_); }
    std::function<void()> progressor() {
        return [this] { progress(); };
    }
    // Progresses until pred() holds.
    template <typename Pred>
    void progress_until(Pred pred) {
        while (!pred()) {
            if (doca_pe_progress(pe_) == 0) ::usleep(100);
        }
    }
    doca_error_t send(doca_comch_connection *conn, const std::string &msg) {
        doca_comch_task_send *task = nullptr;
        doca_error_t r =
            server_ ? doca_comch_server_task_send_alloc_init(s_, conn, msg.data(), msg.size(), &task)
                    : doca_comch_client_task_send_alloc_init(c_, conn, msg.data(), msg.size(), &task);
        if (r != DOCA_SUCCESS) return r;
        r = doca_task_submit(doca_comch_task_send_as_task(task));
        if (r != DOCA_SUCCESS) doca_task_free(doca_comch_task_send_as_task(task));
        return r;
    }
    doca_comch_connection *client_connection() {
        doca_comch_connection *c = nullptr;
        EXPECT_EQ(doca_comch_client_get_connection(c_, &c), DOCA_SUCCESS);
        return c;
    }

    Events ev;
    doca_ctx *ctx_ = nullptr;
    doca_comch_server *s_ = nullptr;
    doca_comch_client *c_ = nullptr;
    doca_dev *dev_ = nullptr;
    doca_pe *pe_ = nullptr;

  private:
    bool server_;
    doca_dev_rep *rep_ = nullptr;
};

// Whether the PE's notification handle is readable: waits up to timeout_ms (a bound on failure,
// not a measurement).
bool handle_readable(doca_pe *pe, int timeout_ms) {
    doca_notification_handle_t h = -1;
    EXPECT_EQ(doca_pe_get_notification_handle(pe, &h), DOCA_SUCCESS);
    pollfd p{h, POLLIN, 0};
    return ::poll(&p, 1, timeout_ms) == 1 && (p.revents & POLLIN) != 0;
}

// Waits until a client process started on `server` runs and the server has seen it connect (its
// connection: the last one); nullptr, with a failure, when it did not.
doca_comch_connection *await_client(LocalEnd &server, ComchPeerProcess &client) {
    size_t before = server.ev.connected.size();
    std::string state = client.wait_for("STATE RUNNING", server.progressor());
    EXPECT_EQ(state, "STATE RUNNING");
    if (state != "STATE RUNNING") return nullptr;
    server.progress_until([&] { return server.ev.connected.size() == before + 1; });
    return server.ev.connected.back();
}

} // namespace

// ---- capabilities and creation rules (one process)

TEST(Comch, CapsNameTheEmulatedChannelsLimitsAndWhichSideRunsWhat) {
    doca_dev *pf0 = skiff::test::open_host_pf0();
    doca_dev *p0 = skiff::test::open_dpu_p0();
    ASSERT_NE(pf0, nullptr);
    ASSERT_NE(p0, nullptr);
    EXPECT_EQ(doca_comch_cap_client_is_supported(doca_dev_as_devinfo(pf0)), DOCA_SUCCESS);
    EXPECT_EQ(doca_comch_cap_server_is_supported(doca_dev_as_devinfo(pf0)), DOCA_ERROR_NOT_SUPPORTED);
    EXPECT_EQ(doca_comch_cap_server_is_supported(doca_dev_as_devinfo(p0)), DOCA_SUCCESS);
    EXPECT_EQ(doca_comch_cap_client_is_supported(doca_dev_as_devinfo(p0)), DOCA_ERROR_NOT_SUPPORTED);
    uint32_t v = 0;
    ASSERT_EQ(doca_comch_cap_get_max_msg_size(doca_dev_as_devinfo(p0), &v), DOCA_SUCCESS);
    EXPECT_EQ(v, 4080u);
    ASSERT_EQ(doca_comch_cap_get_max_name_len(doca_dev_as_devinfo(pf0), &v), DOCA_SUCCESS);
    EXPECT_EQ(v, 120u);
    ASSERT_EQ(doca_comch_cap_get_max_clients(doca_dev_as_devinfo(p0), &v), DOCA_SUCCESS);
    EXPECT_EQ(v, 512u);
    ASSERT_EQ(doca_comch_cap_get_max_recv_queue_size(doca_dev_as_devinfo(p0), &v), DOCA_SUCCESS);
    EXPECT_GE(v, 1u);
    ASSERT_EQ(doca_comch_cap_get_max_send_tasks(doca_dev_as_devinfo(p0), &v), DOCA_SUCCESS);
    EXPECT_GE(v, 1024u);
    EXPECT_EQ(doca_comch_cap_get_max_msg_size(nullptr, &v), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_dev_close(pf0), DOCA_SUCCESS);
    EXPECT_EQ(doca_dev_close(p0), DOCA_SUCCESS);
}

TEST(Comch, CreateRefusesTheWrongSideAForeignRepresentorAndBadNames) {
    doca_dev *pf0 = skiff::test::open_host_pf0();
    doca_dev *p0 = skiff::test::open_dpu_p0();
    doca_dev *p1 = skiff::test::open_dpu_p1();
    doca_dev_rep *hpf0 = open_hpf0(p0);
    ASSERT_NE(hpf0, nullptr);
    doca_comch_server *s = nullptr;
    doca_comch_client *c = nullptr;
    EXPECT_EQ(doca_comch_server_create(pf0, hpf0, "x", &s), DOCA_ERROR_NOT_SUPPORTED); // host side
    EXPECT_EQ(doca_comch_server_create(p1, hpf0, "x", &s), DOCA_ERROR_NOT_PERMITTED);  // p0's representor
    EXPECT_EQ(doca_comch_client_create(p0, "x", &c), DOCA_ERROR_NOT_SUPPORTED);        // DPU side
    EXPECT_EQ(doca_comch_server_create(p0, hpf0, "", &s), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_comch_client_create(pf0, std::string(120, 'n').c_str(), &c), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_comch_client_create(pf0, nullptr, &c), DOCA_ERROR_INVALID_VALUE);
    ASSERT_EQ(doca_comch_client_create(pf0, std::string(119, 'n').c_str(), &c), DOCA_SUCCESS);
    EXPECT_EQ(doca_comch_client_destroy(c), DOCA_SUCCESS);
    EXPECT_EQ(doca_comch_client_destroy(c), DOCA_ERROR_INVALID_VALUE); // twice
    EXPECT_EQ(doca_dev_rep_close(hpf0), DOCA_SUCCESS);
    for (doca_dev *d : {pf0, p0, p1}) EXPECT_EQ(doca_dev_close(d), DOCA_SUCCESS);
}

TEST(Comch, ConfigurationIsIdleOnlyAndChecksItsLimits) {
    ComchDir dir;
    LocalEnd server(true);
    EXPECT_EQ(doca_comch_server_set_max_msg_size(server.s_, 0), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_comch_server_set_max_msg_size(server.s_, 4081), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_comch_server_set_max_msg_size(server.s_, 1024), DOCA_SUCCESS);
    uint32_t v = 0;
    EXPECT_EQ(doca_comch_server_get_max_msg_size(server.s_, &v), DOCA_SUCCESS);
    EXPECT_EQ(v, 1024u);
    EXPECT_EQ(doca_comch_server_set_recv_queue_size(server.s_, 0), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_comch_server_set_recv_queue_size(server.s_, 16), DOCA_SUCCESS);
    EXPECT_EQ(doca_comch_server_task_send_set_conf(server.s_, on_send, on_send, 0), DOCA_ERROR_INVALID_VALUE);

    // The server starts at once (no peer needed) and is then configured no more.
    EXPECT_EQ(doca_ctx_start(server.ctx_), DOCA_SUCCESS);
    EXPECT_EQ(server.state(), DOCA_CTX_STATE_RUNNING);
    EXPECT_EQ(doca_comch_server_set_max_msg_size(server.s_, 512), DOCA_ERROR_BAD_STATE);
    EXPECT_EQ(doca_comch_server_task_send_set_conf(server.s_, on_send, on_send, 8), DOCA_ERROR_BAD_STATE);
    EXPECT_EQ(doca_comch_server_event_msg_recv_register(server.s_, on_recv), DOCA_ERROR_BAD_STATE);
    EXPECT_EQ(doca_comch_server_destroy(server.s_), DOCA_ERROR_IN_USE);
    // Its socket is where a client of hpf0 (0b:00.0) looks for it.
    struct stat st {};
    EXPECT_EQ(::stat((dir.path() + "/0000%3A0b%3A00.0@skiff-test").c_str(), &st), 0);
    EXPECT_TRUE(S_ISSOCK(st.st_mode));

    // A second server with the same name on the same representor is refused while the first lives.
    LocalEnd twin(true);
    EXPECT_EQ(doca_ctx_start(twin.ctx_), DOCA_ERROR_IN_USE);
    EXPECT_EQ(twin.state(), DOCA_CTX_STATE_IDLE);
    // ... and the refused twin leaves the first one's socket in place.
    EXPECT_EQ(::stat((dir.path() + "/0000%3A0b%3A00.0@skiff-test").c_str(), &st), 0);

    EXPECT_EQ(doca_ctx_stop(server.ctx_), DOCA_SUCCESS);
    EXPECT_NE(::stat((dir.path() + "/0000%3A0b%3A00.0@skiff-test").c_str(), &st), 0); // removed on stop
}

TEST(Comch, ClientWaitsInStartingWhileNoServerListensAndStopsCleanly) {
    ComchDir dir;
    LocalEnd client(false);
    EXPECT_EQ(doca_ctx_start(client.ctx_), DOCA_ERROR_IN_PROGRESS);
    EXPECT_EQ(client.state(), DOCA_CTX_STATE_STARTING);
    for (int i = 0; i < 2000; ++i) client.progress();
    EXPECT_EQ(client.state(), DOCA_CTX_STATE_STARTING);
    doca_comch_connection *conn = nullptr;
    EXPECT_EQ(doca_comch_client_get_connection(client.c_, &conn), DOCA_ERROR_BAD_STATE);
    doca_comch_task_send *task = nullptr;
    EXPECT_EQ(doca_comch_client_task_send_alloc_init(client.c_, nullptr, "x", 1, &task),
              DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_ctx_stop(client.ctx_), DOCA_SUCCESS);
    EXPECT_EQ(client.state(), DOCA_CTX_STATE_IDLE);
}

// ---- two processes

TEST(Comch, ServerHereClientThereMessagesRoundTripAndDisconnectIsReported) {
    ComchDir dir;
    LocalEnd server(true);
    ASSERT_EQ(doca_ctx_start(server.ctx_), DOCA_SUCCESS);
    ComchPeerProcess client("client", "skiff-test");
    ASSERT_NE(await_client(server, client), nullptr);
    EXPECT_EQ(server.ev.log, std::vector<std::string>{"connect 1"});
    doca_comch_connection *conn = server.ev.connected[0];
    EXPECT_EQ(doca_comch_server_get_server_ctx(conn), server.s_);
    EXPECT_EQ(doca_comch_client_get_client_ctx(conn), nullptr);

    client.command("SEND 0 hello from the host");
    server.progress_until([&] { return server.ev.received.size() == 1; });
    EXPECT_EQ(server.ev.received[0], "hello from the host");
    EXPECT_EQ(client.wait_for("SENT", server.progressor()), "SENT 0");

    ASSERT_EQ(server.send(conn, "hello from the DPU"), DOCA_SUCCESS);
    EXPECT_EQ(client.wait_for("RECV", server.progressor()), "RECV 0 18 hello from the DPU");
    server.progress_until([&] { return server.ev.send_status.size() == 1; });
    EXPECT_EQ(server.ev.send_status[0], DOCA_SUCCESS);

    // Counters as of update_info.
    ASSERT_EQ(doca_comch_connection_update_info(conn), DOCA_SUCCESS);
    uint64_t n = 0;
    EXPECT_EQ(doca_comch_connection_get_counter(conn, DOCA_COMCH_COUNTER_RECV_MESSAGES, &n), DOCA_SUCCESS);
    EXPECT_EQ(n, 1u);
    EXPECT_EQ(doca_comch_connection_get_counter(conn, DOCA_COMCH_COUNTER_SENT_BYTES, &n), DOCA_SUCCESS);
    EXPECT_EQ(n, 18u);

    // The client stops its ctx: the server sees a disconnection.
    client.command("STOP");
    server.progress_until([&] { return server.ev.connected.empty(); });
    EXPECT_EQ(server.ev.log.back(), "disconnect 1");
    EXPECT_EQ(client.wait_for("STATE IDLE", server.progressor()), "STATE IDLE");
    // ... and may start again: a new connection.
    client.command("START");
    EXPECT_EQ(client.wait_for("STATE RUNNING", server.progressor()), "STATE RUNNING");
    server.progress_until([&] { return server.ev.connected.size() == 1; });
    EXPECT_EQ(client.exit_normally(), 0);
    server.progress_until([&] { return server.ev.connected.empty(); });
}

TEST(Comch, MessagesKeepTheirOrderAndTheLargestFitsOneByteMoreDoesNot) {
    ComchDir dir;
    LocalEnd server(true);
    ASSERT_EQ(doca_ctx_start(server.ctx_), DOCA_SUCCESS);
    ComchPeerProcess client("client", "skiff-test");
    ASSERT_NE(await_client(server, client), nullptr);

    client.command("SENDN 0 200 m");
    server.progress_until([&] { return server.ev.received.size() == 200; });
    for (int i = 0; i < 200; ++i) ASSERT_EQ(server.ev.received[i], "m" + std::to_string(i));

    client.command("SENDSIZE 0 4080");
    server.progress_until([&] { return server.ev.received.size() == 201; });
    EXPECT_EQ(server.ev.received[200], std::string(4080, 'x'));
    client.command("SENDSIZE 0 4081");
    EXPECT_EQ(client.wait_for("ALLOC_ERR", server.progressor()), "ALLOC_ERR DOCA_ERROR_INVALID_VALUE");

    // The server's limit is the connection's: 4080 from here as well, 4081 refused at alloc.
    doca_comch_connection *conn = server.ev.connected[0];
    EXPECT_EQ(server.send(conn, std::string(4081, 'y')), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(server.send(conn, std::string(4080, 'y')), DOCA_SUCCESS);
    std::string got = client.wait_for("RECV", server.progressor());
    EXPECT_EQ(got.substr(0, 10), "RECV 0 408");
}

TEST(Comch, AClientThatDiesIsReportedAndSendsToItFail) {
    ComchDir dir;
    LocalEnd server(true);
    ASSERT_EQ(doca_ctx_start(server.ctx_), DOCA_SUCCESS);
    ComchPeerProcess a("client", "skiff-test");
    ASSERT_NE(await_client(server, a), nullptr);
    doca_comch_connection *conn_a = server.ev.connected[0];
    doca_data tag{};
    tag.u64 = 0xa;
    ASSERT_EQ(doca_comch_connection_set_user_data(conn_a, tag), DOCA_SUCCESS);

    // A second client of the same function (another process on the same host PF).
    ComchPeerProcess b("client", "skiff-test");
    ASSERT_EQ(b.wait_for("STATE RUNNING", server.progressor()), "STATE RUNNING");
    server.progress_until([&] { return server.ev.connected.size() == 2; });
    doca_comch_connection *conn_b = server.ev.connected[1];
    EXPECT_NE(conn_a, conn_b);
    EXPECT_EQ(doca_comch_connection_get_user_data(conn_a).u64, 0xau);
    EXPECT_EQ(doca_comch_connection_get_user_data(conn_b).u64, 0u);

    a.kill_now();
    server.progress_until([&] { return server.ev.connected.size() == 1; });
    EXPECT_EQ(server.ev.log.back(), "disconnect 1");
    EXPECT_EQ(server.ev.connected[0], conn_b);
    // The dead client's connection takes no more sends; the living one does.
    EXPECT_EQ(server.send(conn_a, "to the dead"), DOCA_ERROR_NOT_CONNECTED);
    EXPECT_EQ(doca_comch_connection_update_info(conn_a), DOCA_ERROR_CONNECTION_ABORTED);
    ASSERT_EQ(server.send(conn_b, "to the living"), DOCA_SUCCESS);
    EXPECT_EQ(b.wait_for("RECV", server.progressor()), "RECV 0 13 to the living");

    // A send submitted before the server noticed a death fails through its error callback.
    b.kill_now();
    size_t before = server.ev.send_status.size();
    doca_error_t r = server.send(conn_b, "racing the death");
    if (r == DOCA_SUCCESS) {
        server.progress_until([&] { return server.ev.send_status.size() > before; });
        // Either it reached the socket before the kernel closed it, or it failed: never lost.
        EXPECT_TRUE(server.ev.send_status.back() == DOCA_SUCCESS ||
                    server.ev.send_status.back() == DOCA_ERROR_NOT_CONNECTED);
    } else {
        EXPECT_EQ(r, DOCA_ERROR_NOT_CONNECTED);
    }
    server.progress_until([&] { return server.ev.connected.empty(); });
}

TEST(Comch, ServerDisconnectEndsTheClientsCtxAndTheClientReconnects) {
    ComchDir dir;
    LocalEnd server(true);
    ASSERT_EQ(doca_ctx_start(server.ctx_), DOCA_SUCCESS);
    ComchPeerProcess client("client", "skiff-test");
    ASSERT_NE(await_client(server, client), nullptr);
    ASSERT_EQ(doca_comch_server_disconnect(server.s_, server.ev.connected[0]), DOCA_SUCCESS);
    EXPECT_EQ(client.wait_for("STATE STOPPING", server.progressor()), "STATE STOPPING");
    EXPECT_EQ(client.wait_for("STATE IDLE", server.progressor()), "STATE IDLE");
    server.progress_until([&] { return server.ev.connected.empty(); });
    client.command("START");
    EXPECT_EQ(client.wait_for("STATE RUNNING", server.progressor()), "STATE RUNNING");
    server.progress_until([&] { return server.ev.connected.size() == 1; });
}

TEST(Comch, ClientHereServerThereWaitsForTheServerAndStopsWhenItDies) {
    ComchDir dir;
    LocalEnd client(false);
    ASSERT_EQ(doca_ctx_start(client.ctx_), DOCA_ERROR_IN_PROGRESS);
    for (int i = 0; i < 100; ++i) client.progress();
    EXPECT_EQ(client.state(), DOCA_CTX_STATE_STARTING);

    {
        ComchPeerProcess server("server", "skiff-test");
        server.command("ECHO");
        ASSERT_EQ(server.wait_for("ECHOING"), "ECHOING");
        client.progress_until([&] { return client.state() == DOCA_CTX_STATE_RUNNING; });
        EXPECT_EQ(server.wait_for("CONNECTED", client.progressor()), "CONNECTED 1 1");
        doca_comch_connection *conn = client.client_connection();
        EXPECT_EQ(doca_comch_client_get_client_ctx(conn), client.c_);
        ASSERT_EQ(client.send(conn, "ping"), DOCA_SUCCESS);
        client.progress_until([&] { return client.ev.received.size() == 1; });
        EXPECT_EQ(client.ev.received[0], "ping");

        // The server process dies: the client ctx stops by itself.
        server.kill_now();
        client.progress_until([&] { return client.state() == DOCA_CTX_STATE_IDLE; });
        client.progress(); // deliver the IDLE transition
        EXPECT_EQ(client.ev.states.back(), DOCA_CTX_STATE_IDLE);
        EXPECT_NE(std::find(client.ev.states.begin(), client.ev.states.end(), DOCA_CTX_STATE_STOPPING),
                  client.ev.states.end());
    }

    // A new server (its predecessor's socket file is stale): start the client again, it reconnects.
    ComchPeerProcess server("server", "skiff-test");
    ASSERT_EQ(doca_ctx_start(client.ctx_), DOCA_ERROR_IN_PROGRESS);
    client.progress_until([&] { return client.state() == DOCA_CTX_STATE_RUNNING; });
    EXPECT_EQ(server.wait_for("CONNECTED", client.progressor()), "CONNECTED 1 1");
    EXPECT_EQ(server.exit_normally(), 0);
    client.progress_until([&] { return client.state() == DOCA_CTX_STATE_IDLE; });
}

TEST(Comch, TheLongestNamesMeetToo) {
    ComchDir dir;
    const std::string name(119, 'L'); // too long for a socket path as is: both ends use its hash
    LocalEnd server(true, name.c_str());
    ASSERT_EQ(doca_ctx_start(server.ctx_), DOCA_SUCCESS);
    ComchPeerProcess client("client", name);
    ASSERT_NE(await_client(server, client), nullptr);
    // A name differing in its last character is another server.
    LocalEnd other(true, (std::string(118, 'L') + "M").c_str());
    EXPECT_EQ(doca_ctx_start(other.ctx_), DOCA_SUCCESS);
}

TEST(Comch, InFlightSendsAreFlushedWhenTheClientStops) {
    ComchDir dir;
    ComchPeerProcess server("server", "skiff-test");
    LocalEnd client(false);
    ASSERT_EQ(doca_ctx_start(client.ctx_), DOCA_ERROR_IN_PROGRESS);
    client.progress_until([&] { return client.state() == DOCA_CTX_STATE_RUNNING; });
    EXPECT_EQ(server.wait_for("CONNECTED", client.progressor()), "CONNECTED 1 1");
    doca_comch_connection *conn = client.client_connection();
    // The server process stops reading; we send far more than its receive queue holds, so sends
    // wait inside the ctx for socket space. Stop flushes them: every task comes back.
    server.command("SLEEP 3000");
    ASSERT_EQ(server.wait_for("SLEEPING"), "SLEEPING");
    std::string big(4000, 'z');
    uint32_t submitted = 0;
    while (submitted < LocalEnd::kTasks && client.send(conn, big) == DOCA_SUCCESS) ++submitted;
    EXPECT_EQ(submitted, LocalEnd::kTasks);
    doca_error_t r = doca_ctx_stop(client.ctx_);
    EXPECT_TRUE(r == DOCA_SUCCESS || r == DOCA_ERROR_IN_PROGRESS);
    client.progress_until([&] { return client.state() == DOCA_CTX_STATE_IDLE; });
    EXPECT_EQ(client.ev.send_status.size(), submitted); // every task came back
    size_t flushed = 0;
    for (doca_error_t s : client.ev.send_status) {
        EXPECT_TRUE(s == DOCA_SUCCESS || s == DOCA_ERROR_SHUTDOWN) << doca_error_get_name(s);
        flushed += s == DOCA_ERROR_SHUTDOWN;
    }
    EXPECT_GT(flushed, 0u); // the socket could not take 64 x 4000 bytes unread
}

// NVIDIA's high-speed data path sample sends its last control message and stops the server in
// the same callback. The message is in the peer's socket when the stop comes: drained, not
// flushed. The send completes with success (doca_ctx.h) and the peer reads it.
TEST(Comch, ASendThePeerAlreadyHasSucceedsAcrossAStop) {
    ComchDir dir;
    LocalEnd server(true);
    ASSERT_EQ(doca_ctx_start(server.ctx_), DOCA_SUCCESS);
    ComchPeerProcess client("client", "skiff-test");
    ASSERT_NE(await_client(server, client), nullptr);
    ASSERT_EQ(server.send(server.ev.connected[0], "the last word"), DOCA_SUCCESS);
    EXPECT_EQ(doca_ctx_stop(server.ctx_), DOCA_ERROR_IN_PROGRESS); // a task is in flight
    server.progress_until([&] { return server.state() == DOCA_CTX_STATE_IDLE; });
    ASSERT_EQ(server.ev.send_status.size(), 1u);
    EXPECT_EQ(server.ev.send_status[0], DOCA_SUCCESS) << doca_error_get_name(server.ev.send_status[0]);
    EXPECT_EQ(client.wait_for("RECV"), "RECV 0 13 the last word");
}

// An application that sleeps on the PE's notification handle (as skiff-target's idle poll groups
// do) is woken by a message another process sends, with no thread of the core's involved: the
// ctx's sockets are in the handle's wait set.
TEST(Comch, AMessageFromAnotherProcessWakesAPeSleepingOnItsNotificationHandle) {
    ComchDir dir;
    LocalEnd server(true);
    ASSERT_EQ(doca_ctx_start(server.ctx_), DOCA_SUCCESS);
    ComchPeerProcess client("client", "skiff-test");
    ASSERT_NE(await_client(server, client), nullptr);
    while (doca_pe_progress(server.pe_) != 0) {
    }

    // Armed with nothing to do: the handle stays quiet.
    ASSERT_EQ(doca_pe_request_notification(server.pe_), DOCA_SUCCESS);
    EXPECT_FALSE(handle_readable(server.pe_, 0)) << "the handle fired with no work";
    // The peer sends while this end does not progress at all: the handle becomes readable.
    client.command("SEND 0 wake up");
    EXPECT_EQ(client.wait_for("SENT"), "SENT 0");
    ASSERT_TRUE(handle_readable(server.pe_, 10000)) << "a message arrived and the handle stayed quiet";
    doca_notification_handle_t h = -1;
    ASSERT_EQ(doca_pe_get_notification_handle(server.pe_, &h), DOCA_SUCCESS);
    ASSERT_EQ(doca_pe_clear_notification(server.pe_, h), DOCA_SUCCESS);
    while (doca_pe_progress(server.pe_) != 0) {
    }
    ASSERT_EQ(server.ev.received.size(), 1u);
    EXPECT_EQ(server.ev.received[0], "wake up");
    // Everything consumed: quiet again once re-armed.
    ASSERT_EQ(doca_pe_request_notification(server.pe_), DOCA_SUCCESS);
    EXPECT_FALSE(handle_readable(server.pe_, 0));

    // The peer dies: the disconnection wakes the sleeper too.
    client.kill_now();
    ASSERT_TRUE(handle_readable(server.pe_, 10000)) << "the client died and the handle stayed quiet";
    ASSERT_EQ(doca_pe_clear_notification(server.pe_, h), DOCA_SUCCESS);
    while (doca_pe_progress(server.pe_) != 0) {
    }
    EXPECT_TRUE(server.ev.connected.empty());
    EXPECT_EQ(server.ev.log.back(), "disconnect 1");
}

// A client that only ever sleeps on the handle still connects (its retries are timer ticks in
// the wait set) and is woken by the server's messages.
TEST(Comch, AClientSleepingOnItsNotificationHandleConnectsAndReceives) {
    ComchDir dir;
    LocalEnd client(false);
    ASSERT_EQ(doca_ctx_start(client.ctx_), DOCA_ERROR_IN_PROGRESS);
    ComchPeerProcess server("server", "skiff-test");
    doca_notification_handle_t h = -1;
    ASSERT_EQ(doca_pe_get_notification_handle(client.pe_, &h), DOCA_SUCCESS);
    // Sleep, wake, progress what is there: the only way this end moves. Bounded by rounds.
    auto sleep_and_progress = [&] {
        ASSERT_EQ(doca_pe_request_notification(client.pe_), DOCA_SUCCESS);
        ASSERT_TRUE(handle_readable(client.pe_, 10000)) << "the handle never fired";
        ASSERT_EQ(doca_pe_clear_notification(client.pe_, h), DOCA_SUCCESS);
        while (doca_pe_progress(client.pe_) != 0) {
        }
    };
    for (int i = 0; i < 1000 && client.state() != DOCA_CTX_STATE_RUNNING; ++i) sleep_and_progress();
    ASSERT_EQ(client.state(), DOCA_CTX_STATE_RUNNING);
    EXPECT_EQ(server.wait_for("CONNECTED"), "CONNECTED 1 1");

    server.command("SEND 1 hello sleeper");
    EXPECT_EQ(server.wait_for("SENT"), "SENT 1");
    for (int i = 0; i < 100 && client.ev.received.empty(); ++i) sleep_and_progress();
    ASSERT_EQ(client.ev.received.size(), 1u);
    EXPECT_EQ(client.ev.received[0], "hello sleeper");
    EXPECT_EQ(server.exit_normally(), 0);
}

// ---- the local trust model (core/src/comch/README.md, "Local trust"): a real process of another
// user (tests/helpers/local_attacker as nobody) next to a channel of root's. Each test runs with
// the umask of a careful start (022) and of a careless one (000): the directory and the socket
// must come out closed either way.

namespace {

using skiff::test::LocalAttacker;

std::string mode_of(const std::string &path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return "missing";
    char text[32];
    std::snprintf(text, sizeof text, "%04o uid %u", st.st_mode & 07777, st.st_uid);
    return text;
}

// A parent folder for SKIFF_COMCH_DIR that the attacker may enter (0755) or, like /tmp, also
// create in (1777); removed with everything in it.
class TrustFolder {
  public:
    explicit TrustFolder(mode_t mode) {
        char tmpl[] = "/tmp/skiff-trust-XXXXXX";
        path_ = ::mkdtemp(tmpl);
        ::chmod(path_.c_str(), mode);
    }
    ~TrustFolder() {
        std::string cmd = "rm -rf " + path_;
        (void)std::system(cmd.c_str());
    }
    std::string operator/(const std::string &name) const { return path_ + "/" + name; }

  private:
    std::string path_;
};

class ComchLocalTrust : public ::testing::TestWithParam<mode_t> {
  protected:
    void SetUp() override {
        if (std::string why = skiff::test::why_no_attacker(); !why.empty()) GTEST_SKIP() << why;
        old_umask_ = ::umask(GetParam());
    }
    void TearDown() override {
        if (old_umask_ != kNoUmask) ::umask(old_umask_);
    }
    static constexpr mode_t kNoUmask = 07777;
    mode_t old_umask_ = kNoUmask;
};

std::string socket_of(const std::string &dir, const char *name) {
    return dir + "/0000%3A0b%3A00.0@" + name;
}

} // namespace

TEST_P(ComchLocalTrust, AnotherUserCannotJoinEvenWhenTheDirectoryIsOpenedLater) {
    TrustFolder folder(0755);
    const std::string dir = folder / "comch"; // missing: the server makes it, under this umask
    skiff::test::ScopedEnv env("SKIFF_COMCH_DIR", dir);
    LocalEnd server(true, "trust-join");
    ASSERT_EQ(doca_ctx_start(server.ctx_), DOCA_SUCCESS);
    EXPECT_EQ(mode_of(dir), "0700 uid 0");
    EXPECT_EQ(mode_of(socket_of(dir, "trust-join")), "0600 uid 0");
    {
        LocalAttacker nobody({"join", "trust-join"});
        EXPECT_EQ(nobody.next_line(10000, server.progressor()), "CANNOT_CONNECT EACCES");
    }
    // An administrator opens the directory and the socket to everyone: the server still admits
    // only root and its own uid (SO_PEERCRED), before any handshake or message.
    ASSERT_EQ(::chmod(dir.c_str(), 0777), 0);
    ASSERT_EQ(::chmod(socket_of(dir, "trust-join").c_str(), 0777), 0);
    LocalAttacker nobody({"join", "trust-join"});
    EXPECT_EQ(nobody.next_line(10000, server.progressor()), "REFUSED 3"); // RefuseReason::not_permitted
    for (int i = 0; i < 100; ++i) server.progress();
    EXPECT_TRUE(server.ev.log.empty()) << "the server reported a connection of nobody: " << server.ev.log[0];
    EXPECT_TRUE(server.ev.received.empty());
}

TEST_P(ComchLocalTrust, AnotherUserCannotSquatAChannelName) {
    TrustFolder folder(01777); // like /tmp: anyone may create the channel directory first
    const std::string dir = folder / "comch";
    skiff::test::ScopedEnv env("SKIFF_COMCH_DIR", dir);
    {
        // nobody makes the directory and binds the channel's name before the server starts.
        LocalAttacker nobody({"squat", "trust-squat", "2"});
        ASSERT_EQ(nobody.next_line(10000), "SQUATTING");
        EXPECT_EQ(mode_of(dir), "0777 uid 65534");
        LocalEnd server(true, "trust-squat");
        EXPECT_EQ(doca_ctx_start(server.ctx_), DOCA_ERROR_NOT_PERMITTED) << "a server in nobody's directory";
        LocalEnd client(false, "trust-squat");
        EXPECT_EQ(doca_ctx_start(client.ctx_), DOCA_ERROR_NOT_PERMITTED) << "a client in nobody's directory";
        EXPECT_EQ(nobody.next_line(10000), "CLIENTS 0 BYTES 0");
    }
    ASSERT_EQ(std::system(("rm -rf " + dir).c_str()), 0);

    // In the server's own directory the name cannot be taken: the directory is closed to others.
    LocalEnd server(true, "trust-squat");
    ASSERT_EQ(doca_ctx_start(server.ctx_), DOCA_SUCCESS);
    LocalAttacker nobody({"squat", "trust-squat-2", "1"});
    EXPECT_EQ(nobody.next_line(10000), "CANNOT_BIND EACCES");
}

TEST_P(ComchLocalTrust, AClientSendsNothingToAServerOfAUserItDoesNotAdmit) {
    // A directory shared with a group (root:nogroup 2770, an administrator's choice): a member may
    // bind a name first. The client still checks who serves it (SO_PEERCRED) and says nothing.
    TrustFolder folder(0755);
    const std::string dir = folder / "comch";
    ASSERT_EQ(::mkdir(dir.c_str(), 0700), 0);
    ASSERT_EQ(::chown(dir.c_str(), 0, skiff::test::kNogroup), 0);
    ASSERT_EQ(::chmod(dir.c_str(), 02770), 0);
    skiff::test::ScopedEnv env("SKIFF_COMCH_DIR", dir);
    LocalAttacker nobody({"squat", "trust-group", "2"});
    ASSERT_EQ(nobody.next_line(10000), "SQUATTING");
    LocalEnd client(false, "trust-group");
    ASSERT_EQ(doca_ctx_start(client.ctx_), DOCA_ERROR_IN_PROGRESS);
    EXPECT_EQ(nobody.next_line(10000, client.progressor()), "CLIENT 1"); // the client reached it
    LocalEnd server(true, "trust-group");
    EXPECT_EQ(doca_ctx_start(server.ctx_), DOCA_ERROR_IN_USE);
    std::string line;
    while ((line = nobody.next_line(10000, client.progressor())).rfind("CLIENT ", 0) == 0) {
    }
    EXPECT_EQ(client.state(), DOCA_CTX_STATE_STARTING) << "the client ran against nobody's socket";
    EXPECT_EQ(line.substr(0, 8), "CLIENTS ");
    EXPECT_EQ(line.substr(line.find(" BYTES")), " BYTES 0") << line;
}

// Without another user: what the start checks in the directory and the peer list.
TEST(ComchTrust, AnOpenDirectoryOfOursIsClosedASymlinkAndABadPeerListFailTheStart) {
    ComchDir dir;
    ASSERT_EQ(::chmod(dir.path().c_str(), 01777), 0); // as earlier versions made /tmp/skiff-comch
    {
        LocalEnd server(true, "trust-dir");
        ASSERT_EQ(doca_ctx_start(server.ctx_), DOCA_SUCCESS);
        EXPECT_EQ(mode_of(dir.path()), "0770 uid " + std::to_string(::geteuid()));
    }
    {
        skiff::test::ScopedEnv uids("SKIFF_COMCH_PEER_UIDS", "0, no such user");
        LocalEnd server(true, "trust-dir");
        EXPECT_EQ(doca_ctx_start(server.ctx_), DOCA_ERROR_INVALID_VALUE);
        LocalEnd client(false, "trust-dir");
        EXPECT_EQ(doca_ctx_start(client.ctx_), DOCA_ERROR_INVALID_VALUE);
    }
    // A symbolic link in its place (to a directory someone else controls) is refused.
    const std::string link = dir.path() + "/link";
    ASSERT_EQ(::mkdir((dir.path() + "/real").c_str(), 0700), 0);
    ASSERT_EQ(::symlink((dir.path() + "/real").c_str(), link.c_str()), 0);
    skiff::test::ScopedEnv env("SKIFF_COMCH_DIR", link);
    LocalEnd server(true, "trust-dir");
    EXPECT_EQ(doca_ctx_start(server.ctx_), DOCA_ERROR_NOT_PERMITTED);
}

INSTANTIATE_TEST_SUITE_P(Umask, ComchLocalTrust, ::testing::Values(mode_t{022}, mode_t{0}),
                         [](const auto &info) { return info.param == 0 ? "umask000" : "umask022"; });

namespace {

// An exporter of another user that the server admits (SKIFF_COMCH_PEER_UIDS names it), in a
// channel directory shared with its group (root:nogroup 2750): the memory checks alone decide.
class ComchCrossUserExport : public ComchLocalTrust {
  protected:
    void SetUp() override {
        ComchLocalTrust::SetUp();
        if (IsSkipped()) return;
        dir_ = folder_ / "comch";
        ASSERT_EQ(::mkdir(dir_.c_str(), 0700), 0);
        ASSERT_EQ(::chown(dir_.c_str(), 0, skiff::test::kNogroup), 0);
        ASSERT_EQ(::chmod(dir_.c_str(), 02750), 0);
        env_dir_.emplace("SKIFF_COMCH_DIR", dir_);
        env_uids_.emplace("SKIFF_COMCH_PEER_UIDS", std::to_string(skiff::test::kNobody));
    }

    // Starts the attacker with these serve-file arguments and waits for the descriptor it sends;
    // the descriptor ("" when none came).
    std::string receive_export(LocalEnd &server, LocalAttacker &nobody) {
        EXPECT_EQ(nobody.next_line(10000, server.progressor()), "JOINED");
        EXPECT_EQ(nobody.next_line(10000, server.progressor()), "SENT");
        for (int i = 0; i < 20000 && server.ev.received.empty(); ++i) {
            if (doca_pe_progress(server.pe_) == 0) ::usleep(100);
        }
        return server.ev.received.empty() ? "" : server.ev.received.back();
    }

    TrustFolder folder_{0755};
    std::string dir_;
    std::optional<skiff::test::ScopedEnv> env_dir_, env_uids_;
};

} // namespace

TEST_P(ComchCrossUserExport, AFileTheUserCannotReadIsNeverImported) {
    // root's secret: 0600, which nobody may not read; an O_PATH descriptor needs only the way to it.
    const std::string secret = folder_ / "secret";
    {
        int fd = ::open(secret.c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
        ASSERT_GE(fd, 0);
        std::string bytes(4096, 'S');
        ASSERT_EQ(::write(fd, bytes.data(), bytes.size()), 4096);
        ::close(fd);
    }
    for (const char *how : {"files", "descriptor"}) {
        SCOPED_TRACE(how);
        LocalEnd server(true, "trust-file");
        ASSERT_EQ(doca_ctx_start(server.ctx_), DOCA_SUCCESS);
        LocalAttacker nobody({"serve-file", "trust-file", secret, how});
        std::string desc = receive_export(server, nobody);
        ASSERT_EQ(desc.size(), 160u) << "no export descriptor from the attacker";
        doca_mmap *m = nullptr;
        doca_error_t r = doca_mmap_create_from_export(nullptr, desc.data(), desc.size(), server.dev_, &m);
        if (r == DOCA_SUCCESS) {
            void *addr = nullptr;
            size_t len = 0;
            doca_mmap_get_memrange(m, &addr, &len);
            const void *view = skiff::core::mem::import_local_view(m, addr);
            ADD_FAILURE() << "root imported a file nobody cannot read; its first byte here: "
                          << (view != nullptr ? std::string(1, *static_cast<const char *>(view)) : "?");
            doca_mmap_destroy(m);
        }
        EXPECT_EQ(r, DOCA_ERROR_NOT_PERMITTED);
    }
}

TEST_P(ComchCrossUserExport, AMemfdExportOfAnAdmittedUserIsMappedThroughTheFilesItSent) {
    LocalEnd server(true, "trust-memfd");
    ASSERT_EQ(doca_ctx_start(server.ctx_), DOCA_SUCCESS);
    LocalAttacker exporter({"serve-file", "trust-memfd", "-", "files"});
    std::string desc = receive_export(server, exporter);
    ASSERT_EQ(desc.size(), 160u);
    doca_mmap *m = nullptr;
    ASSERT_EQ(doca_mmap_create_from_export(nullptr, desc.data(), desc.size(), server.dev_, &m), DOCA_SUCCESS);
    EXPECT_EQ(skiff::core::mem::import_path(m), skiff::core::mem::ImportPath::shared_mapping);
    void *addr = nullptr;
    size_t len = 0;
    ASSERT_EQ(doca_mmap_get_memrange(m, &addr, &len), DOCA_SUCCESS);
    const auto *bytes = static_cast<const uint8_t *>(skiff::core::mem::import_local_view(m, addr));
    ASSERT_NE(bytes, nullptr);
    EXPECT_EQ(bytes[0], 0x5a);
    EXPECT_EQ(bytes[len - 1], 0x5a);
    EXPECT_EQ(doca_mmap_destroy(m), DOCA_SUCCESS);
    // The descriptor names the peer itself; one naming another process (here: this one) does not
    // pass for the peer's (the hostmem control channel ignores such an EXPORT).
    ASSERT_EQ(server.ev.connected.size(), 1u);
    doca_comch_connection *conn = server.ev.connected.back();
    auto peer = skiff::core::comch::peer_credentials(conn);
    ASSERT_TRUE(peer.ok());
    EXPECT_EQ(peer->uid, skiff::test::kNobody);
    EXPECT_TRUE(skiff::core::comch::check_export_from_peer(conn, desc.data(), desc.size()).ok());
    std::string other = desc;
    int32_t self = ::getpid();
    std::memcpy(other.data() + 16, &self, sizeof self); // the exporter pid field (export_blob.cpp)
    skiff::Status replayed = skiff::core::comch::check_export_from_peer(conn, other.data(), other.size());
    ASSERT_FALSE(replayed.ok());
    EXPECT_EQ(replayed.error().code, DOCA_ERROR_NOT_PERMITTED);
    // Without its files the same descriptor would need /proc/<pid>/fd of another user: refused.
    EXPECT_EQ(doca_ctx_stop(server.ctx_), DOCA_SUCCESS); // the connection and its files go
    while (server.state() != DOCA_CTX_STATE_IDLE) server.progress();
    EXPECT_EQ(doca_mmap_create_from_export(nullptr, desc.data(), desc.size(), server.dev_, &m),
              DOCA_ERROR_NOT_PERMITTED);
}

INSTANTIATE_TEST_SUITE_P(Umask, ComchCrossUserExport, ::testing::Values(mode_t{022}, mode_t{0}),
                         [](const auto &info) { return info.param == 0 ? "umask000" : "umask022"; });
