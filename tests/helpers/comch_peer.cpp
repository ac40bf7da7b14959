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
// Data path (doca_comch_consumer / doca_comch_producer, each on its own PE as NVIDIA's samples do):
//   CONSUMER <k> <n> <bytes>  a consumer on connection k posting n buffers of that size; prints
//                          CONSUMER_ID <id>, CONSUMER_START <error name>, then CONSUMER_STATE lines
//   POST <n>               post n more buffers
//   CONSUMER_STOP          stop the consumer, progress to IDLE, destroy it; prints CONSUMER_GONE
//   PRODUCER <k>           a producer on connection k; prints PRODUCER_ID <id>
//   PRODUCE <consumer id> <imm> <text>   one send with <imm> as immediate data ("-" for none)
//   PRODUCESIZE <consumer id> <bytes> [imm]   one send of that many 'y' bytes
// Data path output:
//   CONSUMER_NEW <k> <id> / CONSUMER_EXPIRED <k> <id>   the peer's consumer came / went
//   CRECV <producer id> <imm> <len> <first 64 bytes>    a post-receive completed (buffer reposted)
//   CRECV_ERR <error name>                              a post-receive failed
//   PSENT / PSEND_ERR <error name> / PSUBMIT_ERR <error name>
#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_comch.h>
#include <doca_comch_consumer.h>
#include <doca_comch_producer.h>
#include <doca_mmap.h>
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
    // data path
    doca_pe *consumer_pe = nullptr;
    doca_comch_consumer *consumer = nullptr;
    doca_mmap *consumer_mmap = nullptr;
    doca_buf_inventory *consumer_inv = nullptr;
    std::vector<uint8_t> consumer_mem;
    size_t consumer_buf_size = 0;
    size_t consumer_posted = 0; // buffers handed out so far (each one a slice of consumer_mem)
    doca_pe *producer_pe = nullptr;
    doca_comch_producer *producer = nullptr;
    doca_mmap *producer_mmap = nullptr;
    doca_buf_inventory *producer_inv = nullptr;
    std::vector<uint8_t> producer_mem;
    size_t produce_off = 0;
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

void on_consumer_new(doca_comch_event_consumer *, doca_comch_connection *conn, uint32_t id) {
    say("CONSUMER_NEW " + std::to_string(peer.is_server ? id_of(conn) : 0) + " " + std::to_string(id));
}

void on_consumer_expired(doca_comch_event_consumer *, doca_comch_connection *conn, uint32_t id) {
    say("CONSUMER_EXPIRED " + std::to_string(peer.is_server ? id_of(conn) : 0) + " " + std::to_string(id));
}

// ---- data path

void on_consumer_state(doca_data, doca_ctx *, doca_ctx_states, doca_ctx_states next) {
    say(std::string("CONSUMER_STATE ") + state_name(next));
}

void post_one(doca_buf *buf);

void on_recv_done(doca_comch_consumer_task_post_recv *task, doca_data, doca_data) {
    doca_task *t = doca_comch_consumer_task_post_recv_as_task(task);
    doca_buf *buf = doca_comch_consumer_task_post_recv_get_buf(task);
    doca_error_t status = doca_task_get_status(t);
    if (status == DOCA_SUCCESS) {
        void *data = nullptr;
        size_t len = 0;
        doca_buf_get_data(buf, &data);
        doca_buf_get_data_len(buf, &len);
        const uint8_t *imm = doca_comch_consumer_task_post_recv_get_imm_data(task);
        uint32_t imm_len = doca_comch_consumer_task_post_recv_get_imm_data_len(task);
        std::string imm_text = imm ? std::string(reinterpret_cast<const char *>(imm), imm_len) : "-";
        say("CRECV " + std::to_string(doca_comch_consumer_task_post_recv_get_producer_id(task)) + " " +
            imm_text + " " + std::to_string(len) + " " +
            std::string(static_cast<char *>(data), len > 64 ? 64 : len));
    } else {
        say(std::string("CRECV_ERR ") + doca_error_get_name(status));
    }
    doca_task_free(t);
    if (status == DOCA_SUCCESS || status == DOCA_ERROR_INVALID_VALUE) {
        doca_buf_reset_data_len(buf);
        post_one(buf); // keep the consumer's queue of buffers full
    } else {
        doca_buf_dec_refcount(buf, nullptr);
    }
}

void post_one(doca_buf *buf) {
    doca_comch_consumer_task_post_recv *task = nullptr;
    doca_error_t r = doca_comch_consumer_task_post_recv_alloc_init(peer.consumer, buf, &task);
    if (r == DOCA_SUCCESS) r = doca_task_submit(doca_comch_consumer_task_post_recv_as_task(task));
    if (r != DOCA_SUCCESS) {
        say(std::string("POST_ERR ") + doca_error_get_name(r));
        if (task) doca_task_free(doca_comch_consumer_task_post_recv_as_task(task));
        doca_buf_dec_refcount(buf, nullptr);
    }
}

void post_new(size_t n) {
    for (size_t i = 0; i < n; ++i) {
        if ((peer.consumer_posted + 1) * peer.consumer_buf_size > peer.consumer_mem.size()) {
            say("POST_ERR NO_MEMORY");
            return;
        }
        doca_buf *buf = nullptr;
        check(doca_buf_inventory_buf_get_by_addr(peer.consumer_inv, peer.consumer_mmap,
                                                 peer.consumer_mem.data() +
                                                     peer.consumer_posted * peer.consumer_buf_size,
                                                 peer.consumer_buf_size, &buf),
              "buf_get_by_addr");
        ++peer.consumer_posted;
        post_one(buf);
    }
}

void make_memory(std::vector<uint8_t> &mem, size_t bytes, doca_mmap **mmap, doca_buf_inventory **inv) {
    mem.assign(bytes, 0);
    check(doca_mmap_create(mmap), "doca_mmap_create");
    check(doca_mmap_add_dev(*mmap, peer.dev), "doca_mmap_add_dev");
    check(doca_mmap_set_memrange(*mmap, mem.data(), mem.size()), "doca_mmap_set_memrange");
    check(doca_mmap_start(*mmap), "doca_mmap_start");
    check(doca_buf_inventory_create(256, inv), "doca_buf_inventory_create");
    check(doca_buf_inventory_start(*inv), "doca_buf_inventory_start");
}

void consumer_create(doca_comch_connection *conn, size_t n, size_t bytes) {
    // Room for every buffer this peer may ever post (POST adds more).
    make_memory(peer.consumer_mem, 64 * bytes, &peer.consumer_mmap, &peer.consumer_inv);
    peer.consumer_buf_size = bytes;
    check(doca_pe_create(&peer.consumer_pe), "doca_pe_create");
    check(doca_comch_consumer_create(conn, peer.consumer_mmap, &peer.consumer), "doca_comch_consumer_create");
    doca_ctx *ctx = doca_comch_consumer_as_ctx(peer.consumer);
    check(doca_comch_consumer_task_post_recv_set_conf(peer.consumer, on_recv_done, on_recv_done, 64),
          "post_recv conf");
    check(doca_pe_connect_ctx(peer.consumer_pe, ctx), "doca_pe_connect_ctx");
    check(doca_ctx_set_state_changed_cb(ctx, on_consumer_state), "state cb");
    uint32_t id = 0;
    check(doca_comch_consumer_get_id(peer.consumer, &id), "consumer id");
    say("CONSUMER_ID " + std::to_string(id));
    say(std::string("CONSUMER_START ") + doca_error_get_name(doca_ctx_start(ctx)));
    doca_ctx_states s = DOCA_CTX_STATE_STARTING;
    while (doca_ctx_get_state(ctx, &s) == DOCA_SUCCESS && s == DOCA_CTX_STATE_STARTING) {
        doca_pe_progress(peer.consumer_pe);
        doca_pe_progress(peer.pe);
    }
    post_new(n);
}

void consumer_destroy() {
    if (peer.consumer == nullptr) return;
    doca_ctx *ctx = doca_comch_consumer_as_ctx(peer.consumer);
    doca_ctx_stop(ctx);
    doca_ctx_states s;
    while (doca_ctx_get_state(ctx, &s) == DOCA_SUCCESS && s != DOCA_CTX_STATE_IDLE)
        doca_pe_progress(peer.consumer_pe);
    check(doca_comch_consumer_destroy(peer.consumer), "doca_comch_consumer_destroy");
    check(doca_pe_destroy(peer.consumer_pe), "doca_pe_destroy consumer");
    check(doca_buf_inventory_destroy(peer.consumer_inv), "doca_buf_inventory_destroy");
    check(doca_mmap_destroy(peer.consumer_mmap), "doca_mmap_destroy");
    peer.consumer = nullptr;
    peer.consumer_pe = nullptr;
    peer.consumer_posted = 0;
    say("CONSUMER_GONE");
}

void on_produce_done(doca_comch_producer_task_send *task, doca_data, doca_data) {
    doca_task *t = doca_comch_producer_task_send_as_task(task);
    doca_error_t status = doca_task_get_status(t);
    say(status == DOCA_SUCCESS ? std::string("PSENT")
                               : std::string("PSEND_ERR ") + doca_error_get_name(status));
    doca_buf_dec_refcount(const_cast<doca_buf *>(doca_comch_producer_task_send_get_buf(task)), nullptr);
    doca_task_free(t);
}

void producer_create(doca_comch_connection *conn) {
    make_memory(peer.producer_mem, 4 << 20, &peer.producer_mmap, &peer.producer_inv);
    check(doca_pe_create(&peer.producer_pe), "doca_pe_create");
    check(doca_comch_producer_create(conn, &peer.producer), "doca_comch_producer_create");
    doca_ctx *ctx = doca_comch_producer_as_ctx(peer.producer);
    check(doca_comch_producer_task_send_set_conf(peer.producer, on_produce_done, on_produce_done, 64),
          "send conf");
    check(doca_pe_connect_ctx(peer.producer_pe, ctx), "doca_pe_connect_ctx");
    check(doca_ctx_start(ctx), "producer start");
    uint32_t id = 0;
    check(doca_comch_producer_get_id(peer.producer, &id), "producer id");
    say("PRODUCER_ID " + std::to_string(id));
}

void produce(uint32_t consumer_id, const std::string &imm, const std::string &body) {
    if (peer.producer == nullptr) return say("PSUBMIT_ERR NO_PRODUCER");
    // A send may wait inside the producer: each one gets its own bytes (a ring over the memory).
    if (peer.produce_off + body.size() > peer.producer_mem.size()) peer.produce_off = 0;
    uint8_t *slot = peer.producer_mem.data() + peer.produce_off;
    peer.produce_off += body.size();
    std::memcpy(slot, body.data(), body.size());
    doca_buf *buf = nullptr;
    check(doca_buf_inventory_buf_get_by_data(peer.producer_inv, peer.producer_mmap, slot, body.size(), &buf),
          "buf_get_by_data");
    doca_comch_producer_task_send *task = nullptr;
    std::string imm_copy = imm;
    doca_error_t r = doca_comch_producer_task_send_alloc_init(
        peer.producer, buf, imm == "-" ? nullptr : reinterpret_cast<uint8_t *>(imm_copy.data()),
        imm == "-" ? 0 : static_cast<uint32_t>(imm.size()), consumer_id, &task);
    if (r == DOCA_SUCCESS) r = doca_task_submit(doca_comch_producer_task_send_as_task(task));
    if (r != DOCA_SUCCESS) {
        say(std::string("PSUBMIT_ERR ") + doca_error_get_name(r));
        if (task) doca_task_free(doca_comch_producer_task_send_as_task(task));
        doca_buf_dec_refcount(buf, nullptr);
    }
}

void producer_destroy() {
    if (peer.producer == nullptr) return;
    doca_ctx *ctx = doca_comch_producer_as_ctx(peer.producer);
    doca_ctx_stop(ctx);
    doca_ctx_states s;
    while (doca_ctx_get_state(ctx, &s) == DOCA_SUCCESS && s != DOCA_CTX_STATE_IDLE)
        doca_pe_progress(peer.producer_pe);
    check(doca_comch_producer_destroy(peer.producer), "doca_comch_producer_destroy");
    check(doca_pe_destroy(peer.producer_pe), "doca_pe_destroy producer");
    check(doca_buf_inventory_destroy(peer.producer_inv), "doca_buf_inventory_destroy");
    check(doca_mmap_destroy(peer.producer_mmap), "doca_mmap_destroy");
    peer.producer = nullptr;
    peer.producer_pe = nullptr;
}

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
    consumer_destroy();
    producer_destroy();
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
    } else if (cmd == "CONSUMER") {
        size_t n = 0, bytes = 0;
        in >> k >> n >> bytes;
        doca_comch_connection *c = connection(k);
        if (c == nullptr) return say("ALLOC_ERR NO_CONNECTION");
        consumer_create(c, n, bytes);
    } else if (cmd == "POST") {
        size_t n = 0;
        in >> n;
        post_new(n);
    } else if (cmd == "CONSUMER_STOP") {
        consumer_destroy();
    } else if (cmd == "PRODUCER") {
        in >> k;
        doca_comch_connection *c = connection(k);
        if (c == nullptr) return say("ALLOC_ERR NO_CONNECTION");
        producer_create(c);
    } else if (cmd == "PRODUCE") {
        uint32_t id = 0;
        std::string imm, text;
        in >> id >> imm;
        std::getline(in >> std::ws, text);
        produce(id, imm, text);
    } else if (cmd == "PRODUCESIZE") {
        uint32_t id = 0;
        size_t bytes = 0;
        std::string imm = "-";
        in >> id >> bytes >> imm;
        produce(id, imm.empty() ? "-" : imm, std::string(bytes, 'y'));
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
        check(doca_comch_server_event_consumer_register(peer.server, on_consumer_new, on_consumer_expired),
              "consumer register");
    } else {
        peer.dev = open_device("host", "0b:00.0");
        check(doca_comch_client_create(peer.dev, name, &peer.client), "doca_comch_client_create");
        peer.ctx = doca_comch_client_as_ctx(peer.client);
        check(doca_comch_client_task_send_set_conf(peer.client, on_send_done, on_send_done, 256),
              "send conf");
        check(doca_comch_client_event_msg_recv_register(peer.client, on_recv), "recv register");
        check(doca_comch_client_event_consumer_register(peer.client, on_consumer_new, on_consumer_expired),
              "consumer register");
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
        bool busy = doca_pe_progress(peer.pe) != 0;
        if (peer.consumer_pe != nullptr && doca_pe_progress(peer.consumer_pe) != 0) busy = true;
        if (peer.producer_pe != nullptr && doca_pe_progress(peer.producer_pe) != 0) busy = true;
        if (busy) continue;
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
