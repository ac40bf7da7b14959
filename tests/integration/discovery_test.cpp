// The discovery service of skiff-target: what its log lists, and who may see and connect what.
#include "target_fixture.hpp"

#include "skiff/nvmeof/host/nvme_status.hpp"

using namespace skiff;
using namespace skiff::itest;
using namespace skiff::nvmeof;
using namespace skiff::nvmeof::host;

namespace {

const nvmf_disc_log_entry *find_entry(const DiscoveryLog &log, const std::string &nqn, uint8_t subtype) {
    for (const auto &e : log.entries)
        if (e.subtype == subtype && trim_field(e.subnqn, sizeof(e.subnqn)) == nqn) return &e;
    return nullptr;
}

Result<DiscoveryLog> discover(TargetTest &t, uint16_t port, const HostIdentity &host, ConnectOptions o) {
    o.port = port;
    o.subnqn = NVME_DISC_SUBSYS_NAME;
    o.host = host;
    Result<std::unique_ptr<Controller>> c = Controller::connect(o);
    if (!c) return c.error();
    if (!(*c)->is_discovery())
        return make_error(DOCA_ERROR_UNEXPECTED,
                          "the discovery NQN reached a controller that is not a discovery one");
    return (*c)->discovery_log();
}

} // namespace

using integration_discovery = TargetTest;

TEST_F(integration_discovery, LogListsTheSubsystemWithItsListenerAndTheDiscoverySubsystem) {
    start_target();
    Result<DiscoveryLog> log = discover(*this, disc_port_, HostIdentity::generate(), options());
    ASSERT_OK(log);
    EXPECT_EQ(log->recfmt, 0);

    const nvmf_disc_log_entry *nvm = find_entry(*log, kNqn, NVME_NQN_NVME);
    ASSERT_NE(nvm, nullptr) << "no NVM subsystem entry for " << kNqn << " among " << log->entries.size();
    EXPECT_EQ(nvm->trtype, NVMF_TRTYPE_TCP);
    EXPECT_EQ(nvm->adrfam, NVMF_ADDR_FAMILY_IP4);
    EXPECT_EQ(trim_field(nvm->traddr, sizeof(nvm->traddr)), "127.0.0.1");
    EXPECT_EQ(trim_field(nvm->trsvcid, sizeof(nvm->trsvcid)), std::to_string(io_port_));

    const nvmf_disc_log_entry *self = find_entry(*log, NVME_DISC_SUBSYS_NAME, NVME_NQN_CURR);
    ASSERT_NE(self, nullptr) << "no entry for the current discovery subsystem";
    EXPECT_EQ(self->trtype, NVMF_TRTYPE_TCP);
    EXPECT_EQ(trim_field(self->trsvcid, sizeof(self->trsvcid)), std::to_string(disc_port_));
}

TEST_F(integration_discovery, EveryListenerHasItsEntryAndServesIo) {
    io_port_ = free_port();
    const uint16_t second = free_port();
    start_target({"--listen", "127.0.0.1:" + std::to_string(io_port_), "--listen",
                  "127.0.0.1:" + std::to_string(second)});
    Result<DiscoveryLog> log = discover(*this, disc_port_, HostIdentity::generate(), options());
    ASSERT_OK(log);
    std::vector<std::string> ports;
    for (const auto &e : log->entries)
        if (e.subtype == NVME_NQN_NVME && trim_field(e.subnqn, sizeof(e.subnqn)) == kNqn)
            ports.push_back(trim_field(e.trsvcid, sizeof(e.trsvcid)));
    std::sort(ports.begin(), ports.end());
    std::vector<std::string> want{std::to_string(io_port_), std::to_string(second)};
    std::sort(want.begin(), want.end());
    EXPECT_EQ(ports, want) << "one NVM subsystem entry per listener";
    expect_io_through(second);
}

TEST_F(integration_discovery, DiscoveryIsAlsoServedOnTheIoListener) {
    start_target();
    Result<DiscoveryLog> log = discover(*this, io_port_, HostIdentity::generate(), options());
    ASSERT_OK(log);
    EXPECT_NE(find_entry(*log, kNqn, NVME_NQN_NVME), nullptr);
}

TEST_F(integration_discovery, AllowHostFiltersTheLogAndRefusesOtherHosts) {
    HostIdentity allowed = HostIdentity::generate(), other = HostIdentity::generate();
    start_target({"--allow-host", allowed.hostnqn});

    Result<DiscoveryLog> seen = discover(*this, disc_port_, allowed, options());
    ASSERT_OK(seen);
    EXPECT_NE(find_entry(*seen, kNqn, NVME_NQN_NVME), nullptr) << "the allowed host sees the subsystem";
    ConnectOptions o = options();
    o.host = allowed;
    auto ctrl = connect(o);
    ASSERT_NE(ctrl, nullptr);

    Result<DiscoveryLog> hidden = discover(*this, disc_port_, other, options());
    ASSERT_OK(hidden);
    EXPECT_EQ(find_entry(*hidden, kNqn, NVME_NQN_NVME), nullptr) << "another host must not see the subsystem";

    QueueConfig qc;
    qc.port = io_port_;
    Result<std::unique_ptr<TcpQueue>> q = TcpQueue::connect(qc);
    ASSERT_OK(q);
    Result<Completion> c = fabrics_connect(**q, other, kNqn, 0xFFFF, 0);
    ASSERT_OK(c);
    EXPECT_EQ(c->sct(), NVME_SCT_CMD_SPECIFIC) << describe_status(c->status(), true);
    EXPECT_EQ(c->sc(), NVME_SC_CONNECT_INVALID_HOST) << describe_status(c->status(), true);

    // Through the controller API the same refusal is a NOT_PERMITTED error naming the status.
    o.host = other;
    Result<std::unique_ptr<Controller>> refused = Controller::connect(o);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().code, DOCA_ERROR_NOT_PERMITTED);
    EXPECT_NE(refused.error().message.find("sc 84h (Connect Invalid Host)"), std::string::npos)
        << refused.error().message;
}
