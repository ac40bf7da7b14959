#include "skiff/nvmeof/transport/transport.hpp"

#include "skiff/nvmeof/tcp/tcp_transport.hpp"
#ifdef SKIFF_HAVE_RDMA
#include "skiff/nvmeof/rdma/rdma_transport.hpp"
#endif

#include <cstdlib>

namespace skiff::nvmeof::transport {

Result<ListenAddress> parse_listen_address(const std::string &text) {
    auto bad = [&](const std::string &why) {
        return make_error(
            DOCA_ERROR_INVALID_VALUE,
            "\"" + text + "\": " + why +
                "; expected ADDR:PORT such as 127.0.0.1:4420, or [ADDR]:PORT such as [::1]:4420");
    };
    auto parts = split_host_port(text);
    if (!parts) return bad(parts.error().message);
    auto host = canonical_ip(parts->host);
    if (!host) return bad("\"" + parts->host + "\" is not an IPv4 or IPv6 address");
    const std::string &port = parts->port;
    char *end = nullptr;
    long p = port.empty() ? -1 : std::strtol(port.c_str(), &end, 10);
    if (p < 0 || p > 65535 || (end && *end)) return bad("port \"" + port + "\" is not a number 0..65535");
    return ListenAddress{*host, static_cast<uint16_t>(p)};
}

Result<std::unique_ptr<Transport>> make_transport(std::string_view name, const DataPathOptions &datapath) {
    if (name == "tcp") return std::unique_ptr<Transport>(std::make_unique<tcp::TcpTransport>());
    if (name == "rdma") {
#ifdef SKIFF_HAVE_RDMA
        return std::unique_ptr<Transport>(std::make_unique<rdma::RdmaTransport>(datapath));
#else
        (void)datapath;
        return make_error(DOCA_ERROR_NOT_SUPPORTED,
                          "transport rdma: this build has no rdma-core (install libibverbs-dev and "
                          "librdmacm-dev, then rebuild); use tcp");
#endif
    }
    return make_error(DOCA_ERROR_INVALID_VALUE,
                      "transport \"" + std::string(name) + "\": unknown; use tcp or rdma");
}

} // namespace skiff::nvmeof::transport
