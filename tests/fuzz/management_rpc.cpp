// Fuzz harness: the JSON-RPC management server's request handling (what skiff-ctl, or anything
// that can open the management socket, sends): one line per request through
// ManagementServer::handle_line against a running target (a TargetService with one poll group,
// RAM backends, one loopback listener), which applies every accepted change live.
//
// Input: request lines separated by '\n' (at most 8 per input). Lines that could touch the
// machine outside the target are skipped, not sent: "save" (writes a file wherever it is told),
// and anything naming a file backend ("aio", "hostmem", "path", "file").
// Properties: every line gets exactly one JSON-RPC response object (a result or an error, never
// an exception out of the server), and after the input the initial configuration applies again.
#include "fuzz_input.hpp"
#include "fuzz_target.hpp"
#include "skiff/config/load.hpp"
#include "skiff/config/save.hpp"
#include "skiff/dataplane/live_config.hpp"
#include "skiff/dataplane/management_server.hpp"
#include "skiff/dataplane/target_service.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <memory>

using namespace skiff;
using nlohmann::json;

namespace {

const char *kInitial = R"({
  "backends": [{"name": "r1", "kind": "ram", "size": "1MiB"}, {"name": "r2", "kind": "ram", "size": "1MiB"}],
  "subsystems": [{"nqn": "nqn.2026-11.io.skiff:fuzz-rpc", "namespaces": [{"nsid": 1, "backend": "r1"}]}],
  "listeners": [{"trtype": "tcp", "addr": "127.0.0.1", "port": 0}]
})";

struct Running {
    Running()
        : cfg(*config::parse_config_text(kInitial).config), target(dataplane::limits_from(cfg.transport())),
          live(target, cfg) {
        if (!live.build().ok()) std::abort();
        dataplane::ServiceOptions o;
        o.poll_groups = 1;
        service = std::make_unique<dataplane::TargetService>(target, o);
        if (!service->start().ok() || !live.attach(*service).ok()) std::abort();
        server = std::make_unique<dataplane::ManagementServer>(live, "", [this]() {
            // A reload reads the configuration file again: here, the initial one.
            return live.apply(cfg);
        });
    }
    config::Config cfg;
    nvmeof::target::Target target;
    dataplane::LiveConfig live;
    std::unique_ptr<dataplane::TargetService> service;
    std::unique_ptr<dataplane::ManagementServer> server;
};

Running &running() {
    static Running *r = (fuzz::quiet_logs(), new Running); // lives for the process (threads)
    return *r;
}

bool touches_the_machine(std::string line) {
    std::transform(line.begin(), line.end(), line.begin(), [](unsigned char c) { return std::tolower(c); });
    for (const char *word : {"save", "aio", "hostmem", "path", "file"})
        if (line.find(word) != std::string::npos) return true;
    return false;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    auto &r = running();
    std::string text(reinterpret_cast<const char *>(data), size);
    size_t pos = 0;
    for (int n = 0; n < 8 && pos <= text.size(); ++n) {
        size_t nl = text.find('\n', pos);
        std::string line = text.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
        pos = nl == std::string::npos ? text.size() + 1 : nl + 1;
        if (touches_the_machine(line)) continue;
        std::string out = r.server->handle_line(line);
        json resp = json::parse(out, nullptr, false);
        SKIFF_FUZZ_CHECK(!resp.is_discarded() && resp.is_object());
        SKIFF_FUZZ_CHECK(resp.contains("result") != resp.contains("error"));
        SKIFF_FUZZ_CHECK(resp.value("jsonrpc", "") == "2.0");
    }
    // Back to the initial configuration for the next input.
    auto back = r.live.apply(r.cfg);
    SKIFF_FUZZ_CHECK(back.ok());
    r.live.reap();
    return 0;
}
