// Live management against the real skiff-target process: skiff-ctl over the Unix socket, a
// connected initiator receiving the namespace-changed event, bad requests, save + reload, SIGHUP.
#include "../support/build_paths.hpp"
#include "async_events.hpp"
#include "target_fixture.hpp"

#include <nlohmann/json.hpp>

#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <optional>
#include <cstring>
#include <fstream>
#include <thread>

namespace skiff::itest {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;
namespace fs = std::filesystem;
namespace host = nvmeof::host;

const std::string kSub = "nqn.2026-11.io.skiff:managed";

using CtlResult = CommandOutput;

// Runs skiff-ctl with its stdout and stderr captured.
CtlResult ctl(const std::string &socket, const std::string &args) {
    return run_command(skiff::test::bin_dir() + "/skiff-ctl --socket " + socket + " " + args);
}

class ManagementTest : public ::testing::Test {
  protected:
    void SetUp() override {
        char tmpl[] = "/tmp/skiff-mgmt-XXXXXX";
        dir_ = ::mkdtemp(tmpl);
        socket_ = dir_ + "/ctl.sock";
        config_path_ = dir_ + "/target.json";
        port_ = free_port();
    }
    void TearDown() override {
        target_.reset();
        fs::remove_all(dir_);
    }

    json config() const {
        return {{"target", {{"cores", 2}, {"management_socket", socket_}}},
                {"backends", {{{"name", "ram1"}, {"kind", "ram"}, {"size", "16MiB"}}}},
                {"subsystems", {{{"nqn", kSub}, {"namespaces", {{{"nsid", 1}, {"backend", "ram1"}}}}}}},
                {"listeners", {{{"trtype", "tcp"}, {"addr", "127.0.0.1"}, {"port", port_}}}},
                {"discovery", nullptr}};
    }
    void write_config(const json &doc) { std::ofstream(config_path_) << doc.dump(2); }
    void start(const std::vector<std::string> &args) {
        target_ = std::make_unique<TargetProcess>(args, port_);
        ASSERT_TRUE(target_->started()) << target_->log();
    }
    std::unique_ptr<host::Controller> connect() {
        host::ConnectOptions o;
        o.port = port_;
        o.subnqn = kSub;
        o.kato_ms = 0; // no keep-alive thread: the test drives the admin queue itself
        o.auto_keep_alive = false;
        o.timeout = 10s;
        auto c = host::Controller::connect(o);
        EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.error().describe());
        return c.ok() ? std::move(c.value()) : nullptr;
    }
    // Polls skiff-ctl list until pred holds (bounded; the result is what the test checks).
    bool wait_for_config(const std::function<bool(const json &)> &pred) {
        for (int i = 0; i < 100; ++i) {
            CtlResult r = ctl(socket_, "list");
            if (r.exit_code == 0 && pred(json::parse(r.output)["config"])) return true;
            std::this_thread::sleep_for(100ms);
        }
        return false;
    }

    std::string dir_, socket_, config_path_;
    uint16_t port_ = 0;
    std::unique_ptr<TargetProcess> target_;
};

TEST_F(ManagementTest, AddAndRemoveNamespaceRaiseTheEventOnAConnectedHost) {
    write_config(config());
    start({"--config", config_path_});
    auto host = connect();
    ASSERT_NE(host, nullptr);
    ASSERT_TRUE(host->set_features(NVME_FEAT_FID_ASYNC_EVENT, 1u << 8).ok());
    uint16_t aer = park_aer(*host);

    CtlResult add = ctl(socket_, "namespace add " + kSub + " --nsid 2 --kind ram --size 8MiB");
    ASSERT_EQ(add.exit_code, 0) << add.output;
    EXPECT_NE(add.output.find("added namespace 2 (ram) to " + kSub), std::string::npos) << add.output;
    auto result = wait_aer(*host, aer);
    ASSERT_TRUE(result) << "no namespace-changed event";
    EXPECT_EQ(*result, uint32_t(NVME_AER_NOTICE | (NVME_LOG_LID_CHANGED_NS << 16)));
    EXPECT_EQ(changed_list(*host), std::vector<uint32_t>{2});
    EXPECT_EQ(*host->active_namespaces(), (std::vector<uint32_t>{1, 2}));
    std::vector<uint8_t> out(4096, 0x5A), in(4096);
    ASSERT_TRUE(host->write(0, 2, 8, 8, out.data(), 4096).ok());
    ASSERT_TRUE(host->read(0, 2, 8, 8, in.data(), 4096).ok());
    EXPECT_EQ(in, out);

    aer = park_aer(*host);
    CtlResult rm = ctl(socket_, "namespace remove " + kSub + " 2");
    ASSERT_EQ(rm.exit_code, 0) << rm.output;
    ASSERT_TRUE(wait_aer(*host, aer)) << "no event for the removal";
    EXPECT_EQ(changed_list(*host), std::vector<uint32_t>{2});
    EXPECT_EQ(*host->active_namespaces(), std::vector<uint32_t>{1});
    EXPECT_FALSE(host->read(0, 2, 8, 8, in.data(), 4096).ok()) << "the removed namespace still answers";
    EXPECT_TRUE(host->read(0, 1, 8, 8, in.data(), 4096).ok());

    CtlResult ctrls = ctl(socket_, "controllers");
    ASSERT_EQ(ctrls.exit_code, 0) << ctrls.output;
    json c = json::parse(ctrls.output);
    ASSERT_EQ(c.size(), 1u);
    EXPECT_EQ(c[0]["subsystem"], kSub);
    ASSERT_EQ(c[0]["queues"].size(), 2u); // admin + one I/O queue
    EXPECT_GE(c[0]["queues"][1]["read_commands"].get<uint64_t>(), 2u);
    EXPECT_GE(c[0]["queues"][1]["write_commands"].get<uint64_t>(), 1u);
}

TEST_F(ManagementTest, BadRequestsGetClearErrorsAndChangeNothing) {
    write_config(config());
    start({"--config", config_path_});
    CtlResult r = ctl(socket_, "namespace add " + kSub + " --nsid 2 --kind tape --size 8MiB");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(
        r.output.find("backends[1].kind: unknown backend kind \"tape\"; expected one of ram, null, aio"),
        std::string::npos)
        << r.output;
    r = ctl(socket_, "namespace add " + kSub + " --nsid 1 --kind ram --size 8MiB");
    EXPECT_NE(r.output.find("subsystems[0].namespaces[1].nsid: 1 is already used in this subsystem"),
              std::string::npos)
        << r.output;
    r = ctl(socket_, "namespace remove " + kSub + " 7");
    EXPECT_NE(r.output.find("params.nsid: no namespace 7 in " + kSub), std::string::npos) << r.output;
    r = ctl(socket_, "subsystem remove nqn.2026-11.io.skiff:nope");
    EXPECT_NE(r.output.find("params.nqn: no subsystem named \"nqn.2026-11.io.skiff:nope\""),
              std::string::npos)
        << r.output;
    r = ctl(socket_, "call frobnicate");
    EXPECT_NE(r.output.find("unknown method \"frobnicate\""), std::string::npos) << r.output;
    r = ctl(socket_, "call namespace.remove '{\"nqn\": 5}'");
    EXPECT_NE(r.output.find("params.nqn: expected a subsystem NQN, got 5"), std::string::npos) << r.output;
    r = ctl(socket_, "call config.apply '{\"config\": {\"target\": {\"cores\": 1}}}'");
    EXPECT_NE(r.output.find("refused: target.cores: changing the number of poll groups needs a restart"),
              std::string::npos)
        << r.output;

    // Raw JSON-RPC: the error codes.
    int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::strncpy(a.sun_path, socket_.c_str(), sizeof(a.sun_path) - 1);
    ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr *>(&a), sizeof(a)), 0);
    auto ask = [&](const std::string &line) {
        EXPECT_EQ(::write(fd, line.data(), line.size()), ssize_t(line.size()));
        std::string in;
        char buf[4096];
        while (in.find('\n') == std::string::npos) {
            ssize_t n = ::read(fd, buf, sizeof(buf));
            if (n <= 0) break;
            in.append(buf, size_t(n));
        }
        return json::parse(in);
    };
    EXPECT_EQ(ask("{not json\n")["error"]["code"], -32700);
    EXPECT_EQ(ask("{\"id\": 4, \"method\": \"list\"}\n")["error"]["code"], -32600);
    json unknown = ask("{\"jsonrpc\": \"2.0\", \"id\": 5, \"method\": \"nope\"}\n");
    EXPECT_EQ(unknown["error"]["code"], -32601);
    EXPECT_EQ(unknown["id"], 5);
    json ok = ask("{\"jsonrpc\": \"2.0\", \"id\": 6, \"method\": \"list\"}\n");
    EXPECT_EQ(ok["result"]["config"]["subsystems"][0]["namespaces"].size(), 1u) << "nothing changed";
    ::close(fd);
}

TEST_F(ManagementTest, SavedConfigurationLoadsAgain) {
    write_config(config());
    start({"--config", config_path_});
    ASSERT_EQ(ctl(socket_, "namespace add " + kSub + " --nsid 3 --kind null --size 1GiB --block-size 4096")
                  .exit_code,
              0);
    ASSERT_EQ(ctl(socket_, "host add " + kSub +
                               " nqn.2014-08.org.nvmexpress:uuid:8f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b")
                  .exit_code,
              0);
    std::string saved = dir_ + "/saved.json";
    CtlResult s = ctl(socket_, "save " + saved);
    ASSERT_EQ(s.exit_code, 0) << s.output;
    json before = json::parse(ctl(socket_, "list").output)["config"];
    ASSERT_EQ(target_->stop(), 0);

    CtlResult check = run_command(target_binary() + " --check-config " + saved);
    EXPECT_EQ(check.exit_code, 0) << check.output;
    EXPECT_NE(check.output.find("namespace 3: backend"), std::string::npos) << check.output;

    start({"--config", saved});
    json after = json::parse(ctl(socket_, "list").output)["config"];
    EXPECT_EQ(after, before);
}

TEST_F(ManagementTest, SighupAppliesTheFileOrRefusesItWhole) {
    json doc = config();
    write_config(doc);
    start({"--config", config_path_});
    // Applied: a namespace and a second listener.
    doc["backends"].push_back({{"name", "ram2"}, {"kind", "ram"}, {"size", "8MiB"}});
    doc["subsystems"][0]["namespaces"].push_back({{"nsid", 2}, {"backend", "ram2"}});
    uint16_t second = free_port();
    doc["listeners"].push_back({{"trtype", "tcp"}, {"addr", "127.0.0.1"}, {"port", second}});
    write_config(doc);
    ASSERT_EQ(::kill(target_->pid(), SIGHUP), 0);
    EXPECT_TRUE(wait_for_config([](const json &c) { return c["subsystems"][0]["namespaces"].size() == 2; }));
    host::ConnectOptions o;
    o.port = second;
    o.subnqn = kSub;
    o.timeout = 10s;
    auto via_second = host::Controller::connect(o);
    ASSERT_TRUE(via_second.ok()) << via_second.error().describe();
    EXPECT_EQ(*(*via_second)->active_namespaces(), (std::vector<uint32_t>{1, 2}));

    // Refused: an invalid file (nothing of it applies), then a change that needs a restart.
    json bad = doc;
    bad["subsystems"][0]["namespaces"].push_back({{"nsid", 3}, {"backend", "ram9"}});
    bad["listeners"].erase(1);
    write_config(bad);
    ASSERT_EQ(::kill(target_->pid(), SIGHUP), 0);
    json restart = doc;
    restart["target"]["cores"] = 1;
    for (int i = 0; i < 100 && target_->log().find("no backend named \"ram9\"") == std::string::npos; ++i)
        std::this_thread::sleep_for(100ms);
    EXPECT_NE(target_->log().find("reload refused, nothing changed"), std::string::npos) << target_->log();
    EXPECT_NE(target_->log().find("subsystems[0].namespaces[2].backend: no backend named \"ram9\""),
              std::string::npos)
        << target_->log();
    write_config(restart);
    ASSERT_EQ(::kill(target_->pid(), SIGHUP), 0);
    for (int i = 0; i < 100 && target_->log().find("target.cores") == std::string::npos; ++i)
        std::this_thread::sleep_for(100ms);
    EXPECT_NE(target_->log().find("target.cores: changing the number of poll groups needs a restart"),
              std::string::npos)
        << target_->log();
    json now = json::parse(ctl(socket_, "list").output);
    EXPECT_EQ(now["config"]["subsystems"][0]["namespaces"].size(), 2u);
    EXPECT_EQ(now["listeners"].size(), 2u) << "the refused file's listener removal did not happen";
    EXPECT_EQ(now["config"]["target"]["cores"], 2);
}

} // namespace
} // namespace skiff::itest
