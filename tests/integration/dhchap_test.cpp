// DH-HMAC-CHAP in-band authentication against the real skiff-target process, with skiff's
// initiator: every hash function x DH group in both directions, I/O queues that authenticate
// and re-authenticate, and each refusal (wrong secret, unknown hash, replayed transaction id,
// skipped step, malformed message, a controller that cannot prove itself) ends with a clear log
// line naming the host and only that queue closed.
#include "../support/build_paths.hpp"
#include "target_fixture.hpp"

#include "skiff/nvmeof/auth/dh_group.hpp"
#include "skiff/nvmeof/auth/hash.hpp"
#include "skiff/nvmeof/auth/messages.hpp"
#include "skiff/nvmeof/host/commands.hpp"
#include "skiff/nvmeof/host/dhchap.hpp"
#include "skiff/nvmeof/host/nvme_status.hpp"

#include <nlohmann/json.hpp>

#include <sys/stat.h>

#include <cstring>
#include <fstream>

using namespace skiff;
using namespace skiff::itest;
using namespace skiff::nvmeof;
using namespace skiff::nvmeof::host;
using json = nlohmann::json;

namespace {

const std::string kSub = "nqn.2026-11.io.skiff:auth";
const std::string kHostA = "nqn.2014-08.org.nvmexpress:uuid:7a6b1b0e-3c7e-4d5f-9c0a-00000000000a";
const std::string kHostB = "nqn.2014-08.org.nvmexpress:uuid:7a6b1b0e-3c7e-4d5f-9c0a-00000000000b";
// Printed by `nvme gen-dhchap-key` (nvme-cli 2.3): a SHA-256-transformed 32-byte key, an
// untransformed one, and a SHA-512-transformed 64-byte key.
const std::string kKeyA = "DHHC-1:01:WulleCBkG4oCs0iIC3Cit9gBDCLWiZ9PNXuhqytWkBIZkvGy:";
const std::string kKeyB = "DHHC-1:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR:";
const std::string kCtrlKey =
    "DHHC-1:03:8P2FavzGkeLRnJ4Xa+SxthFNNlhKJN8Fo62gUQZ01n41cGBy/zw00Nf3zLbyz914w2TB7971zZZwo0CTZ0XC/KReLMQ=:";

class Dhchap : public ::testing::Test {
  protected:
    void SetUp() override {
        char tmpl[] = "/tmp/skiff-dhchap-XXXXXX";
        ASSERT_NE(mkdtemp(tmpl), nullptr);
        dir_ = tmpl;
        socket_ = dir_ + "/ctl.sock";
        port_ = free_port();
        json doc = {{"target", {{"management_socket", socket_}}},
                    {"backends", {{{"name", "disk"}, {"kind", "ram"}, {"size", "16MiB"}}}},
                    {"subsystems", {{{"nqn", kSub}, {"namespaces", {{{"nsid", 1}, {"backend", "disk"}}}}}}},
                    {"listeners", {{{"trtype", "tcp"}, {"addr", "127.0.0.1"}, {"port", port_}}}},
                    {"discovery", nullptr},
                    {"hosts",
                     {{{"nqn", kHostA}, {"dhchap_key", kKeyA}, {"dhchap_ctrl_key", kCtrlKey}},
                      {{"nqn", kHostB}, {"dhchap_key", kKeyB}}}}};
        std::ofstream(dir_ + "/target.json") << doc.dump(2);
        target_ = std::make_unique<TargetProcess>(std::vector<std::string>{"--config", dir_ + "/target.json"},
                                                  port_);
        ASSERT_TRUE(target_->started()) << target_->log();
    }
    void TearDown() override {
        if (target_) {
            EXPECT_EQ(target_->stop(), 0);
            if (HasFailure()) std::cerr << target_->log();
        }
        std::filesystem::remove_all(dir_);
    }

    ConnectOptions options(const std::string &hostnqn, const std::string &secret,
                           const std::string &ctrl_secret = "", uint16_t io_queues = 0) const {
        ConnectOptions o;
        o.port = port_;
        o.subnqn = kSub;
        o.host.hostnqn = hostnqn;
        o.dhchap.secret = secret;
        o.dhchap.ctrl_secret = ctrl_secret;
        o.io_queues = io_queues;
        o.kato_ms = 0;
        o.timeout = std::chrono::seconds(10);
        return o;
    }

    // An admin queue connected by hand (no authentication run yet), for speaking the protocol.
    std::unique_ptr<TcpQueue> raw_admin(const std::string &hostnqn, uint32_t *connect_result = nullptr) {
        QueueConfig qc;
        qc.port = port_;
        qc.qid = 0;
        qc.queue_size = 32;
        auto q = TcpQueue::connect(qc);
        EXPECT_TRUE(q.ok());
        if (!q) return nullptr;
        HostIdentity id = HostIdentity::generate();
        id.hostnqn = hostnqn;
        auto c = fabrics_connect(**q, id, kSub, 0xFFFF, 0);
        EXPECT_TRUE(c.ok() && c->nvme_ok());
        if (connect_result && c) *connect_result = c->cqe.result;
        return std::move(q.value());
    }

    // The log line the target wrote for a failed authentication of `host`, or "".
    std::string failure_line(const std::string &host) const {
        std::istringstream in(target_->log());
        for (std::string line; std::getline(in, line);)
            if (line.find("authentication failed") != std::string::npos &&
                line.find(host) != std::string::npos)
                return line;
        return "";
    }

    // A read that checks the namespace still answers on this controller.
    static void expect_io_works(Controller &c) {
        std::vector<uint8_t> out(4096, 0x5A), in(4096);
        ASSERT_OK(c.write(0, 1, 8, 8, out.data(), 4096));
        ASSERT_OK(c.read(0, 1, 8, 8, in.data(), 4096));
        EXPECT_EQ(in, out);
    }

    std::string dir_, socket_;
    uint16_t port_ = 0;
    std::unique_ptr<TargetProcess> target_;
};

auth::Bytes negotiate(uint16_t tid) {
    auth::NegotiateMessage m{};
    m.hdr.auth_type = auth::kTypeCommon;
    m.hdr.auth_id = auth::kMsgNegotiate;
    m.hdr.t_id = tid;
    m.napd = 1;
    m.protocols[0].authid = auth::kAuthIdDhchap;
    m.protocols[0].halen = 1;
    m.protocols[0].idlist[0] = auth::kHashSha256;
    m.protocols[0].dhlen = 1;
    m.protocols[0].idlist[auth::kDhgroupListOffset] = auth::kDhNull;
    auth::Bytes out(sizeof(m));
    std::memcpy(out.data(), &m, sizeof(m));
    return out;
}

// The explanation code of the AUTH_Failure1 the controller answers with (0: not a Failure1).
uint8_t failure1_code(TcpQueue &q) {
    auto r = auth_receive(q, 512);
    EXPECT_TRUE(r.ok());
    if (!r) return 0;
    auth::FailureMessage f{};
    std::memcpy(&f, r->data(), sizeof(f));
    if (f.hdr.auth_type != auth::kTypeCommon || f.hdr.auth_id != auth::kMsgFailure1) return 0;
    EXPECT_EQ(f.rescode, auth::kReasonFailed);
    return f.rescode_exp;
}

// After a failure the controller closes the queue: a command then fails at the transport.
void expect_closed(TcpQueue &q) {
    auto c = q.execute(cmd::property_get(wire::kPropCap, true), DataDir::kNone, nullptr, 0,
                       std::chrono::seconds(5));
    EXPECT_FALSE(c.ok()) << "the queue still answers (status " << (c ? c->status() : 0) << ")";
}

TEST_F(Dhchap, EveryHashAndDhGroupInBothDirections) {
    auto check = [&](uint8_t hash, uint8_t group, bool bidi) {
        SCOPED_TRACE(std::string(auth::hash_name(hash)) + " " + std::string(auth::dh_group_name(group)) +
                     (bidi ? " bidirectional" : " unidirectional"));
        ConnectOptions o = options(kHostA, kKeyA, bidi ? kCtrlKey : "");
        o.dhchap.hashes = {hash};
        o.dhchap.dhgroups = {group};
        auto c = Controller::connect(o);
        ASSERT_TRUE(c.ok()) << c.error().describe();
        ASSERT_TRUE((*c)->admin_auth().has_value());
        EXPECT_EQ((*c)->admin_auth()->hash, hash);
        EXPECT_EQ((*c)->admin_auth()->dh_group, group);
        EXPECT_EQ((*c)->admin_auth()->bidirectional, bidi);
    };
    // Every hash both ways, without and with a DH exchange; then each larger group once
    // (bidirectional, the hashes in turn): the big groups' key generation is what costs time,
    // and ffdhe8192 alone takes about a second for both sides on a loaded machine.
    for (uint8_t hash : auth::all_hashes())
        for (uint8_t group : {auth::kDhNull, auth::kDhFfdhe2048})
            for (bool bidi : {false, true}) check(hash, group, bidi);
    const uint8_t big[] = {auth::kDhFfdhe3072, auth::kDhFfdhe4096, auth::kDhFfdhe6144, auth::kDhFfdhe8192};
    const std::vector<uint8_t> hashes(auth::all_hashes());
    for (size_t i = 0; i < std::size(big); ++i) check(hashes[i % hashes.size()], big[i], true);
    // The secrets are in the configuration, never in the log.
    const std::string log = target_->log();
    EXPECT_EQ(log.find(kKeyA.substr(10, 20)), std::string::npos);
    EXPECT_EQ(log.find(kCtrlKey.substr(10, 20)), std::string::npos);
    EXPECT_NE(log.find("authenticated: "), std::string::npos);
}

TEST_F(Dhchap, IoQueuesAuthenticateServeIoAndReauthenticate) {
    ConnectOptions o = options(kHostA, kKeyA, kCtrlKey, 2);
    o.dhchap.hashes = {auth::kHashSha512};
    o.dhchap.dhgroups = {auth::kDhFfdhe2048};
    auto c = Controller::connect(o);
    ASSERT_TRUE(c.ok()) << c.error().describe();
    ASSERT_EQ((*c)->io_queue_count(), 2u);
    expect_io_works(**c);
    // Host-initiated re-authentication on every established queue; I/O goes on.
    for (uint16_t qid = 0; qid <= 2; ++qid) {
        auto r = (*c)->reauthenticate(qid);
        ASSERT_TRUE(r.ok()) << "queue " << qid << ": " << r.error().describe();
        EXPECT_TRUE(r->bidirectional);
    }
    expect_io_works(**c);
}

TEST_F(Dhchap, WrongSecretIsRefusedWhileAnotherHostKeepsWorking) {
    auto good = Controller::connect(options(kHostB, kKeyB, "", 1));
    ASSERT_TRUE(good.ok()) << good.error().describe();
    auto bad = Controller::connect(options(kHostA, kKeyB)); // host A with B's secret
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.error().message.find("AUTH_Failure1: authentication failed"), std::string::npos)
        << bad.error().message;
    EXPECT_NE(failure_line(kHostA).find("wrong secret"), std::string::npos) << target_->log();
    expect_io_works(**good);
}

TEST_F(Dhchap, UnknownHashIsRefused) {
    ConnectOptions o = options(kHostA, kKeyA);
    o.dhchap.hashes = {0x07};
    auto c = Controller::connect(o);
    ASSERT_FALSE(c.ok());
    EXPECT_NE(c.error().message.find("hash function not usable"), std::string::npos) << c.error().message;
    EXPECT_NE(failure_line(kHostA).find("no hash function the host offers (7)"), std::string::npos)
        << target_->log();
}

TEST_F(Dhchap, DhGroupTheHostIsNotAllowedIsRefused) {
    // Host B's entry allows every group; restrict by what the host offers: an unknown id.
    ConnectOptions o = options(kHostB, kKeyB);
    o.dhchap.dhgroups = {0x09};
    auto c = Controller::connect(o);
    ASSERT_FALSE(c.ok());
    EXPECT_NE(c.error().message.find("DH group not usable"), std::string::npos) << c.error().message;
}

TEST_F(Dhchap, ReplayedTransactionIdClosesOnlyThatQueue) {
    auto c = Controller::connect(options(kHostB, kKeyB, "", 1));
    ASSERT_TRUE(c.ok()) << c.error().describe();
    // The admin queue ran transaction 1, I/O queue 1 transaction 2: replay 2 on that queue.
    auto sent = auth_send((*c)->io_queue(0), negotiate(2));
    ASSERT_TRUE(sent.ok() && sent->nvme_ok());
    EXPECT_EQ(failure1_code((*c)->io_queue(0)), auth::kExplIncorrectPayload);
    expect_closed((*c)->io_queue(0));
    EXPECT_NE(failure_line(kHostB).find("replays transaction id 2"), std::string::npos) << target_->log();
    // The admin queue of the same controller still answers.
    ASSERT_OK((*c)->identify_controller());
}

TEST_F(Dhchap, SkippedStepIsRefused) {
    uint32_t result = 0;
    auto q = raw_admin(kHostA, &result);
    ASSERT_NE(q, nullptr);
    EXPECT_TRUE(result & auth::kConnectAuthreqAtr) << "Connect response DW0 " << result;
    // DH-HMAC-CHAP_Success2 straight away: Negotiate, Challenge and Reply skipped.
    auth::Success2Message s{};
    s.hdr.auth_type = auth::kTypeDhchap;
    s.hdr.auth_id = auth::kMsgSuccess2;
    auto sent = auth_send(*q, auth::ByteView(reinterpret_cast<const uint8_t *>(&s), sizeof(s)));
    ASSERT_TRUE(sent.ok() && sent->nvme_ok());
    EXPECT_EQ(failure1_code(*q), auth::kExplIncorrectMessage);
    expect_closed(*q);
    EXPECT_NE(failure_line(kHostA).find("while expecting AUTH_Negotiate"), std::string::npos)
        << target_->log();
}

TEST_F(Dhchap, UnauthenticatedQueueGetsOnlyAuthenticationCommands) {
    auto q = raw_admin(kHostA);
    ASSERT_NE(q, nullptr);
    auto prop = q->execute(cmd::property_get(wire::kPropCap, true));
    ASSERT_TRUE(prop.ok());
    EXPECT_EQ(prop->sct(), NVME_SCT_CMD_SPECIFIC);
    EXPECT_EQ(prop->sc(), NVME_SC_AUTH_REQUIRED);
    nvme_id_ctrl id{};
    auto ident =
        q->execute(cmd::identify(NVME_IDENTIFY_CNS_CTRL, 0), DataDir::kControllerToHost, &id, sizeof(id));
    ASSERT_TRUE(ident.ok());
    EXPECT_EQ(ident->sc(), NVME_SC_AUTH_REQUIRED);
    // A wrong security protocol is an Invalid Field, and the queue stays.
    wire::Sqe bad = cmd::auth_send(8);
    reinterpret_cast<auth::AuthCmd &>(bad).secp = 0xEA;
    uint8_t zeros[8] = {};
    auto r = q->execute(bad, DataDir::kHostToController, zeros, 8);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->sc(), NVME_SC_INVALID_FIELD);
    // Then authenticating works on the same queue.
    HostIdentity id2;
    id2.hostnqn = kHostA;
    DhchapOptions d;
    d.secret = kKeyA;
    ASSERT_OK(dhchap_authenticate(*q, id2, kSub, d, 9));
    auto after = q->execute(cmd::property_get(wire::kPropCap, true));
    ASSERT_TRUE(after.ok());
    EXPECT_TRUE(after->nvme_ok());
}

TEST_F(Dhchap, MalformedMessageIsRefused) {
    auto q = raw_admin(kHostB);
    ASSERT_NE(q, nullptr);
    const uint8_t stub[3] = {0, 0, 0};
    auto sent = auth_send(*q, stub);
    ASSERT_TRUE(sent.ok() && sent->nvme_ok());
    EXPECT_EQ(failure1_code(*q), auth::kExplIncorrectPayload);
    expect_closed(*q);
    EXPECT_NE(failure_line(kHostB).find("shorter than its header"), std::string::npos) << target_->log();
}

TEST_F(Dhchap, ControllerWithoutTheHostsControllerSecretGetsFailure2) {
    auto c = Controller::connect(options(kHostA, kKeyA, kKeyB)); // the host expects B as controller key
    ASSERT_FALSE(c.ok());
    EXPECT_NE(c.error().message.find("does not match the controller secret"), std::string::npos)
        << c.error().message;
    EXPECT_NE(failure_line(kHostA).find("AUTH_Failure2"), std::string::npos) << target_->log();
}

TEST_F(Dhchap, BidirectionalWithoutAConfiguredControllerKeyIsRefused) {
    auto c = Controller::connect(options(kHostB, kKeyB, kCtrlKey));
    ASSERT_FALSE(c.ok());
    EXPECT_NE(failure_line(kHostB).find("no dhchap_ctrl_key"), std::string::npos) << target_->log();
}

TEST_F(Dhchap, HostWithoutSecretIsTurnedAway) {
    auto c = Controller::connect(options(kHostA, ""));
    ASSERT_FALSE(c.ok());
    EXPECT_NE(c.error().message.find("requires DH-HMAC-CHAP"), std::string::npos) << c.error().message;
}

TEST_F(Dhchap, SkiffCtlSetsSecretsAndNeverShowsThem) {
    const std::string host_c = "nqn.2014-08.org.nvmexpress:uuid:7a6b1b0e-3c7e-4d5f-9c0a-00000000000c";
    auto add = run_command(skiff::test::bin_dir() + "/skiff-ctl --socket " + socket_ + " host add " + kSub +
                           " " + host_c + " --dhchap-key " + kKeyB + " --dhchap-hash sha384");
    ASSERT_EQ(add.exit_code, 0) << add.output;
    ConnectOptions o = options(host_c, kKeyB);
    auto c = Controller::connect(o);
    ASSERT_TRUE(c.ok()) << c.error().describe();
    EXPECT_EQ((*c)->admin_auth()->hash, auth::kHashSha384);
    auto list = run_command(skiff::test::bin_dir() + "/skiff-ctl --socket " + socket_ + " list");
    ASSERT_EQ(list.exit_code, 0) << list.output;
    EXPECT_EQ(list.output.find("DHHC-1"), std::string::npos) << list.output;
    EXPECT_NE(list.output.find("(set, not shown)"), std::string::npos) << list.output;
    // The saved file holds the secrets, readable by its owner only.
    const std::string saved = dir_ + "/saved.json";
    auto save = run_command(skiff::test::bin_dir() + "/skiff-ctl --socket " + socket_ + " save " + saved);
    ASSERT_EQ(save.exit_code, 0) << save.output;
    struct stat st {};
    ASSERT_EQ(::stat(saved.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u);
    std::ifstream in(saved);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_NE(text.find(kKeyB), std::string::npos);
}

} // namespace
