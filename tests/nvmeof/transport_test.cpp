// Transport selection and listen addresses.
#include "skiff/nvmeof/transport/transport.hpp"

#include "../helpers/free_port.hpp"

#include <gtest/gtest.h>

#include <string>

#include <unistd.h>

namespace skiff::nvmeof::transport {
namespace {

TEST(Transport, TcpAndRdmaExistOthersAreUnknown) {
    auto tcp = make_transport("tcp");
    ASSERT_TRUE(tcp.ok());
    EXPECT_STREQ(tcp.value()->name(), "tcp");
    auto rdma = make_transport("rdma");
#ifdef SKIFF_HAVE_RDMA
    ASSERT_TRUE(rdma.ok());
    EXPECT_STREQ(rdma.value()->name(), "rdma");
#else
    ASSERT_FALSE(rdma.ok());
    EXPECT_EQ(rdma.error().code, DOCA_ERROR_NOT_SUPPORTED);
#endif
    auto fc = make_transport("fc");
    ASSERT_FALSE(fc.ok());
    EXPECT_EQ(fc.error().code, DOCA_ERROR_INVALID_VALUE);
}

TEST(Transport, ListenAddressesParseOrSayWhatIsExpected) {
    auto a = parse_listen_address("10.1.2.3:4420");
    ASSERT_TRUE(a.ok());
    EXPECT_EQ(a->host, "10.1.2.3");
    EXPECT_EQ(a->port, 4420);
    for (std::string bad :
         {"127.0.0.1", "localhost:4420", "127.0.0.1:70000", "127.0.0.1:", "1.2.3.4:44x", "::1:4420", "[::1]",
          "[::1]4420", "[::1:4420", "[::1::2]:4420", "[localhost]:4420"}) {
        auto r = parse_listen_address(bad);
        ASSERT_FALSE(r.ok()) << bad;
        EXPECT_NE(r.error().message.find("expected ADDR:PORT such as 127.0.0.1:4420, or [ADDR]:PORT such as "
                                         "[::1]:4420"),
                  std::string::npos)
            << r.error().message;
    }
}

TEST(Transport, Ipv6ListenAddressesAreInBracketsAndKeptCanonical) {
    auto a = parse_listen_address("[::1]:4420");
    ASSERT_TRUE(a.ok()) << a.error().message;
    EXPECT_EQ(a->host, "::1");
    EXPECT_EQ(a->port, 4420);
    EXPECT_EQ(a->str(), "[::1]:4420");
    auto any = parse_listen_address("[0:0:0:0:0:0:0:0]:0");
    ASSERT_TRUE(any.ok());
    EXPECT_EQ(any->host, "::");
    EXPECT_EQ(any->str(), "[::]:0");
    auto upper = parse_listen_address("[FD00::A]:8009");
    ASSERT_TRUE(upper.ok());
    EXPECT_EQ(upper->str(), "[fd00::a]:8009");

    auto unbracketed = parse_listen_address("::1:4420");
    ASSERT_FALSE(unbracketed.ok());
    EXPECT_NE(
        unbracketed.error().message.find("an IPv6 address with a port needs brackets, such as [::1]:4420"),
        std::string::npos)
        << unbracketed.error().message;
    auto two_gaps = parse_listen_address("[::1::2]:4420");
    ASSERT_FALSE(two_gaps.ok());
    EXPECT_NE(two_gaps.error().message.find("\"::1::2\" is not an IPv4 or IPv6 address"), std::string::npos)
        << two_gaps.error().message;
}

// The TCP listener binds IPv6 only: "::" does not take IPv4 connections too, so it and "0.0.0.0"
// can listen on one port side by side. The IPv4 wildcard binds first on a port the kernel picks
// (free in IPv4), then "::" on the same port: without IPV6_V6ONLY that second bind always fails
// with EADDRINUSE. A port can still be taken in IPv6 by a test running beside this one, so a few
// fresh ports are tried; a listener without V6ONLY fails every attempt.
TEST(Transport, TcpIpv6ListenerLeavesIpv4ToAnIpv4Listener) {
    if (!itest::has_ipv6_loopback())
        GTEST_SKIP() << "this machine has no IPv6 loopback (::1 cannot be bound)";
    auto tcp = make_transport("tcp");
    ASSERT_TRUE(tcp.ok());
    std::string last_error;
    for (int attempt = 0; attempt < 5; ++attempt) {
        auto v4 = tcp.value()->listen({"0.0.0.0", 0});
        ASSERT_TRUE(v4.ok()) << v4.error().message;
        const uint16_t port = tcp.value()->bound_port(*v4);
        ASSERT_NE(port, 0);
        auto v6 = tcp.value()->listen({"::", port});
        ::close(*v4);
        if (v6.ok()) {
            ::close(*v6);
            return;
        }
        last_error = v6.error().message;
    }
    ADD_FAILURE() << "\"::\" never shared a port with \"0.0.0.0\": " << last_error;
}

#ifdef SKIFF_HAVE_RDMA
// This machine's kernel may have no RDMA at all (the lab VM has rxe): either way an address no
// RDMA device owns must fail with a message naming it, and nothing else is disturbed.
TEST(Transport, RdmaListenerWithoutADeviceForTheAddressNamesIt) {
    auto rdma = make_transport("rdma");
    ASSERT_TRUE(rdma.ok());
    ListenAddress addr{"203.0.113.9", 4420, "rdma"}; // TEST-NET-3: no local interface has it
    auto fd = rdma.value()->listen(addr);
    ASSERT_FALSE(fd.ok());
    EXPECT_NE(fd.error().message.find("rdma listener 203.0.113.9:4420"), std::string::npos)
        << fd.error().message;
    EXPECT_TRUE(fd.error().message.find("no RDMA device") != std::string::npos) << fd.error().message;
}

// The same for IPv6 (sockaddr_in6 to rdma_bind_addr), the address in brackets with its port.
TEST(Transport, RdmaIpv6ListenerWithoutADeviceForTheAddressNamesIt) {
    auto rdma = make_transport("rdma");
    ASSERT_TRUE(rdma.ok());
    ListenAddress addr{"2001:db8::9", 4420, "rdma"}; // documentation prefix: no local interface has it
    auto fd = rdma.value()->listen(addr);
    ASSERT_FALSE(fd.ok());
    EXPECT_NE(fd.error().message.find("rdma listener [2001:db8::9]:4420: no RDMA device"), std::string::npos)
        << fd.error().message;
}
#endif

} // namespace
} // namespace skiff::nvmeof::transport
