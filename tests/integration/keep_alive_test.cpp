// Keep-alive: a silent host loses its association after KATO; a busy or chatty one never does.
#include "target_fixture.hpp"

#include <thread>

using namespace skiff;
using namespace skiff::itest;
using namespace skiff::nvmeof;
using namespace skiff::nvmeof::host;
using namespace std::chrono_literals;

using integration_keepalive = TargetTest;

TEST_F(integration_keepalive, SilentHostIsTornDownAndCanReconnectAtOnce) {
    start_target();
    ConnectOptions o = options();
    o.kato_ms = 1000;
    o.auto_keep_alive = false;
    auto ctrl = connect(o);
    ASSERT_NE(ctrl, nullptr);

    // Send nothing; the target must close the admin connection (the bound is generous: KATO is
    // 1 s, the target may add its own check interval).
    Result<bool> closed = ctrl->admin_queue().socket().wait_readable(15s);
    ASSERT_OK(closed);
    ASSERT_TRUE(*closed) << "the admin connection is still open 15 s after a 1 s KATO expired";
    Status ka = ctrl->keep_alive();
    ASSERT_FALSE(ka.ok()) << "Keep Alive on a torn-down association must fail";
    EXPECT_EQ(ka.error().code, DOCA_ERROR_CONNECTION_RESET) << ka.error().describe();

    std::vector<uint8_t> buf(kBlock);
    Status io = ctrl->read(0, 1, 0, 1, buf.data(), kBlock);
    ASSERT_FALSE(io.ok()) << "the I/O queues go with the association";

    // The same host connects again straight away.
    auto again = connect(o);
    ASSERT_NE(again, nullptr);
    ASSERT_OK(again->read(0, 1, 0, 1, buf.data(), kBlock));
}

TEST_F(integration_keepalive, AutomaticKeepAliveKeepsAnIdleAssociation) {
    start_target();
    ConnectOptions o = options();
    o.kato_ms = 1000;
    o.auto_keep_alive = true; // Keep Alive every 500 ms
    auto ctrl = connect(o);
    ASSERT_NE(ctrl, nullptr);
    std::this_thread::sleep_for(3s);
    std::vector<uint8_t> buf(kBlock);
    ASSERT_OK(ctrl->read(0, 1, 0, 1, buf.data(), kBlock));
    ASSERT_OK(ctrl->keep_alive());
}

TEST_F(integration_keepalive, BusyHostThatSendsNoKeepAliveIsNeverTornDown) {
    // Traffic Based Keep Alive (CTRATT.TBKAS): any command restarts the timer, as with nvmet
    // and SPDK's target, so a host busy with I/O or admin commands needs no Keep Alive.
    start_target();
    ConnectOptions o = options();
    o.kato_ms = 1000;
    o.auto_keep_alive = false;
    auto ctrl = connect(o);
    ASSERT_NE(ctrl, nullptr);
    Result<nvme_id_ctrl> id = ctrl->identify_controller();
    ASSERT_OK(id);
    EXPECT_TRUE(id->ctratt & NVME_CTRL_CTRATT_TBKAS);

    std::vector<uint8_t> buf(kBlock);
    auto until = std::chrono::steady_clock::now() + 3s; // three KATOs of I/O only
    while (std::chrono::steady_clock::now() < until) {
        ASSERT_OK(ctrl->read(0, 1, 0, 1, buf.data(), kBlock));
        std::this_thread::sleep_for(100ms);
    }
    until = std::chrono::steady_clock::now() + 3s; // then three of admin commands only
    while (std::chrono::steady_clock::now() < until) {
        ASSERT_OK(ctrl->get_features(NVME_FEAT_FID_KATO));
        std::this_thread::sleep_for(100ms);
    }
    ASSERT_OK(ctrl->read(0, 1, 0, 1, buf.data(), kBlock));
}
