#include "skiff/nvmeof/tls/tls_session.hpp"

#include "skiff/nvmeof/tls/generated_psk.hpp"
#include "skiff/nvmeof/tls/psk_binder.hpp"

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <mutex>

namespace skiff::nvmeof::tls {
namespace {

constexpr const char *kCipherSuites = "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384";
// TLS 1.3 cipher suite ids (RFC 8446 B.4): the PSK's hash picks one.
constexpr unsigned char kAes128Sha256[2] = {0x13, 0x01};
constexpr unsigned char kAes256Sha384[2] = {0x13, 0x02};

std::string ssl_errors() {
    std::string out;
    unsigned long e;
    char buf[256];
    while ((e = ERR_get_error()) != 0) {
        ERR_error_string_n(e, buf, sizeof(buf));
        if (!out.empty()) out += "; ";
        out += buf;
    }
    return out;
}

SSL_CTX *make_ctx(bool server);

// One context per side for the process: its settings never change, sessions share it.
// See the header: write(2) on a reset connection must not end the process. Checked at every
// session (one system call per connection), so a program that resets SIGPIPE later is covered.
void ignore_sigpipe_if_default() {
    struct sigaction now {};
    if (sigaction(SIGPIPE, nullptr, &now) == 0 && now.sa_handler == SIG_DFL && !(now.sa_flags & SA_SIGINFO))
        signal(SIGPIPE, SIG_IGN);
}

SSL_CTX *shared_ctx(bool server) {
    static std::once_flag once[2];
    static SSL_CTX *ctx[2] = {nullptr, nullptr};
    std::call_once(once[server], [&] { ctx[server] = make_ctx(server); });
    return ctx[server];
}

// A PSK session object carrying the TLS PSK for the suite matching its hash.
SSL_SESSION *psk_session(SSL *ssl, PskHash hash, const KeyBytes &key) {
    const SSL_CIPHER *cipher = SSL_CIPHER_find(ssl, hash == PskHash::kSha384 ? kAes256Sha384 : kAes128Sha256);
    SSL_SESSION *sess = SSL_SESSION_new();
    if (!cipher || !sess || !SSL_SESSION_set1_master_key(sess, key.data(), key.size()) ||
        !SSL_SESSION_set_cipher(sess, cipher) || !SSL_SESSION_set_protocol_version(sess, TLS1_3_VERSION)) {
        SSL_SESSION_free(sess);
        return nullptr;
    }
    return sess;
}

// OpenSSL (built with kTLS, SSL_OP_ENABLE_KTLS) attaches the kernel's "tls" upper-layer
// protocol when it takes the socket and hands the keys over after the handshake; where
// setsockopt(TCP_ULP, "tls") fails (no tls module) the records stay in user space. Whether the
// socket carries the ULP tells the two cases apart for the log.
bool has_tls_ulp(int fd) {
    char name[16] = {};
    socklen_t len = sizeof(name) - 1;
    return fd >= 0 && ::getsockopt(fd, IPPROTO_TCP, TCP_ULP, name, &len) == 0 &&
           std::strcmp(name, "tls") == 0;
}

} // namespace

struct SessionCallbacks {
    // Target: a ClientHello arrived (it may still offer no PSK, or no TLS 1.3).
    static int client_hello(SSL *ssl, int *, void *) {
        static_cast<TlsSession *>(SSL_get_app_data(ssl))->client_hello_seen_ = true;
        return SSL_CLIENT_HELLO_SUCCESS;
    }

    // Target, during the handshake only: OpenSSL shows each handshake message whole before it
    // processes it; the ClientHello is kept for its PSK binder (choose_key below).
    static void message(int write_p, int, int content_type, const void *buf, size_t len, SSL *ssl, void *) {
        const auto *p = static_cast<const uint8_t *>(buf);
        if (write_p || content_type != SSL3_RT_HANDSHAKE || len < 4 || p[0] != SSL3_MT_CLIENT_HELLO) return;
        auto *self = static_cast<TlsSession *>(SSL_get_app_data(ssl));
        self->client_hello_.assign(p, p + len);
        self->identities_seen_ = 0;
    }

    // The TLS PSK for this identity in the layout whose binder the ClientHello carries: RFC
    // 8446's unless only the legacy one verifies (psk.hpp, PskDerivation). input(d) is the PSK the
    // TLS PSK is derived from in layout d (the retained PSK, or a generated one in either).
    template <class Input>
    static KeyBytes choose_key(TlsSession *self, PskHash hash, const Input &input, std::string_view context,
                               size_t index, PskDerivation first) {
        PskDerivation other =
            first == PskDerivation::kRfc8446 ? PskDerivation::kNvmeCliLegacy : PskDerivation::kRfc8446;
        KeyBytes key = tls_psk(hash, input(first), context, first);
        self->derivation_ = first;
        auto binder = client_hello_binder(self->client_hello_, index);
        if (!binder || binder_matches(hash, key, self->client_hello_, *binder)) return key;
        KeyBytes alt = tls_psk(hash, input(other), context, other);
        if (!binder_matches(hash, alt, self->client_hello_, *binder))
            return key; // a wrong key: OpenSSL says so
        self->derivation_ = other;
        return alt;
    }

    // A generated identity (secure channel concatenation): the PSK the host's DH-HMAC-CHAP left
    // in the store, if the digest is its; the TLS PSK in either layout, as for configured keys.
    static bool find_generated(TlsSession *self, SSL *ssl, const PskIdentity &id, size_t index,
                               SSL_SESSION **sess) {
        auto generated = self->store_->find_generated(id.hostnqn, id.subnqn, id.hash, id.digest);
        if (!generated) {
            self->error_ = "no generated TLS PSK of host " + id.hostnqn + " on " + id.subnqn +
                           " has this digest (secure channel concatenation: authenticate with "
                           "DH-HMAC-CHAP first)";
            return false;
        }
        auto input = [&](PskDerivation) { return *generated; };
        *sess = psk_session(ssl, id.hash,
                            choose_key(self, id.hash, input, identity_context(id.hash, id.digest), index,
                                       PskDerivation::kRfc8446));
        return true;
    }

    // Target: the host's identity -> its host NQN's configured key (or the PSK its
    // authentication generated) -> the TLS PSK.
    static int find(SSL *ssl, const unsigned char *id, size_t id_len, SSL_SESSION **sess) {
        auto *self = static_cast<TlsSession *>(SSL_get_app_data(ssl));
        *sess = nullptr;
        size_t index = self->identities_seen_++; // OpenSSL asks for the identities in order
        self->identity_offered_ = true;
        self->identity_.assign(reinterpret_cast<const char *>(id), id_len);
        auto parsed = parse_identity(self->identity_);
        if (!parsed) {
            self->error_ =
                "PSK identity is not an NVMe/TCP identity (NVMe<v><R|G><hh> <hostnqn> <subnqn>[ <digest>])";
            return 1; // no PSK: the handshake fails (there is no certificate to fall back on)
        }
        if (parsed->generated) {
            if (!find_generated(self, ssl, *parsed, index, sess)) return 1;
            if (!*sess) return 0;
            self->peer_ = std::move(*parsed);
            self->identity_known_ = true;
            return 1;
        }
        auto configured = self->store_->find(parsed->hostnqn, parsed->subnqn);
        if (!configured) {
            self->error_ = "no TLS PSK configured for host " + parsed->hostnqn + " on " + parsed->subnqn;
            return 1;
        }
        if (configured->cipher_hash() != parsed->hash) {
            self->error_ = "identity hash does not match the configured PSK of host " + parsed->hostnqn;
            return 1;
        }
        std::string context = self->identity_;
        PskDerivation first = PskDerivation::kRfc8446;
        auto retained = [&](PskDerivation d) { return retained_psk(*configured, parsed->hostnqn, d); };
        if (parsed->version == 1) {
            // The digest is an HMAC keyed with the retained PSK: it tells the layout by itself.
            auto digest_with = [&](PskDerivation d) {
                return identity_digest(parsed->hash, retained(d), parsed->hostnqn, parsed->subnqn);
            };
            if (digest_with(PskDerivation::kRfc8446) != parsed->digest) {
                if (digest_with(PskDerivation::kNvmeCliLegacy) != parsed->digest) {
                    self->error_ =
                        "PSK identity digest does not match the configured PSK of host " + parsed->hostnqn;
                    return 1;
                }
                first = PskDerivation::kNvmeCliLegacy;
            }
            context = identity_context(parsed->hash, parsed->digest);
        }
        *sess =
            psk_session(ssl, parsed->hash, choose_key(self, parsed->hash, retained, context, index, first));
        if (!*sess) return 0;
        self->peer_ = std::move(*parsed);
        self->identity_known_ = true;
        return 1;
    }

    // Host: offers the one identity it has (md is the handshake hash of an earlier attempt).
    static int use(SSL *ssl, const EVP_MD *md, const unsigned char **id, size_t *id_len, SSL_SESSION **sess) {
        auto *self = static_cast<TlsSession *>(SSL_get_app_data(ssl));
        const EVP_MD *want = self->client_psk_.hash == PskHash::kSha384 ? EVP_sha384() : EVP_sha256();
        if (md && md != want) {
            *sess = nullptr;
            return 1;
        }
        *sess = psk_session(ssl, self->client_psk_.hash, self->client_psk_.key);
        if (!*sess) return 0;
        *id = reinterpret_cast<const unsigned char *>(self->client_psk_.identity.data());
        *id_len = self->client_psk_.identity.size();
        self->identity_ = self->client_psk_.identity;
        return 1;
    }
};

namespace {

SSL_CTX *make_ctx(bool server) {
    SSL_CTX *ctx = SSL_CTX_new(server ? TLS_server_method() : TLS_client_method());
    if (!ctx) return nullptr;
    SSL_CTX_set_min_proto_version(ctx, TLS1_3_VERSION);
    SSL_CTX_set_max_proto_version(ctx, TLS1_3_VERSION);
    SSL_CTX_set_ciphersuites(ctx, kCipherSuites);
    // Partial writes: SSL_write returns per record, so a full socket costs no retry of
    // everything; moving buffer: a retry may come from a regenerated gather buffer.
    SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    // Reads take whatever the socket has (several records per system call).
    SSL_CTX_set_read_ahead(ctx, 1);
    SSL_CTX_set_default_read_buffer_len(ctx, 64 * 1024);
    // Hand the session keys to the kernel where it supports kTLS (no effect otherwise).
    SSL_CTX_set_options(ctx, SSL_OP_ENABLE_KTLS | SSL_OP_NO_TICKET);
    if (server) {
        SSL_CTX_set_num_tickets(ctx, 0); // PSK sessions are not resumed
        SSL_CTX_set_psk_find_session_callback(ctx, &SessionCallbacks::find);
        SSL_CTX_set_client_hello_cb(ctx, &SessionCallbacks::client_hello, nullptr);
        SSL_CTX_set_msg_callback(ctx, &SessionCallbacks::message);
    } else {
        SSL_CTX_set_psk_use_session_callback(ctx, &SessionCallbacks::use);
    }
    return ctx;
}

} // namespace

Result<std::unique_ptr<TlsSession>> TlsSession::accept(int fd, const PskStore &store) {
    ignore_sigpipe_if_default();
    SSL_CTX *ctx = shared_ctx(true);
    if (!ctx)
        return make_error(DOCA_ERROR_INITIALIZATION, "cannot create the TLS server context: " + ssl_errors());
    std::unique_ptr<TlsSession> s(new TlsSession());
    s->server_ = true;
    s->store_ = &store;
    s->ssl_ = SSL_new(ctx);
    if (!s->ssl_ || !SSL_set_fd(s->ssl_, fd))
        return make_error(DOCA_ERROR_NO_MEMORY, "cannot create a TLS session: " + ssl_errors());
    SSL_set_app_data(s->ssl_, s.get());
    SSL_set_accept_state(s->ssl_);
    s->wbuf_ = std::make_unique<uint8_t[]>(kRecordBytes);
    return s;
}

Result<std::unique_ptr<TlsSession>> TlsSession::connect(int fd, SessionPsk psk) {
    ignore_sigpipe_if_default();
    SSL_CTX *ctx = shared_ctx(false);
    if (!ctx)
        return make_error(DOCA_ERROR_INITIALIZATION, "cannot create the TLS client context: " + ssl_errors());
    std::unique_ptr<TlsSession> s(new TlsSession());
    s->client_psk_ = std::move(psk);
    s->ssl_ = SSL_new(ctx);
    if (!s->ssl_ || !SSL_set_fd(s->ssl_, fd))
        return make_error(DOCA_ERROR_NO_MEMORY, "cannot create a TLS session: " + ssl_errors());
    // Offer only the suite that matches the PSK's hash.
    SSL_set_ciphersuites(s->ssl_, s->client_psk_.hash == PskHash::kSha384 ? "TLS_AES_256_GCM_SHA384"
                                                                          : "TLS_AES_128_GCM_SHA256");
    SSL_set_app_data(s->ssl_, s.get());
    SSL_set_connect_state(s->ssl_);
    s->wbuf_ = std::make_unique<uint8_t[]>(kRecordBytes);
    return s;
}

TlsSession::~TlsSession() {
    if (ssl_) SSL_free(ssl_); // does not close the socket: its owner does
    // client_psk_.key wipes itself (KeyBytes).
}

void TlsSession::set_error_from_queue(const char *what) {
    std::string q = ssl_errors();
    if (error_.empty())
        error_ = std::string(what) + (q.empty() ? "" : ": " + q);
    else if (!q.empty())
        error_ += " (" + q + ")";
}

TlsSession::Step TlsSession::handshake() {
    ERR_clear_error();
    int rc = SSL_do_handshake(ssl_);
    if (rc == 1) {
        // The ClientHello's copy served its purpose; records are not shown to message().
        SSL_set_msg_callback(ssl_, nullptr);
        client_hello_ = {};
        ktls_send_ = BIO_get_ktls_send(SSL_get_wbio(ssl_)) != 0;
        ktls_recv_ = BIO_get_ktls_recv(SSL_get_rbio(ssl_)) != 0;
        tls_ulp_ = has_tls_ulp(SSL_get_fd(ssl_));
        if (server_ && !identity_known_) {
            error_ = "handshake finished without an NVMe PSK";
            return Step::kFailed;
        }
        return Step::kDone;
    }
    int err = SSL_get_error(ssl_, rc);
    if (err == SSL_ERROR_WANT_READ) return Step::kWantRead;
    if (err == SSL_ERROR_WANT_WRITE) return Step::kWantWrite;
    if (err == SSL_ERROR_SYSCALL && ERR_peek_error() == 0) {
        if (error_.empty())
            error_ = errno ? std::string("socket error: ") + std::strerror(errno) : "peer closed";
        else
            error_ += " (peer closed)";
        return Step::kFailed;
    }
    if (server_ && error_.empty())
        error_ = !client_hello_seen_  ? "not a TLS ClientHello"
                 : !identity_offered_ ? "ClientHello offered no PSK identity (NVMe/TCP TLS needs a PSK)"
                                      : "";
    set_error_from_queue("TLS handshake failed");
    return Step::kFailed;
}

ssize_t TlsSession::readv(const iovec *iov, int iovcnt) {
    size_t total = 0;
    for (int i = 0; i < iovcnt; ++i) {
        auto *p = static_cast<uint8_t *>(iov[i].iov_base);
        size_t left = iov[i].iov_len;
        while (left > 0) {
            size_t got = 0;
            ERR_clear_error();
            int rc = SSL_read_ex(ssl_, p, left, &got);
            if (rc == 1) {
                p += got;
                left -= got;
                total += got;
                continue;
            }
            int err = SSL_get_error(ssl_, rc);
            if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) {
                if (total) return static_cast<ssize_t>(total);
                errno = EAGAIN;
                return -1;
            }
            if (total) return static_cast<ssize_t>(total); // report the error on the next call
            if (err == SSL_ERROR_ZERO_RETURN ||
                (err == SSL_ERROR_SYSCALL && ERR_peek_error() == 0 && errno == 0))
                return 0;
            set_error_from_queue("TLS receive failed");
            errno = EIO;
            return -1;
        }
    }
    return static_cast<ssize_t>(total);
}

ssize_t TlsSession::write_record(const uint8_t *p, size_t len) {
    size_t written = 0;
    ERR_clear_error();
    int rc = SSL_write_ex(ssl_, p, len, &written);
    if (rc == 1) return static_cast<ssize_t>(written);
    int err = SSL_get_error(ssl_, rc);
    if (err == SSL_ERROR_WANT_WRITE || err == SSL_ERROR_WANT_READ) {
        errno = EAGAIN;
        return -1;
    }
    set_error_from_queue("TLS send failed");
    errno = EIO;
    return -1;
}

namespace {

// More than one record in one writev: the socket is corked for the call, so the kernel builds
// full segments from the records instead of pushing each 16 KiB record on its own (on loopback
// each push also runs the peer's TCP receive inline). Measured on a 128 KiB read: nine pushes per
// I/O without it. Two setsockopt calls per batch, not per record.
class CorkedSocket {
  public:
    CorkedSocket(int fd, bool cork) : fd_(cork ? fd : -1) { set(1); }
    ~CorkedSocket() { set(0); }
    CorkedSocket(const CorkedSocket &) = delete;
    CorkedSocket &operator=(const CorkedSocket &) = delete;

  private:
    // Keeps errno: writev's caller reads it (EAGAIN) after this runs, and a socket that is not
    // TCP (a socketpair in tests) refuses the option.
    void set(int on) {
        if (fd_ < 0) return;
        int saved = errno;
        ::setsockopt(fd_, IPPROTO_TCP, TCP_CORK, &on, sizeof(on));
        errno = saved;
    }
    int fd_;
};

} // namespace

// Pieces of a full record or more go to SSL_write as they are (no copy besides the
// encryption's own); smaller ones (PDU headers, digests, 4 KiB payloads) are gathered into
// one record first, so a batch of small PDUs costs one record and one system call, not one per
// piece. The gathering is deterministic for a given starting byte, which is what a retry after
// EAGAIN needs (the same bytes again).
ssize_t TlsSession::writev(const iovec *iov, int iovcnt) {
    size_t bytes = 0;
    for (int k = 0; k < iovcnt; ++k) bytes += iov[k].iov_len;
    CorkedSocket cork(SSL_get_fd(ssl_), !ktls_send_ && bytes > kRecordBytes);
    size_t total = 0;
    int i = 0;
    size_t off = 0; // into iov[i]
    while (i < iovcnt) {
        const auto *base = static_cast<const uint8_t *>(iov[i].iov_base);
        size_t rest = iov[i].iov_len - off;
        if (rest == 0) {
            ++i;
            off = 0;
            continue;
        }
        const uint8_t *p;
        size_t len;
        if (rest >= kRecordBytes) {
            p = base + off;
            len = rest;
        } else {
            size_t fill = 0;
            int j = i;
            size_t joff = off;
            while (j < iovcnt && fill < kRecordBytes) {
                size_t r = iov[j].iov_len - joff;
                if (r >= kRecordBytes && fill > 0) break; // a large piece goes on its own
                size_t n = std::min(r, kRecordBytes - fill);
                std::memcpy(wbuf_.get() + fill, static_cast<const uint8_t *>(iov[j].iov_base) + joff, n);
                fill += n;
                joff += n;
                if (joff == iov[j].iov_len) {
                    ++j;
                    joff = 0;
                }
            }
            p = wbuf_.get();
            len = fill;
        }
        ssize_t n = write_record(p, len);
        if (n < 0) {
            if (total) return static_cast<ssize_t>(total);
            return -1;
        }
        total += static_cast<size_t>(n);
        // Advance past n bytes.
        size_t adv = static_cast<size_t>(n);
        while (adv > 0 && i < iovcnt) {
            size_t r = iov[i].iov_len - off;
            if (adv < r) {
                off += adv;
                adv = 0;
            } else {
                adv -= r;
                ++i;
                off = 0;
            }
        }
    }
    return static_cast<ssize_t>(total);
}

bool TlsSession::has_pending() const {
    return SSL_has_pending(ssl_) != 0;
}

std::string TlsSession::record_layer() const {
    if (ktls_send_ && ktls_recv_) return "kernel kTLS (send and receive)";
    if (ktls_send_) return "kernel kTLS send, user-space (OpenSSL) receive";
    if (ktls_recv_) return "user-space (OpenSSL) send, kernel kTLS receive";
    if (tls_ulp_) return "user-space (OpenSSL; the kernel's kTLS did not take this session's keys)";
    return "user-space (OpenSSL; the kernel offers no kTLS: TCP_ULP \"tls\" refused)";
}

std::string TlsSession::cipher() const {
    const char *name = SSL_get_cipher_name(ssl_);
    return name ? name : "?";
}

} // namespace skiff::nvmeof::tls
