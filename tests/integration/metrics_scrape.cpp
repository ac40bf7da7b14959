#include "metrics_scrape.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

namespace skiff::itest {

int connect_loopback(uint16_t port) {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    timeval tv{10, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd, reinterpret_cast<sockaddr *>(&a), sizeof(a)) != 0) {
        ::close(fd);
        return -1;
    }
    return fd;
}

std::string http_exchange(uint16_t port, const std::string &request) {
    int fd = connect_loopback(port);
    if (fd < 0) return "(connect failed)";
    for (size_t off = 0; off < request.size();) {
        ssize_t n = ::send(fd, request.data() + off, request.size() - off, MSG_NOSIGNAL);
        if (n <= 0) break;
        off += size_t(n);
    }
    std::string out;
    char buf[65536];
    for (ssize_t n; (n = ::recv(fd, buf, sizeof(buf), 0)) > 0;) out.append(buf, size_t(n));
    ::close(fd);
    return out;
}

std::string status_line(const std::string &response) {
    return response.substr(0, response.find("\r\n"));
}

std::optional<std::string> scrape_metrics(uint16_t port, std::string *error) {
    const std::string r = http_exchange(port, "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    const size_t body = r.find("\r\n\r\n");
    if (status_line(r) != "HTTP/1.1 200 OK" ||
        r.find("Content-Type: text/plain; version=0.0.4") == std::string::npos || body == std::string::npos) {
        if (error) *error = r.substr(0, 400);
        return std::nullopt;
    }
    return r.substr(body + 4);
}

Samples parse_samples(const std::string &body) {
    Samples out;
    size_t pos = 0;
    while (pos < body.size()) {
        size_t nl = body.find('\n', pos);
        if (nl == std::string::npos) nl = body.size();
        const std::string line = body.substr(pos, nl - pos);
        pos = nl + 1;
        if (line.empty() || line[0] == '#') continue;
        const size_t sp = line.rfind(' ');
        if (sp == std::string::npos) continue;
        out[line.substr(0, sp)] = std::stod(line.substr(sp + 1));
    }
    return out;
}

namespace {
bool is_sample_of(const std::string &key, const std::string &name) {
    return key == name || key.rfind(name + "{", 0) == 0;
}
} // namespace

std::optional<double> sample_value(const Samples &s, const std::string &name,
                                   const std::vector<std::pair<std::string, std::string>> &labels) {
    std::optional<double> found;
    for (auto &[key, v] : s) {
        if (!is_sample_of(key, name)) continue;
        bool all = true;
        for (auto &[k, lv] : labels) all = all && key.find(k + "=\"" + lv + "\"") != std::string::npos;
        if (!all) continue;
        if (found) return std::nullopt;
        found = v;
    }
    return found;
}

double sample_sum(const Samples &s, const std::string &name) {
    double sum = 0;
    for (auto &[key, v] : s)
        if (is_sample_of(key, name)) sum += v;
    return sum;
}

} // namespace skiff::itest
