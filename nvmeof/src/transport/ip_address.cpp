#include "skiff/nvmeof/transport/ip_address.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>

namespace skiff::nvmeof::transport {
namespace {

// The address of an IPv4 or IPv6 socket address as inet_ntop writes it, without brackets or
// port; empty for a null address or another family.
std::string address_text(const sockaddr *sa) {
    char ip[INET6_ADDRSTRLEN] = {};
    const void *bytes = nullptr;
    if (sa && sa->sa_family == AF_INET) bytes = &reinterpret_cast<const sockaddr_in *>(sa)->sin_addr;
    if (sa && sa->sa_family == AF_INET6) bytes = &reinterpret_cast<const sockaddr_in6 *>(sa)->sin6_addr;
    if (!bytes || !inet_ntop(sa->sa_family, bytes, ip, sizeof(ip))) return {};
    return ip;
}

} // namespace

std::optional<IpFamily> ip_family(const std::string &host) {
    auto sa = socket_address(host, 0);
    if (!sa) return std::nullopt;
    return sa->family() == AF_INET6 ? IpFamily::kIpv6 : IpFamily::kIpv4;
}

std::optional<std::string> canonical_ip(const std::string &host) {
    auto sa = socket_address(host, 0);
    if (!sa) return std::nullopt;
    return address_text(sa->get());
}

std::string strip_brackets(const std::string &host) {
    const bool bracketed = host.size() >= 2 && host.front() == '[' && host.back() == ']';
    return bracketed ? host.substr(1, host.size() - 2) : host;
}

std::string host_port(const std::string &host, uint16_t port) {
    const bool bracketed = host.find(':') != std::string::npos;
    return (bracketed ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

Result<HostPortText> split_host_port(const std::string &text) {
    auto bad = [](const std::string &why) { return make_error(DOCA_ERROR_INVALID_VALUE, why); };
    if (!text.empty() && text.front() == '[') {
        const size_t close = text.find(']');
        if (close == std::string::npos) return bad("no \"]\" after the IPv6 address");
        if (close + 1 == text.size()) return bad("no port");
        if (text[close + 1] != ':') return bad("\":PORT\" expected after \"]\"");
        return HostPortText{text.substr(1, close - 1), text.substr(close + 2)};
    }
    const size_t colon = text.find(':');
    if (colon == std::string::npos) return bad("no port");
    if (text.find(':', colon + 1) != std::string::npos)
        return bad("an IPv6 address with a port needs brackets, such as [::1]:4420");
    return HostPortText{text.substr(0, colon), text.substr(colon + 1)};
}

std::optional<SocketAddress> socket_address(const std::string &host, uint16_t port) {
    SocketAddress out;
    auto *v4 = reinterpret_cast<sockaddr_in *>(&out.storage);
    auto *v6 = reinterpret_cast<sockaddr_in6 *>(&out.storage);
    if (inet_pton(AF_INET, host.c_str(), &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons(port);
        out.length = sizeof(sockaddr_in);
        return out;
    }
    out.storage = {};
    if (inet_pton(AF_INET6, host.c_str(), &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons(port);
        out.length = sizeof(sockaddr_in6);
        return out;
    }
    return std::nullopt;
}

std::string describe_socket_address(const sockaddr *sa) {
    const std::string ip = address_text(sa);
    return ip.empty() ? "?" : host_port(ip, port_of(sa));
}

uint16_t port_of(const sockaddr *sa) {
    if (sa && sa->sa_family == AF_INET) return ntohs(reinterpret_cast<const sockaddr_in *>(sa)->sin_port);
    if (sa && sa->sa_family == AF_INET6) return ntohs(reinterpret_cast<const sockaddr_in6 *>(sa)->sin6_port);
    return 0;
}

} // namespace skiff::nvmeof::transport
