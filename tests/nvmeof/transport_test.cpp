// Transport selection and listen addresses.
#include "skiff/nvmeof/transport/transport.hpp"

#include <gtest/gtest.h>

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
    for (std::string bad : {"127.0.0.1", "localhost:4420", "127.0.0.1:70000", "127.0.0.1:", "1.2.3.4:44x"}) {
        auto r = parse_listen_address(bad);
        ASSERT_FALSE(r.ok()) << bad;
        EXPECT_NE(r.error().message.find("expected ADDR:PORT such as 127.0.0.1:4420"), std::string::npos);
    }
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
#endif

} // namespace
} // namespace skiff::nvmeof::transport
