// One TLS 1.3 session over a connected, non-blocking TCP socket, for NVMe/TCP: PSK only
// (TLS_AES_128_GCM_SHA256 or TLS_AES_256_GCM_SHA384, no certificates, no session tickets).
// The target side looks the host's identity up in a PskStore; the host side offers one
// identity. After the handshake the record layer runs in OpenSSL (user space) unless the
// kernel took the session keys over (kTLS: ktls_send()/ktls_recv(); then the socket itself
// carries plaintext and the caller keeps using sendmsg/recv on it, zero-copy).
//
// All calls are non-blocking: they return what the socket allowed now. No allocation after
// the handshake (the write coalescing buffer is allocated with the session).
//
// OpenSSL writes to the socket with write(2), which raises SIGPIPE on a connection the peer
// has reset. Creating a session therefore sets SIGPIPE to "ignore" when it is at
// its default (a program with its own SIGPIPE handler keeps it): a peer that resets must end
// its connection with EPIPE, never the process.
#pragma once

#include "skiff/core/status.hpp"
#include "skiff/nvmeof/tls/psk.hpp"
#include "skiff/nvmeof/tls/psk_store.hpp"

#include <sys/types.h>
#include <sys/uio.h>

#include <memory>
#include <string>
#include <vector>

typedef struct ssl_st SSL;

namespace skiff::nvmeof::tls {

class TlsSession {
  public:
    // Target side: the host's identity must name a host with a key in `store`.
    static Result<std::unique_ptr<TlsSession>> accept(int fd, const PskStore &store);
    // Host side: offers psk.identity with psk.key.
    static Result<std::unique_ptr<TlsSession>> connect(int fd, SessionPsk psk);
    ~TlsSession();
    TlsSession(const TlsSession &) = delete;
    TlsSession &operator=(const TlsSession &) = delete;

    enum class Step { kDone, kWantRead, kWantWrite, kFailed };
    // Advances the handshake; kFailed: error() says why (for the log).
    Step handshake();
    const std::string &error() const { return error_; }

    // Plaintext I/O once the handshake is done. read: bytes (> 0), 0 when the peer closed, -1
    // with errno EAGAIN when nothing is there now, -1 with errno EIO on a TLS error (error()).
    // readv fills the iovecs in order until the socket has nothing more.
    ssize_t readv(const iovec *iov, int iovcnt);
    // Takes plaintext from the iovecs; returns how many bytes are on their way (whole records
    // written to the socket), -1 with errno EAGAIN when the socket is full, -1 EIO on error.
    // After EAGAIN (or a short count) call again starting at the first byte not taken: a record
    // OpenSSL could only partly send is finished from its own copy.
    ssize_t writev(const iovec *iov, int iovcnt);
    // Decrypted or received bytes that OpenSSL holds (the socket may be empty meanwhile).
    bool has_pending() const;

    bool ktls_send() const { return ktls_send_; }
    bool ktls_recv() const { return ktls_recv_; }
    // "kernel kTLS", "user space (OpenSSL)" or a mix, for the log.
    std::string record_layer() const;
    std::string cipher() const;
    // The PSK identity the handshake used (the host's, on the target side).
    const std::string &identity() const { return identity_; }
    // Target side: the host and subsystem NQNs the identity named.
    const PskIdentity &peer() const { return peer_; }
    // Target side: the HkdfLabel layout of the host's TLS PSK, told by its binder (psk.hpp).
    PskDerivation psk_derivation() const { return derivation_; }

  private:
    TlsSession() = default;
    ssize_t write_record(const uint8_t *p, size_t len); // one SSL_write
    void set_error_from_queue(const char *what);
    friend struct SessionCallbacks; // OpenSSL's PSK callbacks fill in identity and peer

    SSL *ssl_ = nullptr;
    bool server_ = false;
    const PskStore *store_ = nullptr;
    SessionPsk client_psk_;
    std::string identity_;
    PskIdentity peer_;
    bool client_hello_seen_ = false; // a ClientHello was parsed (else: not TLS 1.3 at all)
    bool identity_offered_ = false;
    bool identity_known_ = false;
    std::vector<uint8_t> client_hello_; // the handshake's ClientHello (target side), for its binders
    size_t identities_seen_ = 0;        // identities of that ClientHello asked for so far
    PskDerivation derivation_ = PskDerivation::kRfc8446;
    std::string error_;
    bool ktls_send_ = false, ktls_recv_ = false;
    bool tls_ulp_ = false; // the socket carries the kernel's "tls" ULP (kTLS exists here)
    static constexpr size_t kRecordBytes = 16384; // TLS maximum plaintext per record
    std::unique_ptr<uint8_t[]> wbuf_;             // small pieces gathered into one record
};

} // namespace skiff::nvmeof::tls
