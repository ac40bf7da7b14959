// The control channel over a Unix stream socket (see hostmem/control_channel.hpp for the lines).
// Control traffic only: a few lines per export, none per I/O.
#include "skiff/core/log.hpp"
#include "skiff/dataplane/hostmem/control_channel.hpp"

#include <cerrno>
#include <cstring>
#include <poll.h>
#include <sstream>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace skiff::dataplane::hostmem {
namespace {

constexpr size_t kMaxLine = 1 << 20; // a BYTES reply of 512 KiB fits
constexpr size_t kMaxClients = 16;

Result<sockaddr_un> unix_address(const std::string &path) {
    sockaddr_un sa{};
    sa.sun_family = AF_UNIX;
    if (path.empty() || path.size() >= sizeof(sa.sun_path))
        return make_error(DOCA_ERROR_INVALID_VALUE, "control channel path \"" + path + "\": expected 1 to " +
                                                        std::to_string(sizeof(sa.sun_path) - 1) +
                                                        " characters");
    std::memcpy(sa.sun_path, path.data(), path.size());
    return sa;
}

// Lines from a stream socket: what has arrived is kept until a newline completes it.
class LineReader {
  public:
    // Reads once; false on EOF or error.
    bool fill(int fd) {
        char chunk[65536];
        ssize_t n = ::read(fd, chunk, sizeof(chunk));
        if (n <= 0) return false;
        pending_.append(chunk, static_cast<size_t>(n));
        return pending_.size() <= kMaxLine;
    }
    bool next(std::string &line) {
        size_t nl = pending_.find('\n');
        if (nl == std::string::npos) return false;
        line = pending_.substr(0, nl);
        pending_.erase(0, nl + 1);
        return true;
    }

  private:
    std::string pending_;
};

bool write_line(int fd, const std::string &line) {
    std::string out = line + "\n";
    size_t done = 0;
    while (done < out.size()) {
        ssize_t n = ::send(fd, out.data() + done, out.size() - done, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        done += static_cast<size_t>(n);
    }
    return true;
}

class UnixControlClient final : public ControlClient {
  public:
    explicit UnixControlClient(std::string path) : path_(std::move(path)) {}
    ~UnixControlClient() override { close(); }

    Status connect() override {
        close();
        auto sa = unix_address(path_);
        if (!sa) return sa.error();
        fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd_ < 0)
            return make_error(DOCA_ERROR_OPERATING_SYSTEM, std::string("socket: ") + std::strerror(errno));
        if (::connect(fd_, reinterpret_cast<sockaddr *>(&*sa), sizeof(*sa)) != 0) {
            int e = errno;
            close();
            return make_error(DOCA_ERROR_NOT_CONNECTED,
                              "cannot reach skiff-host at " + path_ + ": " + std::strerror(e));
        }
        reader_ = LineReader();
        return Status::success();
    }

    Result<ExportRecord> fetch_export() override {
        auto got = request("EXPORT");
        if (!got) return got.error();
        const std::string &reply = *got;
        std::istringstream in(reply);
        std::string word, hex;
        ExportRecord r;
        in >> word;
        if (word == "NOEXPORT")
            return make_error(DOCA_ERROR_AGAIN, "skiff-host at " + path_ + " exports nothing");
        in >> hex >> r.host_addr >> r.length >> r.generation;
        if (word != "EXPORT" || !in || !from_hex(hex, r.descriptor))
            return make_error(DOCA_ERROR_INVALID_VALUE,
                              "malformed EXPORT reply from " + path_ + ": " + reply);
        return r;
    }

    bool wait_for_loss(int timeout_ms) override {
        if (fd_ < 0) return true;
        pollfd p{fd_, POLLIN, 0};
        if (::poll(&p, 1, timeout_ms) <= 0) return false;
        bool alive = reader_.fill(fd_);
        std::string line;
        while (reader_.next(line))
            if (line.rfind("REVOKED", 0) == 0) alive = false;
        if (!alive) close();
        return !alive;
    }

    void close() override {
        if (fd_ >= 0) ::close(fd_);
        fd_ = -1;
    }
    const std::string &address() const override { return path_; }

    Result<std::string> request(const std::string &line) override {
        std::string reply;
        if (fd_ < 0) return make_error(DOCA_ERROR_NOT_CONNECTED, "control channel " + path_ + " is closed");
        if (!write_line(fd_, line))
            return make_error(DOCA_ERROR_NOT_CONNECTED, "skiff-host at " + path_ + " went away");
        while (!reader_.next(reply)) {
            pollfd p{fd_, POLLIN, 0};
            if (::poll(&p, 1, 5000) <= 0 || !reader_.fill(fd_)) {
                close();
                return make_error(DOCA_ERROR_NOT_CONNECTED, "no reply from skiff-host at " + path_);
            }
        }
        return reply;
    }

  private:
    std::string path_;
    int fd_ = -1;
    LineReader reader_;
};

class UnixControlServer final : public ControlServer {
  public:
    explicit UnixControlServer(std::string path) : path_(std::move(path)) {}
    ~UnixControlServer() override { close(); }

    Status listen() override {
        auto sa = unix_address(path_);
        if (!sa) return sa.error();
        ::unlink(path_.c_str()); // a socket file left by a previous run
        fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd_ < 0 || ::bind(fd_, reinterpret_cast<sockaddr *>(&*sa), sizeof(*sa)) != 0 ||
            ::listen(fd_, 8) != 0)
            return make_error(DOCA_ERROR_OPERATING_SYSTEM,
                              "cannot listen on " + path_ + ": " + std::strerror(errno));
        return Status::success();
    }

    void serve(const Handler &handle, int stop_fd) override {
        for (;;) {
            std::vector<pollfd> fds{{stop_fd, POLLIN, 0}, {fd_, POLLIN, 0}};
            for (auto &c : clients_) fds.push_back({c.fd, POLLIN, 0});
            if (::poll(fds.data(), fds.size(), -1) < 0 && errno != EINTR) return;
            if (fds[0].revents) return;
            if (fds[1].revents) accept_one();
            for (size_t i = 2; i < fds.size(); ++i)
                if (fds[i].revents) serve_client(fds[i].fd, handle);
            std::erase_if(clients_, [](const Client &c) { return c.fd < 0; });
        }
    }

    void broadcast(const std::string &line) override {
        for (auto &c : clients_) write_line(c.fd, line);
    }

    void close() override {
        for (auto &c : clients_) ::close(c.fd);
        clients_.clear();
        if (fd_ >= 0) {
            ::close(fd_);
            ::unlink(path_.c_str());
        }
        fd_ = -1;
    }
    const std::string &address() const override { return path_; }

  private:
    struct Client {
        int fd;
        LineReader reader;
    };

    void accept_one() {
        int c = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
        if (c < 0) return;
        if (clients_.size() >= kMaxClients) {
            log::get("hostmem")->warn("control channel {}: refusing a client (already {})", path_,
                                      kMaxClients);
            ::close(c);
            return;
        }
        log::get("hostmem")->info("control channel {}: target connected", path_);
        clients_.push_back({c, LineReader()});
    }

    void serve_client(int fd, const Handler &handle) {
        for (auto &c : clients_) {
            if (c.fd != fd) continue;
            bool ok = c.reader.fill(fd);
            std::string line;
            while (ok && c.reader.next(line)) ok = write_line(fd, handle(line));
            if (!ok) {
                log::get("hostmem")->info("control channel {}: target disconnected", path_);
                ::close(fd);
                c.fd = -1;
            }
        }
    }

    std::string path_;
    int fd_ = -1;
    std::vector<Client> clients_;
};

} // namespace

std::unique_ptr<ControlClient> make_unix_control_client(std::string path) {
    return std::make_unique<UnixControlClient>(std::move(path));
}

std::unique_ptr<ControlServer> make_unix_control_server(std::string path) {
    return std::make_unique<UnixControlServer>(std::move(path));
}

std::string to_hex(const uint8_t *data, size_t len) {
    static const char digits[] = "0123456789abcdef";
    std::string s;
    s.reserve(len * 2);
    for (size_t i = 0; i < len; ++i) {
        s.push_back(digits[data[i] >> 4]);
        s.push_back(digits[data[i] & 15]);
    }
    return s;
}

bool from_hex(const std::string &text, std::vector<uint8_t> &out) {
    if (text.size() % 2) return false;
    auto nibble = [](char c) -> int {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
    };
    out.clear();
    for (size_t i = 0; i < text.size(); i += 2) {
        int hi = nibble(text[i]), lo = nibble(text[i + 1]);
        if (hi < 0 || lo < 0) return false;
        out.push_back(static_cast<uint8_t>(hi << 4 | lo));
    }
    return true;
}

} // namespace skiff::dataplane::hostmem
