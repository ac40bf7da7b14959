// The TLS 1.3 PSK session on its own, over a socket pair: handshakes on both cipher suites, a
// bulk transfer through writev/readv with the piece sizes NVMe/TCP produces (headers, digests,
// 4 KiB and 128 KiB payloads) while the socket keeps filling up, and the refusals.
#include "skiff/nvmeof/tls/tls_session.hpp"
#include "skiff/nvmeof/tls/generated_psk.hpp"
#include "skiff/nvmeof/tls/psk_binder.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstring>
#include <thread>

using namespace skiff::nvmeof::tls;

namespace {

constexpr const char *kHost = "nqn.2014-08.org.nvmexpress:uuid:3f3e3d3c-3b3a-3938-3736-353433323130";
constexpr const char *kSub = "nqn.2026-11.io.skiff:session";

ConfiguredPsk key(PskHash hash, uint8_t seed) {
    ConfiguredPsk k;
    k.hash = hash;
    for (int i = 0; i < (hash == PskHash::kSha384 ? 48 : 32); ++i) k.key.push_back(uint8_t(seed + i * 5));
    return k;
}

struct SocketPair {
    int fd[2] = {-1, -1};
    SocketPair() {
        ::socketpair(AF_UNIX, SOCK_STREAM, 0, fd);
        for (int f : fd) ::fcntl(f, F_SETFL, ::fcntl(f, F_GETFL) | O_NONBLOCK);
    }
    ~SocketPair() {
        for (int f : fd) ::close(f);
    }
};

// Runs a handshake to its end, waiting on the socket as it asks.
bool drive(TlsSession &s, int fd) {
    for (;;) {
        TlsSession::Step st = s.handshake();
        if (st == TlsSession::Step::kDone) return true;
        if (st == TlsSession::Step::kFailed) return false;
        pollfd p{fd, short(st == TlsSession::Step::kWantRead ? POLLIN : POLLOUT), 0};
        if (::poll(&p, 1, 5000) <= 0) return false;
    }
}

struct Handshake {
    std::unique_ptr<TlsSession> server, client;
    bool server_ok = false, client_ok = false;
};

Handshake handshake(SocketPair &sp, const PskStore &store, const SessionPsk &offer) {
    Handshake h;
    auto s = TlsSession::accept(sp.fd[0], store);
    auto c = TlsSession::connect(sp.fd[1], offer);
    if (!s.ok() || !c.ok()) return h;
    h.server = std::move(s).value();
    h.client = std::move(c).value();
    std::thread t([&] { h.server_ok = drive(*h.server, sp.fd[0]); });
    h.client_ok = drive(*h.client, sp.fd[1]);
    t.join();
    return h;
}

} // namespace

TEST(tls_session, PskHandshakeOnBothSuitesNamesHostAndSubsystem) {
    for (PskHash hash : {PskHash::kSha256, PskHash::kSha384}) {
        PskStore store;
        store.replace({{{kHost, ""}, key(hash, 1)}});
        SocketPair sp;
        Handshake h = handshake(sp, store, session_psk(key(hash, 1), kHost, kSub));
        ASSERT_TRUE(h.server_ok) << h.server->error();
        ASSERT_TRUE(h.client_ok) << h.client->error();
        EXPECT_EQ(h.server->cipher(),
                  hash == PskHash::kSha384 ? "TLS_AES_256_GCM_SHA384" : "TLS_AES_128_GCM_SHA256");
        EXPECT_EQ(h.server->peer().hostnqn, kHost);
        EXPECT_EQ(h.server->peer().subnqn, kSub);
        EXPECT_EQ(h.server->identity(), psk_identity(hash, kHost, kSub));
        EXPECT_FALSE(h.server->record_layer().empty());
    }
}

// A host whose nvme-cli derived its TLS PSK with the legacy HkdfLabel layout (nvme-cli up to
// 2.15, psk.hpp) connects with the same configured key as one using RFC 8446's: the target
// picks the key whose binder verifies, on identity versions 0 and 1 and on both suites, and says
// which it was.
TEST(tls_session, BothTlsPskLayoutsOfOneConfiguredKeyAreAccepted) {
    for (PskHash hash : {PskHash::kSha256, PskHash::kSha384}) {
        for (PskDerivation layout : {PskDerivation::kRfc8446, PskDerivation::kNvmeCliLegacy}) {
            PskStore store;
            store.replace({{{kHost, ""}, key(hash, 9)}});
            SessionPsk v0 = session_psk(key(hash, 9), kHost, kSub, layout);
            // Version 1: the digest of the layout's retained PSK in the identity and the context.
            KeyBytes retained = retained_psk(key(hash, 9), kHost, layout);
            std::string digest = identity_digest(hash, retained, kHost, kSub);
            SessionPsk v1 = v0;
            v1.identity = psk_identity(hash, kHost, kSub) + " " + digest;
            v1.identity[4] = '1';
            v1.key = tls_psk(hash, retained, (hash == PskHash::kSha384 ? "02 " : "01 ") + digest, layout);
            for (const SessionPsk &offer : {v0, v1}) {
                SocketPair sp;
                Handshake h = handshake(sp, store, offer);
                ASSERT_TRUE(h.server_ok)
                    << h.server->error() << " (" << derivation_name(layout) << ", " << offer.identity << ")";
                ASSERT_TRUE(h.client_ok) << h.client->error();
                EXPECT_EQ(h.server->psk_derivation(), layout) << offer.identity;
                EXPECT_EQ(h.server->peer().hostnqn, kHost);
            }
        }
    }
    // Neither layout of another key: refused, as before.
    PskStore store;
    store.replace({{{kHost, ""}, key(PskHash::kSha256, 9)}});
    SocketPair sp;
    Handshake h = handshake(
        sp, store, session_psk(key(PskHash::kSha256, 10), kHost, kSub, PskDerivation::kNvmeCliLegacy));
    EXPECT_FALSE(h.server_ok);
    EXPECT_NE(h.server->error().find("binder"), std::string::npos) << h.server->error();
}

// Secure channel concatenation: a host offers the identity of the PSK its authentication
// generated; the target finds it in the store by digest and the handshake completes in either
// HkdfLabel layout. With another authentication's PSK it is refused, and the host's next
// concatenation replaces the stored one.
TEST(tls_session, GeneratedIdentityFindsThePskItsAuthenticationLeft) {
    for (PskHash hash : {PskHash::kSha256, PskHash::kSha384}) {
        const size_t hl = hash == PskHash::kSha384 ? 48 : 32;
        std::vector<uint8_t> shared(256, 0x5a), c1(hl, 0x11), c2(hl, 0x22);
        const KeyBytes generated = generated_psk(hash, shared, c1, c2);
        const std::string digest = identity_digest(hash, generated, kHost, kSub);
        PskStore store;
        store.put_generated(kHost, kSub, hash, generated);
        for (PskDerivation layout : {PskDerivation::kRfc8446, PskDerivation::kNvmeCliLegacy}) {
            SessionPsk offer{generated_identity(hash, kHost, kSub, digest), hash,
                             tls_psk(hash, generated, identity_context(hash, digest), layout)};
            SocketPair sp;
            Handshake h = handshake(sp, store, offer);
            ASSERT_TRUE(h.server_ok) << h.server->error() << " (" << derivation_name(layout) << ")";
            ASSERT_TRUE(h.client_ok) << h.client->error();
            EXPECT_TRUE(h.server->peer().generated);
            EXPECT_EQ(h.server->peer().hostnqn, kHost);
            EXPECT_EQ(h.server->psk_derivation(), layout);
        }
        // Another authentication's PSK (other challenges): its digest is not the stored one's.
        const KeyBytes other = generated_psk(hash, shared, c2, c1);
        const std::string other_digest = identity_digest(hash, other, kHost, kSub);
        SessionPsk offer{generated_identity(hash, kHost, kSub, other_digest), hash,
                         tls_psk(hash, other, identity_context(hash, other_digest))};
        SocketPair sp;
        Handshake h = handshake(sp, store, offer);
        EXPECT_FALSE(h.server_ok);
        EXPECT_NE(h.server->error().find("no generated TLS PSK"), std::string::npos) << h.server->error();
        // The next concatenation replaces it: the first PSK no longer connects.
        store.put_generated(kHost, kSub, hash, other);
        EXPECT_FALSE(store.find_generated(kHost, kSub, hash, digest).has_value());
        EXPECT_TRUE(store.find_generated(kHost, kSub, hash, other_digest).has_value());
        EXPECT_FALSE(
            store.find_generated(kHost, "nqn.2026-11.io.skiff:other", hash, other_digest).has_value());
    }
}

// The binder check against OpenSSL's own: the ClientHello a host session sends (read raw off the
// socket pair) carries a binder that binder_matches() accepts for the offered TLS PSK, on both
// suites, and refuses for the other layout's key and for a key one bit off.
TEST(tls_session, BinderCheckAgreesWithOpensslsClientHello) {
    for (PskHash hash : {PskHash::kSha256, PskHash::kSha384}) {
        SocketPair sp;
        SessionPsk offer = session_psk(key(hash, 4), kHost, kSub);
        auto c = TlsSession::connect(sp.fd[1], offer);
        ASSERT_TRUE(c.ok());
        ASSERT_EQ((*c)->handshake(), TlsSession::Step::kWantRead); // the ClientHello is out
        std::vector<uint8_t> record(16384);
        ssize_t n = ::recv(sp.fd[0], record.data(), record.size(), 0);
        ASSERT_GT(n, 5) << "no ClientHello record";
        ASSERT_EQ(record[0], 0x16);                                    // a handshake record
        ASSERT_EQ(size_t(n), 5u + size_t(record[3] << 8 | record[4])); // one whole record
        std::vector<uint8_t> ch(record.begin() + 5, record.begin() + n);
        auto b = client_hello_binder(ch, 0);
        ASSERT_TRUE(b.has_value());
        EXPECT_FALSE(client_hello_binder(ch, 1).has_value()) << "one identity offered";
        EXPECT_TRUE(binder_matches(hash, offer.key, ch, *b));
        KeyBytes legacy = session_psk(key(hash, 4), kHost, kSub, PskDerivation::kNvmeCliLegacy).key;
        EXPECT_FALSE(binder_matches(hash, legacy, ch, *b));
        KeyBytes off = offer.key;
        off[0] ^= 1;
        EXPECT_FALSE(binder_matches(hash, off, ch, *b));
        // A ClientHello cut short has no binder to find.
        std::vector<uint8_t> cut(ch.begin(), ch.end() - 1);
        EXPECT_FALSE(client_hello_binder(cut, 0).has_value());
    }
}

TEST(tls_session, BulkTransferThroughMixedPiecesArrivesIntact) {
    PskStore store;
    store.replace({{{kHost, ""}, key(PskHash::kSha256, 3)}});
    SocketPair sp;
    Handshake h = handshake(sp, store, session_psk(key(PskHash::kSha256, 3), kHost, kSub));
    ASSERT_TRUE(h.server_ok && h.client_ok);

    std::vector<uint8_t> data(3 << 20), got(data.size());
    for (size_t i = 0; i < data.size(); ++i) data[i] = uint8_t(i * 31 + 7);
    // The pieces of a send queue: PDU headers, 4 KiB payloads, digests, 128 KiB payloads.
    std::vector<iovec> pieces;
    const size_t sizes[] = {24, 4096, 4, 131072, 16, 5000, 20000};
    for (size_t off = 0, i = 0; off < data.size(); ++i) {
        size_t n = std::min(sizes[i % 7], data.size() - off);
        pieces.push_back({data.data() + off, n});
        off += n;
    }
    size_t received = 0;
    std::thread reader([&] {
        while (received < got.size()) {
            iovec v[2] = {{got.data() + received, std::min<size_t>(got.size() - received, 70000)},
                          {nullptr, 0}};
            ssize_t n = h.server->readv(v, 1);
            if (n > 0) {
                received += size_t(n);
            } else if (n < 0 && errno == EAGAIN) {
                pollfd p{sp.fd[0], POLLIN, 0};
                ::poll(&p, 1, 1000);
            } else {
                return;
            }
        }
    });
    // Like the send queue: after a short count, resume at the first byte not taken.
    size_t idx = 0, off = 0, sent = 0;
    while (sent < data.size()) {
        std::vector<iovec> batch;
        for (size_t j = idx; j < pieces.size() && batch.size() < 64; ++j) {
            iovec v = pieces[j];
            if (j == idx) v = {static_cast<uint8_t *>(v.iov_base) + off, v.iov_len - off};
            batch.push_back(v);
        }
        ssize_t n = h.client->writev(batch.data(), int(batch.size()));
        if (n < 0) {
            ASSERT_EQ(errno, EAGAIN) << h.client->error();
            pollfd p{sp.fd[1], POLLOUT, 0};
            ::poll(&p, 1, 1000);
            continue;
        }
        sent += size_t(n);
        for (size_t a = size_t(n); a > 0;) {
            size_t rest = pieces[idx].iov_len - off;
            if (a < rest) {
                off += a;
                a = 0;
            } else {
                a -= rest;
                ++idx;
                off = 0;
            }
        }
    }
    reader.join();
    ASSERT_EQ(received, data.size());
    EXPECT_EQ(std::memcmp(got.data(), data.data(), data.size()), 0);
}

TEST(tls_session, WrongKeyUnknownHostAndForeignIdentityAreRefused) {
    PskStore store;
    store.replace({{{kHost, ""}, key(PskHash::kSha256, 5)}});
    {
        SocketPair sp;
        Handshake h = handshake(sp, store, session_psk(key(PskHash::kSha256, 6), kHost, kSub));
        EXPECT_FALSE(h.server_ok);
        EXPECT_FALSE(h.client_ok);
        EXPECT_NE(h.server->error().find("binder"), std::string::npos) << h.server->error();
    }
    {
        SocketPair sp;
        Handshake h = handshake(
            sp, store, session_psk(key(PskHash::kSha256, 5), "nqn.2014-08.org.nvmexpress:other", kSub));
        EXPECT_FALSE(h.server_ok);
        EXPECT_NE(h.server->error().find("no TLS PSK configured for host"), std::string::npos)
            << h.server->error();
    }
    {
        SocketPair sp;
        SessionPsk foreign = session_psk(key(PskHash::kSha256, 5), kHost, kSub);
        foreign.identity = "Client_identity";
        Handshake h = handshake(sp, store, foreign);
        EXPECT_FALSE(h.server_ok);
        EXPECT_NE(h.server->error().find("not an NVMe/TCP identity"), std::string::npos) << h.server->error();
    }
}

// Keys are kept per (host, subsystem) like the DH-HMAC-CHAP secrets: the key of an entry naming
// the subsystem the identity names wins there, the host's general key serves the others.
TEST(tls_session, SubsystemKeyWinsOverTheHostsGeneralKey) {
    constexpr const char *kOther = "nqn.2026-11.io.skiff:other";
    PskStore store;
    store.replace({{{kHost, ""}, key(PskHash::kSha256, 7)}, {{kHost, kSub}, key(PskHash::kSha256, 8)}});
    struct Case {
        uint8_t seed;
        const char *subnqn;
        bool accepted;
    } cases[] = {{8, kSub, true}, {7, kSub, false}, {7, kOther, true}, {8, kOther, false}};
    for (const Case &c : cases) {
        SCOPED_TRACE(std::string(c.subnqn) + " key " + std::to_string(c.seed));
        SocketPair sp;
        Handshake h = handshake(sp, store, session_psk(key(PskHash::kSha256, c.seed), kHost, c.subnqn));
        ASSERT_TRUE(h.server);
        EXPECT_EQ(h.server_ok, c.accepted) << h.server->error();
        EXPECT_EQ(h.client_ok, c.accepted);
        if (!c.accepted) {
            EXPECT_NE(h.server->error().find("binder"), std::string::npos) << h.server->error();
        }
    }
}

TEST(tls_session, BytesThatAreNotTlsAreNamedSo) {
    PskStore store;
    SocketPair sp;
    auto s = TlsSession::accept(sp.fd[0], store);
    ASSERT_TRUE(s.ok());
    const char junk[] = "\x16\x03\x01\x00\x08garbage!";
    ASSERT_EQ(::write(sp.fd[1], junk, sizeof(junk) - 1), ssize_t(sizeof(junk) - 1));
    EXPECT_FALSE(drive(**s, sp.fd[0]));
    EXPECT_NE((*s)->error().find("not a TLS ClientHello"), std::string::npos) << (*s)->error();
}

// OpenSSL writes with write(2): a peer that resets must cost its connection (EPIPE), not the
// process. Each case runs in a child process, SIGPIPE first set back to its default there.
namespace {

int in_child(void (*body)()) {
    pid_t pid = ::fork();
    if (pid == 0) body();
    int st = 0;
    ::waitpid(pid, &st, 0);
    if (WIFSIGNALED(st)) return 128 + WTERMSIG(st);
    return WEXITSTATUS(st);
}

[[noreturn]] void write_after_the_peer_closed() {
    std::signal(SIGPIPE, SIG_DFL);
    SocketPair sp;
    PskStore store;
    auto s = TlsSession::accept(sp.fd[0], store);
    if (!s.ok()) std::_Exit(3);
    ::close(sp.fd[1]);
    sp.fd[1] = -1;
    char b = 0;
    ssize_t n = ::write(sp.fd[0], &b, 1); // what OpenSSL does on a connection the peer closed
    std::_Exit(n < 0 && errno == EPIPE ? 0 : 4);
}

void on_sigpipe(int) {}

[[noreturn]] void own_handler_is_kept() {
    std::signal(SIGPIPE, on_sigpipe);
    SocketPair sp;
    auto c = TlsSession::connect(sp.fd[1], session_psk(key(PskHash::kSha256, 1), kHost, kSub));
    if (!c.ok()) std::_Exit(3);
    struct sigaction now {};
    sigaction(SIGPIPE, nullptr, &now);
    std::_Exit(now.sa_handler == on_sigpipe ? 0 : 4);
}

} // namespace

TEST(tls_session, APeerThatClosedCostsEpipeNotTheProcess) {
    EXPECT_EQ(in_child(write_after_the_peer_closed), 0) << "128 + 13 is death by SIGPIPE";
    EXPECT_EQ(in_child(own_handler_is_kept), 0);
}
