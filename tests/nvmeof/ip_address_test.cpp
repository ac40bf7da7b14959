// The one place addresses are parsed and printed: IPv4 as written, IPv6 without brackets alone
// and in brackets before a port, one canonical spelling per address.
#include "skiff/nvmeof/target/admission.hpp"
#include "skiff/nvmeof/transport/ip_address.hpp"

#include <gtest/gtest.h>

#include <netinet/in.h>

namespace skiff::nvmeof::transport {
namespace {

TEST(IpAddress, FamilyOfNumericAddressesOnly) {
    EXPECT_EQ(ip_family("10.0.0.1"), IpFamily::kIpv4);
    EXPECT_EQ(ip_family("::1"), IpFamily::kIpv6);
    EXPECT_EQ(ip_family("fd00::10"), IpFamily::kIpv6);
    for (const char *not_one : {"", "localhost", "[::1]", "::1::2", "10.0.0.1:4420", "10.0.0.256"})
        EXPECT_FALSE(ip_family(not_one)) << not_one;
}

TEST(IpAddress, CanonicalSpellingIsInetNtops) {
    EXPECT_EQ(canonical_ip("0:0:0:0:0:0:0:1"), "::1");
    EXPECT_EQ(canonical_ip("FD00:0::A"), "fd00::a");
    EXPECT_EQ(canonical_ip("192.0.2.7"), "192.0.2.7");
    EXPECT_FALSE(canonical_ip("::1::2"));
    EXPECT_FALSE(canonical_ip("gateway2"));
}

TEST(IpAddress, HostAndPortPutIpv6InBrackets) {
    EXPECT_EQ(host_port("10.0.0.1", 4420), "10.0.0.1:4420");
    EXPECT_EQ(host_port("::1", 4420), "[::1]:4420");
    EXPECT_EQ(host_port("target.example", 8009), "target.example:8009"); // a host name stays as it is
    EXPECT_EQ(strip_brackets("[::1]"), "::1");
    EXPECT_EQ(strip_brackets("::1"), "::1");
    EXPECT_EQ(strip_brackets("[::1"), "[::1");
}

TEST(IpAddress, SplitsAtThePortsColonAndSaysWhatIsWrong) {
    auto v4 = split_host_port("10.0.0.1:4420");
    ASSERT_TRUE(v4.ok());
    EXPECT_EQ(v4->host, "10.0.0.1");
    EXPECT_EQ(v4->port, "4420");
    auto v6 = split_host_port("[fe80::1]:51234");
    ASSERT_TRUE(v6.ok());
    EXPECT_EQ(v6->host, "fe80::1");
    EXPECT_EQ(v6->port, "51234");
    for (const auto &[text, says] : std::vector<std::pair<std::string, std::string>>{
             {"10.0.0.1", "no port"},
             {"[::1]", "no port"},
             {"[::1", "no \"]\" after the IPv6 address"},
             {"[::1]4420", "\":PORT\" expected after \"]\""},
             {"::1:4420", "an IPv6 address with a port needs brackets, such as [::1]:4420"}}) {
        auto r = split_host_port(text);
        ASSERT_FALSE(r.ok()) << text;
        EXPECT_EQ(r.error().message, says) << text;
    }
}

TEST(IpAddress, SocketAddressesBothWays) {
    auto v6 = socket_address("::1", 4420);
    ASSERT_TRUE(v6);
    EXPECT_EQ(v6->family(), AF_INET6);
    EXPECT_EQ(v6->length, sizeof(sockaddr_in6));
    EXPECT_EQ(port_of(v6->get()), 4420);
    EXPECT_EQ(describe_socket_address(v6->get()), "[::1]:4420");
    auto v4 = socket_address("127.0.0.1", 8009);
    ASSERT_TRUE(v4);
    EXPECT_EQ(v4->family(), AF_INET);
    EXPECT_EQ(v4->length, sizeof(sockaddr_in));
    EXPECT_EQ(describe_socket_address(v4->get()), "127.0.0.1:8009");
    EXPECT_FALSE(socket_address("localhost", 1));
    EXPECT_EQ(describe_socket_address(nullptr), "?");
}

// Connections are counted per peer address: an IPv6 peer's is the address without brackets or
// port, as skiff-ctl connections lists it.
TEST(IpAddress, AdmissionCountsAnIpv6PeerByItsAddress) {
    EXPECT_EQ(target::Admission::host_of("[::1]:51234"), "::1");
    EXPECT_EQ(target::Admission::host_of("192.0.2.1:51234"), "192.0.2.1");
}

} // namespace
} // namespace skiff::nvmeof::transport
