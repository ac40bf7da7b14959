// One end of a DOCA Comch channel in its own process, for the two-process comch tests: the host
// side (client on pf0, 0b:00.0) or the DPU side (server on p0 with representor hpf0). It prints
// what happens, one line each, and takes commands on stdin, one per line.
//
// Usage: comch_peer client|server <server name>
// Output:
//   STATE <IDLE|STARTING|RUNNING|STOPPING>     ctx state changes
//   CONNECTED <k> / DISCONNECTED <k>           server: client k (numbered from 1) came / went
//   RECV <k> <len> <text>                      a message (k = 0 on the client)
//   SENT <k> / SEND_ERR <k> <error name>       a send task completed
//   ALLOC_ERR <error name>                     a send task could not be allocated
//   ERROR <what> <error name>                  setup failed (then exit 1)
// Commands:
//   SEND <k> <text>        send text on connection k (client: k is ignored)
//   SENDN <k> <n> <prefix> send n messages "<prefix><i>", i = 0..n-1, back to back
//   SENDSIZE <k> <bytes>   send one message of that many 'x' bytes
//   ECHO                   server: answer every message with the same bytes
//   DISCONNECT <k>         server: doca_comch_server_disconnect
//   START / STOP           doca_ctx_start / doca_ctx_stop
//   SLEEP <ms>             stop progressing for a while (the peer's sends pile up), then "AWAKE"
//   EXIT                   stop, progress to IDLE, destroy, exit 0 (also on end of input)
#include <doca_comch.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_pe.h>

#include <poll.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Peer {
    bool is_server = false;
    doca_dev *dev = nullptr;
    doca_dev_rep *rep = nullptr;
    doca_pe *pe = nullptr;
    doca_comch_server *server = nullptr;
    doca_comch_client *client = nullptr;
    doca_ctx *ctx = nullptr;
    bool echo = false;
    uint64_t next_id = 1;
    std::map<uint64_t, doca_comch_connection *> conns;
    std::map<doca_comch_task_send *, std::unique_ptr<std::string>> messages; // bodies of sends in flight
};

Peer peer;

void say(const std::string &line) {
    std::printf("%s\n", line.c_str());
    std::fflush(stdout);
}

[[noreturn]] void fail(const char *what, doca_error_t r) {
    say(std::string("ERROR ") + what + " " + doca_error_get_name(r));
    std::exit(1);
}

void check(doca_error_t r, const char *what) {
    if (r != DOCA_SUCCESS) fail(what, r);
}

const char *state_name(doca_ctx_states s) {
    switch (s) {
    case DOCA_CTX_STATE_IDLE:
        return "IDLE";
    case DOCA_CTX_STATE_STARTING:
        return "STARTING";
    case DOCA_CTX_STATE_RUNNING:
        return "RUNNING";
    case DOCA_CTX_STATE_STOPPING:
        return "STOPPING";
    }
    return "?";
}

uint64_t id_of(doca_comch_connection *c) {
    return doca_comch_connection_get_user_data(c).u64;
}

doca_dev *open_device(const char *side, const char *pci) {
    setenv("SKIFF_SIDE", side, 1);
    doca_devinfo **list = nullptr;
    uint32_t n = 0;
    check(doca_devinfo_create_list(&list, &n), "doca_devinfo_create_list");
    doca_dev *dev = nullptr;
    for (uint32_t i = 0; i < n && dev == nullptr; ++i) {
        uint8_t eq = 0;
        if (doca_devinfo_is_equal_pci_addr(list[i], pci, &eq) == DOCA_SUCCESS && eq)
            check(doca_dev_open(list[i], &dev), "doca_dev_open");
    }
    doca_devinfo_destroy_list(list);
    if (dev == nullptr) fail("no device with that PCI address", DOCA_ERROR_NOT_FOUND);
    return dev;
}

doca_dev_rep *open_rep(doca_dev *dev, const char *pci) {
    doca_devinfo_rep **list = nullptr;
    uint32_t n = 0;
    check(doca_devinfo_rep_create_list(dev, DOCA_DEVINFO_REP_FILTER_NET, &list, &n), "rep list");
    doca_dev_rep *rep = nullptr;
    for (uint32_t i = 0; i < n && rep == nullptr; ++i) {
        uint8_t eq = 0;
        if (doca_devinfo_rep_is_equal_pci_addr(list[i], pci, &eq) == DOCA_SUCCESS && eq)
            check(doca_dev_rep_open(list[i], &rep), "doca_dev_rep_open");
    }
    doca_devinfo_rep_destroy_list(list);
    if (rep == nullptr) fail("no representor with that PCI address", DOCA_ERROR_NOT_FOUND);
    return rep;
}

// ---- callbacks

void on_state(doca_data, doca_ctx *, doca_ctx_states, doca_ctx_states next) {
    say(std::string("STATE ") + state_name(next));
}

void on_send_done(doca_comch_task_send *task, doca_data user, doca_data) {
    doca_task *t = doca_comch_task_send_as_task(task);
    doca_error_t status = doca_task_get_status(t);
    if (status == DOCA_SUCCESS)
        say("SENT " + std::to_string(user.u64));
    else
        say("SEND_ERR " + std::to_string(user.u64) + " " + doca_error_get_name(status));
    peer.messages.erase(task);
    doca_task_free(t);
}

doca_error_t send(doca_comch_connection *conn, const std::string &body, uint64_t k);

void on_recv(doca_comch_event_msg_recv *, uint8_t *buf, uint32_t len, doca_comch_connection *conn) {
    uint64_t k = peer.is_server ? id_of(conn) : 0;
    say("RECV " + std::to_string(k) + " " + std::to_string(len) + " " +
        std::string(reinterpret_cast<char *>(buf), len > 64 ? 64 : len));
    if (peer.echo) send(conn, std::string(reinterpret_cast<char *>(buf), len), k);
}

void on_connect(doca_comch_event_connection_status_changed *, doca_comch_connection *conn, uint8_t ok) {
    doca_data d{};
    d.u64 = peer.next_id++;
    doca_comch_connection_set_user_data(conn, d);
    peer.conns[d.u64] = conn;
    say("CONNECTED " + std::to_string(d.u64) + " " + std::to_string(ok));
}

void on_disconnect(doca_comch_event_connection_status_changed *, doca_comch_connection *conn, uint8_t ok) {
    uint64_t k = id_of(conn);
    peer.conns.erase(k);
    say("DISCONNECTED " + std::to_string(k) + " " + std::to_string(ok));
}

void on_consumer(doca_comch_event_consumer *, doca_comch_connection *, uint32_t) {}

// ---- commands

doca_comch_connection *connection(uint64_t k) {
    if (!peer.is_server) {
        doca_comch_connection *c = nullptr;
        return doca_comch_client_get_connection(peer.client, &c) == DOCA_SUCCESS ? c : nullptr;
    }
    auto it = peer.conns.find(k);
    return it == peer.conns.end() ? nullptr : it->second;
}

doca_error_t send(doca_comch_connection *conn, const std::string &body, uint64_t k) {
    if (conn == nullptr) {
        say("ALLOC_ERR NO_CONNECTION");
        return DOCA_ERROR_NOT_CONNECTED;
    }
    auto msg = std::make_unique<std::string>(body); // the task points at it until its callback
    doca_comch_task_send *task = nullptr;
    doca_error_t r =
        peer.is_server
            ? doca_comch_server_task_send_alloc_init(peer.server, conn, msg->data(), msg->size(), &task)
            : doca_comch_client_task_send_alloc_init(peer.client, conn, msg->data(), msg->size(), &task);
    if (r != DOCA_SUCCESS) {
        say(std::string("ALLOC_ERR ") + doca_error_get_name(r));
        return r;
    }
    peer.messages[task] = std::move(msg);
    doca_data d{};
    d.u64 = k;
    doca_task_set_user_data(doca_comch_task_send_as_task(task), d);
    r = doca_task_submit(doca_comch_task_send_as_task(task));
    if (r != DOCA_SUCCESS) {
        peer.messages.erase(task);
        doca_task_free(doca_comch_task_send_as_task(task));
        say(std::string("SUBMIT_ERR ") + doca_error_get_name(r));
    }
    return r;
}

void drain_to_idle() {
    if (doca_ctx_stop(peer.ctx) == DOCA_ERROR_BAD_STATE) return;
    doca_ctx_states s;
    while (doca_ctx_get_state(peer.ctx, &s) == DOCA_SUCCESS && s != DOCA_CTX_STATE_IDLE)
        doca_pe_progress(peer.pe);
    while (doca_pe_progress(peer.pe) != 0) {
    }
}

[[noreturn]] void finish() {
    drain_to_idle();
    if (peer.server) check(doca_comch_server_destroy(peer.server), "doca_comch_server_destroy");
    if (peer.client) check(doca_comch_client_destroy(peer.client), "doca_comch_client_destroy");
    check(doca_pe_destroy(peer.pe), "doca_pe_destroy");
    if (peer.rep) check(doca_dev_rep_close(peer.rep), "doca_dev_rep_close");
    check(doca_dev_close(peer.dev), "doca_dev_close");
    say("BYE");
    std::exit(0);
}

void run(const std::string &line) {
    std::istringstream in(line);
    std::string cmd;
    uint64_t k = 0;
    in >> cmd;
    if (cmd == "SEND") {
        std::string text;
        in >> k;
        std::getline(in >> std::ws, text);
        send(connection(k), text, k);
    } else if (cmd == "SENDN") {
        int n = 0;
        std::string prefix;
        in >> k >> n >> prefix;
        for (int i = 0; i < n; ++i) send(connection(k), prefix + std::to_string(i), k);
    } else if (cmd == "SENDSIZE") {
        size_t bytes = 0;
        in >> k >> bytes;
        send(connection(k), std::string(bytes, 'x'), k);
    } else if (cmd == "ECHO") {
        peer.echo = true;
        say("ECHOING");
    } else if (cmd == "DISCONNECT") {
        in >> k;
        doca_comch_connection *c = connection(k);
        say(std::string("DISCONNECT ") +
            doca_error_get_name(c ? doca_comch_server_disconnect(peer.server, c) : DOCA_ERROR_NOT_FOUND));
    } else if (cmd == "START") {
        say(std::string("START ") + doca_error_get_name(doca_ctx_start(peer.ctx)));
    } else if (cmd == "STOP") {
        say(std::string("STOP ") + doca_error_get_name(doca_ctx_stop(peer.ctx)));
    } else if (cmd == "SLEEP") {
        int ms = 0;
        in >> ms;
        say("SLEEPING");
        ::usleep(static_cast<useconds_t>(ms) * 1000);
        say("AWAKE");
    } else if (cmd == "EXIT") {
        finish();
    } else {
        say("UNKNOWN " + line);
    }
}

void setup(const char *role, const char *name) {
    peer.is_server = std::strcmp(role, "server") == 0;
    check(doca_pe_create(&peer.pe), "doca_pe_create");
    if (peer.is_server) {
        peer.dev = open_device("dpu", "03:00.0");
        peer.rep = open_rep(peer.dev, "0b:00.0");
        check(doca_comch_server_create(peer.dev, peer.rep, name, &peer.server), "doca_comch_server_create");
        peer.ctx = doca_comch_server_as_ctx(peer.server);
        check(doca_comch_server_task_send_set_conf(peer.server, on_send_done, on_send_done, 256),
              "send conf");
        check(doca_comch_server_event_msg_recv_register(peer.server, on_recv), "recv register");
        check(doca_comch_server_event_connection_status_changed_register(peer.server, on_connect,
                                                                         on_disconnect),
              "connection register");
        check(doca_comch_server_event_consumer_register(peer.server, on_consumer, on_consumer),
              "consumer register");
    } else {
        peer.dev = open_device("host", "0b:00.0");
        check(doca_comch_client_create(peer.dev, name, &peer.client), "doca_comch_client_create");
        peer.ctx = doca_comch_client_as_ctx(peer.client);
        check(doca_comch_client_task_send_set_conf(peer.client, on_send_done, on_send_done, 256),
              "send conf");
        check(doca_comch_client_event_msg_recv_register(peer.client, on_recv), "recv register");
    }
    check(doca_pe_connect_ctx(peer.pe, peer.ctx), "doca_pe_connect_ctx");
    check(doca_ctx_set_state_changed_cb(peer.ctx, on_state), "state cb");
    doca_error_t r = doca_ctx_start(peer.ctx);
    if (r != DOCA_SUCCESS && r != DOCA_ERROR_IN_PROGRESS) fail("doca_ctx_start", r);
}

} // namespace

int main(int argc, char **argv) {
    if (argc != 3 || (std::strcmp(argv[1], "client") != 0 && std::strcmp(argv[1], "server") != 0)) {
        std::fprintf(stderr, "usage: %s client|server <server name>\n", argv[0]);
        return 2;
    }
    setup(argv[1], argv[2]);
    std::string pending;
    for (;;) {
        if (doca_pe_progress(peer.pe) != 0) continue;
        pollfd p{STDIN_FILENO, POLLIN, 0};
        if (::poll(&p, 1, 1) <= 0) continue;
        char buf[4096];
        ssize_t n = ::read(STDIN_FILENO, buf, sizeof buf);
        if (n <= 0) finish();
        pending.append(buf, static_cast<size_t>(n));
        for (size_t nl; (nl = pending.find('\n')) != std::string::npos;) {
            std::string line = pending.substr(0, nl);
            pending.erase(0, nl + 1);
            run(line);
        }
    }
}
