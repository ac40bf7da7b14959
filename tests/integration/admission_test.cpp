// Admission and policy against the real skiff-target process (nvmeof/TARGET.md, "Admission and
// policy"): a queue that does not finish DH-HMAC-CHAP is closed at the authentication timeout
// and never counts against the host it claims; a host taken off a subsystem (or shut out by
// turning allow_any_host off) loses its controllers at once; a host with a TLS PSK is refused in
// plaintext on an `optional` listener; discovery asks hosts with secrets to authenticate, so a
// peer claiming their NQN cannot read their discovery log.
#include "../support/build_paths.hpp"
#include "target_fixture.hpp"

#include "skiff/nvmeof/auth/messages.hpp"
#include "skiff/nvmeof/host/commands.hpp"
#include "skiff/nvmeof/host/nvme_status.hpp"
#include "skiff/nvmeof/tls/psk.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

using namespace skiff;
using namespace skiff::itest;
using namespace skiff::nvmeof;
using namespace skiff::nvmeof::host;
using namespace std::chrono_literals;
using json = nlohmann::json;

namespace {

const std::string kSub = "nqn.2026-11.io.skiff:admission";
const std::string kOther = "nqn.2026-11.io.skiff:admission-other";
const std::string kHostA = "nqn.2014-08.org.nvmexpress:uuid:5d1c0a3e-7b2f-4e11-8a6c-00000000000a";
const std::string kHostB = "nqn.2014-08.org.nvmexpress:uuid:5d1c0a3e-7b2f-4e11-8a6c-00000000000b";
const std::string kHostC = "nqn.2014-08.org.nvmexpress:uuid:5d1c0a3e-7b2f-4e11-8a6c-00000000000c";
// `nvme gen-dhchap-key` output (also used by dhchap_test.cpp).
const std::string kKeyA = "DHHC-1:01:WulleCBkG4oCs0iIC3Cit9gBDCLWiZ9PNXuhqytWkBIZkvGy:";
const std::string kKeyB = "DHHC-1:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR:";

tls::ConfiguredPsk make_psk(uint8_t seed) {
    tls::ConfiguredPsk k;
    k.hash = tls::PskHash::kSha256;
    for (int i = 0; i < 32; ++i) k.key.push_back(static_cast<uint8_t>(seed + i * 7));
    return k;
}

class Admission : public ::testing::Test {
  protected:
    void SetUp() override {
        char tmpl[] = "/tmp/skiff-admission-XXXXXX";
        ASSERT_NE(mkdtemp(tmpl), nullptr);
        dir_ = tmpl;
        socket_ = dir_ + "/ctl.sock";
        port_ = free_port();
    }
    void TearDown() override {
        if (target_) {
            EXPECT_EQ(target_->stop(), 0);
            if (HasFailure()) std::cerr << target_->log();
        }
        std::filesystem::remove_all(dir_);
    }

    // The target with one RAM namespace in kSub (and kOther), a plain listener on port_ and
    // `overrides` merged over that document.
    void start(const json &overrides) {
        json doc = {{"target", {{"management_socket", socket_}}},
                    {"backends",
                     {{{"name", "disk"}, {"kind", "ram"}, {"size", "16MiB"}},
                      {{"name", "disk2"}, {"kind", "ram"}, {"size", "16MiB"}}}},
                    {"subsystems",
                     {{{"nqn", kSub}, {"namespaces", {{{"nsid", 1}, {"backend", "disk"}}}}},
                      {{"nqn", kOther}, {"namespaces", {{{"nsid", 1}, {"backend", "disk2"}}}}}}},
                    {"listeners", {{{"trtype", "tcp"}, {"addr", "127.0.0.1"}, {"port", port_}}}},
                    {"discovery", nullptr}};
        doc.merge_patch(overrides);
        std::ofstream(dir_ + "/target.json") << doc.dump(2);
        target_ = std::make_unique<TargetProcess>(std::vector<std::string>{"--config", dir_ + "/target.json"},
                                                  port_);
        ASSERT_TRUE(target_->started()) << target_->log();
    }

    ConnectOptions options(const std::string &hostnqn, const std::string &subnqn = kSub) const {
        ConnectOptions o;
        o.port = port_;
        o.subnqn = subnqn;
        o.host.hostnqn = hostnqn;
        o.io_queues = 1;
        o.kato_ms = 0;
        o.timeout = 10s;
        return o;
    }

    // An admin queue of `subnqn` connected by hand as `hostnqn`, authenticating never.
    std::unique_ptr<TcpQueue> raw_admin(const std::string &hostnqn, const std::string &subnqn,
                                        uint32_t *connect_result) {
        QueueConfig qc;
        qc.port = port_;
        qc.qid = 0;
        qc.queue_size = 32;
        auto q = TcpQueue::connect(qc);
        EXPECT_TRUE(q.ok());
        if (!q) return nullptr;
        HostIdentity id = HostIdentity::generate();
        id.hostnqn = hostnqn;
        auto c = fabrics_connect(**q, id, subnqn, 0xFFFF, 0);
        EXPECT_TRUE(c.ok() && c->nvme_ok());
        if (c) *connect_result = c->cqe.result;
        return std::move(q.value());
    }

    json ctl_json(const std::string &args) {
        CommandOutput r = run_command(skiff::test::bin_dir() + "/skiff-ctl --socket " + socket_ + " " + args);
        EXPECT_EQ(r.exit_code, 0) << args << ": " << r.output;
        json j = json::parse(r.output, nullptr, false);
        EXPECT_FALSE(j.is_discarded()) << r.output;
        return j;
    }
    void ctl(const std::string &args) {
        CommandOutput r = run_command(skiff::test::bin_dir() + "/skiff-ctl --socket " + socket_ + " " + args);
        ASSERT_EQ(r.exit_code, 0) << args << ": " << r.output;
    }
    // Queues the target counts against `hostnqn` (skiff-ctl connections).
    uint64_t queues_of(const std::string &hostnqn) {
        json j = ctl_json("connections");
        for (auto &e : j.value("queues_per_host", json::array()))
            if (e.value("host", "") == hostnqn) return e.value("queues", uint64_t(0));
        return 0;
    }
    // Live controllers of `hostnqn` (skiff-ctl controllers).
    size_t controllers_of(const std::string &hostnqn) {
        size_t n = 0;
        for (auto &c : ctl_json("controllers")) n += c.value("host", "") == hostnqn;
        return n;
    }
    bool log_has(const std::string &text) const { return target_->log().find(text) != std::string::npos; }

    static bool io_works(Controller &c) {
        std::vector<uint8_t> out(4096, 0x3C), in(4096);
        return c.write(0, 1, 16, 8, out.data(), 4096).ok() && c.read(0, 1, 16, 8, in.data(), 4096).ok() &&
               in == out;
    }

    std::string dir_, socket_;
    uint16_t port_ = 0;
    std::unique_ptr<TargetProcess> target_;
};

// A queue closed by the target: a command on it fails at the transport.
bool answers(TcpQueue &q, std::chrono::milliseconds wait) {
    auto c = q.execute(cmd::property_get(wire::kPropCap, true), DataDir::kNone, nullptr, 0, wait);
    return c.ok();
}

TEST_F(Admission, UnauthenticatedQueueIsClosedAtTheTimeoutAndTakesNoQuota) {
    // One queue per host: if the impostor's queue counted, host A could not connect at all.
    start({{"transports", {{{"trtype", "tcp"}, {"auth_timeout_ms", 600}, {"max_queues_per_host", 1}}}},
           {"hosts", {{{"nqn", kHostA}, {"dhchap_key", kKeyA}}}}});
    if (HasFatalFailure()) return;
    uint32_t result = 0;
    const auto t0 = std::chrono::steady_clock::now();
    auto impostor = raw_admin(kHostA, kSub, &result);
    ASSERT_NE(impostor, nullptr);
    EXPECT_NE(result & auth::kConnectAuthreqAtr, 0u) << "the Connect must ask for authentication";
    EXPECT_EQ(queues_of(kHostA), 0u) << "an unauthenticated queue counted against the host it claims";

    // The real host A (one admin queue: its whole quota) connects and authenticates meanwhile.
    ConnectOptions o = options(kHostA);
    o.io_queues = 0;
    o.dhchap.secret = kKeyA;
    auto real = Controller::connect(o);
    ASSERT_TRUE(real.ok()) << real.error().describe();
    EXPECT_EQ(queues_of(kHostA), 1u);

    // The impostor's queue is closed at the timeout (checked on a 100 ms clock), not before.
    bool open = true;
    while (open && std::chrono::steady_clock::now() - t0 < 5s) {
        open = answers(*impostor, 2000ms);
        if (open) std::this_thread::sleep_for(50ms);
    }
    const auto closed_after = std::chrono::steady_clock::now() - t0;
    EXPECT_FALSE(open) << "the unauthenticated queue is still served after 5 s";
    EXPECT_GE(closed_after, 450ms);
    EXPECT_TRUE(log_has("did not complete DH-HMAC-CHAP within 600 ms")) << target_->log();
    // The host's count is its own queue only, before and after the close.
    EXPECT_EQ(queues_of(kHostA), 1u);
    EXPECT_TRUE((*real)->identify_controller().ok()) << "the authenticated host is unaffected";
}

TEST_F(Admission, AuthenticatedQueuesCountAndTheQuotaStillHolds) {
    start({{"transports", {{{"trtype", "tcp"}, {"max_queues_per_host", 2}}}},
           {"hosts", {{{"nqn", kHostA}, {"dhchap_key", kKeyA}}}}});
    if (HasFatalFailure()) return;
    ConnectOptions o = options(kHostA);
    o.dhchap.secret = kKeyA;
    auto first = Controller::connect(o); // admin + 1 I/O queue: the host's 2
    ASSERT_TRUE(first.ok()) << first.error().describe();
    EXPECT_EQ(queues_of(kHostA), 2u);
    o.io_queues = 0;
    auto second = Controller::connect(o);
    ASSERT_FALSE(second.ok());
    EXPECT_NE(second.error().describe().find("Controller Busy"), std::string::npos)
        << second.error().describe();
    EXPECT_TRUE(io_works(**first));
}

TEST_F(Admission, RemovedHostLosesItsControllersWithinASecond) {
    start({{"subsystems",
            {{{"nqn", kSub},
              {"allowed_hosts", {kHostA, kHostB}},
              {"namespaces", {{{"nsid", 1}, {"backend", "disk"}}}}},
             {{"nqn", kOther},
              {"allowed_hosts", {kHostA}},
              {"namespaces", {{{"nsid", 1}, {"backend", "disk2"}}}}}}}});
    if (HasFatalFailure()) return;
    auto a = Controller::connect(options(kHostA));
    ASSERT_TRUE(a.ok()) << a.error().describe();
    auto a_other = Controller::connect(options(kHostA, kOther));
    ASSERT_TRUE(a_other.ok()) << a_other.error().describe();
    auto b = Controller::connect(options(kHostB));
    ASSERT_TRUE(b.ok()) << b.error().describe();

    const auto t0 = std::chrono::steady_clock::now();
    ctl("host remove " + kSub + " " + kHostA);
    size_t left = 1;
    while ((left = controllers_of(kHostA)) > 1 && std::chrono::steady_clock::now() - t0 < 1s)
        std::this_thread::sleep_for(20ms);
    EXPECT_EQ(left, 1u) << "host A's controller on " << kSub << " is still there a second after host remove";
    EXPECT_FALSE(io_works(**a)) << "the removed host still does I/O";
    EXPECT_TRUE(log_has("no longer allowed")) << target_->log();
    // A new association is refused.
    EXPECT_FALSE(Controller::connect(options(kHostA)).ok());
    // Host B, and host A on the subsystem it still may use, carry on.
    EXPECT_TRUE(io_works(**b));
    EXPECT_TRUE(io_works(**a_other));
}

TEST_F(Admission, TurningAllowAnyHostOffTearsDownHostsNotOnTheNewList) {
    start(json::object());
    if (HasFatalFailure()) return;
    auto c = Controller::connect(options(kHostC)); // allowed while any host is
    ASSERT_TRUE(c.ok()) << c.error().describe();
    auto b = Controller::connect(options(kHostB));
    ASSERT_TRUE(b.ok()) << b.error().describe();
    ctl("host add " + kSub + " " + kHostB); // a host list: allow_any_host goes off
    const auto t0 = std::chrono::steady_clock::now();
    while (controllers_of(kHostC) > 0 && std::chrono::steady_clock::now() - t0 < 1s)
        std::this_thread::sleep_for(20ms);
    EXPECT_EQ(controllers_of(kHostC), 0u) << "host C's controller outlived allow_any_host by a second";
    EXPECT_FALSE(io_works(**c));
    EXPECT_TRUE(io_works(**b));
}

TEST_F(Admission, PskHostIsRefusedInPlaintextOnAnOptionalListener) {
    const uint16_t lenient = free_port();
    start({{"listeners",
            {{{"trtype", "tcp"}, {"addr", "127.0.0.1"}, {"port", port_}, {"secure_channel", "optional"}},
             {{"trtype", "tcp"},
              {"addr", "127.0.0.1"},
              {"port", lenient},
              {"secure_channel", "optional"},
              {"allow_plaintext_psk_hosts", true}}}},
           {"hosts", {{{"nqn", kHostA}, {"tls_psk", tls::format_interchange(make_psk(5))}}}}});
    if (HasFatalFailure()) return;
    auto plain = Controller::connect(options(kHostA));
    ASSERT_FALSE(plain.ok()) << "a plaintext Connect claiming a PSK host was served";
    EXPECT_NE(plain.error().describe().find("Connect Invalid Host"), std::string::npos)
        << plain.error().describe();
    EXPECT_TRUE(log_has("has a TLS PSK and must use TLS")) << target_->log();
    // Plaintext discovery claiming the host is refused too.
    auto disc = Controller::connect(options(kHostA, NVME_DISC_SUBSYS_NAME));
    EXPECT_FALSE(disc.ok()) << "plaintext discovery as a PSK host was served";
    // The host itself, over TLS, and hosts without a PSK in plaintext are served.
    ConnectOptions t = options(kHostA);
    t.tls_psk = make_psk(5);
    auto tls = Controller::connect(t);
    ASSERT_TRUE(tls.ok()) << tls.error().describe();
    EXPECT_TRUE(io_works(**tls));
    auto other = Controller::connect(options(kHostB));
    ASSERT_TRUE(other.ok()) << other.error().describe();
    // A listener that allows it serves the PSK host in plaintext.
    ConnectOptions l = options(kHostA);
    l.port = lenient;
    auto allowed = Controller::connect(l);
    EXPECT_TRUE(allowed.ok()) << allowed.error().describe();
}

TEST_F(Admission, DiscoveryAsksHostsWithSecretsToAuthenticate) {
    start({{"hosts",
            {{{"nqn", kHostA}, {"dhchap_key", kKeyA}},
             // Host B has different secrets per subsystem: discovery cannot know which it brings.
             {{"nqn", kHostB}, {"subsystem", kSub}, {"dhchap_key", kKeyA}},
             {{"nqn", kHostB}, {"subsystem", kOther}, {"dhchap_key", kKeyB}}}}});
    if (HasFatalFailure()) return;
    auto listed = [](const DiscoveryLog &log, const std::string &nqn) {
        for (auto &e : log.entries)
            if (e.subtype == NVME_NQN_NVME && trim_field(e.subnqn, sizeof(e.subnqn)) == nqn) return true;
        return false;
    };
    // A peer claiming host A without its secret reads nothing.
    uint32_t result = 0;
    auto impostor = raw_admin(kHostA, NVME_DISC_SUBSYS_NAME, &result);
    ASSERT_NE(impostor, nullptr);
    EXPECT_NE(result & auth::kConnectAuthreqAtr, 0u) << "discovery did not ask host A to authenticate";
    nvmf_discovery_log hdr{};
    auto get = impostor->execute(cmd::get_log_page(NVME_LOG_LID_DISCOVER, 0, sizeof(hdr), 0),
                                 DataDir::kControllerToHost, &hdr, sizeof(hdr));
    ASSERT_TRUE(get.ok());
    EXPECT_EQ(get->sc(), NVME_SC_AUTH_REQUIRED);
    // Host A with its secret authenticates on discovery and reads both subsystems.
    ConnectOptions a = options(kHostA, NVME_DISC_SUBSYS_NAME);
    a.dhchap.secret = kKeyA;
    auto disc_a = Controller::connect(a);
    ASSERT_TRUE(disc_a.ok()) << disc_a.error().describe();
    auto log_a = (*disc_a)->discovery_log();
    ASSERT_TRUE(log_a.ok());
    EXPECT_TRUE(listed(*log_a, kSub) && listed(*log_a, kOther));
    // Host B gets plain discovery, without the subsystems its secrets protect.
    auto disc_b = Controller::connect(options(kHostB, NVME_DISC_SUBSYS_NAME));
    ASSERT_TRUE(disc_b.ok()) << disc_b.error().describe();
    auto log_b = (*disc_b)->discovery_log();
    ASSERT_TRUE(log_b.ok());
    EXPECT_FALSE(listed(*log_b, kSub) || listed(*log_b, kOther));
    // A host without secrets keeps plain discovery of everything it may reach.
    auto disc_c = Controller::connect(options(kHostC, NVME_DISC_SUBSYS_NAME));
    ASSERT_TRUE(disc_c.ok()) << disc_c.error().describe();
    auto log_c = (*disc_c)->discovery_log();
    ASSERT_TRUE(log_c.ok());
    EXPECT_TRUE(listed(*log_c, kSub) && listed(*log_c, kOther));
}

TEST(AdmissionOptions, AuthTimeoutBelowTheClockIsRefused) {
    const std::string bin = skiff::test::bin_dir() + "/skiff-target";
    CommandOutput bad =
        // No `timeout` before it: run_command puts a cross build's emulator in front of the command.
        run_command(bin + " --listen 127.0.0.1:0 --discovery none --auth-timeout-ms 50");
    EXPECT_NE(bad.exit_code, 0);
    EXPECT_NE(bad.output.find("--auth-timeout-ms 50: use 0 (off) or 100..3600000"), std::string::npos)
        << bad.output;
}

} // namespace
