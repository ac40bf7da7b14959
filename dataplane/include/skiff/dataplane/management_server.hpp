// Live management: JSON-RPC 2.0 on a Unix stream socket, one request and one response per
// line, served by one small thread (skiff-ctl is the client; config/README.md lists the
// methods). Each change is an edit of the running configuration, validated like a file and
// applied through LiveConfig, so a bad request changes nothing and says why. The same thread
// destroys removed namespaces once they are quiescent.
#pragma once

#include "skiff/core/status.hpp"
#include "skiff/dataplane/live_config.hpp"

// nlohmann::json declared only: the files that build or read documents include <nlohmann/json.hpp>.
#include <nlohmann/json_fwd.hpp>

#include <sys/types.h>

#include <atomic>
#include <functional>
#include <string>
#include <thread>

namespace skiff::dataplane {

// JSON-RPC error codes (the spec's, plus one of ours for refused changes).
constexpr int kRpcParseError = -32700;
constexpr int kRpcInvalidRequest = -32600;
constexpr int kRpcMethodNotFound = -32601;
constexpr int kRpcInvalidParams = -32602;
constexpr int kRpcRefused = -32000;      // valid, but the running target cannot apply it
constexpr int kRpcNotPermitted = -32001; // the caller may not manage this target (management_peer.hpp)

class ManagementServer {
  public:
    using Reload = std::function<Result<std::vector<std::string>>()>;
    ManagementServer(LiveConfig &live, std::string socket_path, Reload reload);
    ~ManagementServer();

    // Binds the socket (replacing a stale one), mode 0660 with the management group
    // (management_peer.hpp), and starts the thread.
    Status start();
    void stop();

    // One request object -> one response object (also used by tests without a socket).
    nlohmann::json handle(const nlohmann::json &request);
    // One line off the socket (any bytes) -> the response line, without its newline.
    std::string handle_line(const std::string &line);

  private:
    void run();
    // Whether the peer of a new connection may manage this target; if not, it gets one refusal
    // line and the connection is closed.
    bool admit(int fd);
    nlohmann::json dispatch(const std::string &method, const nlohmann::json &params);

    LiveConfig &live_;
    std::string path_;
    Reload reload_;
    gid_t group_ = 0; // the socket file's group, whose members may manage
    int listen_fd_ = -1;
    int wake_fd_ = -1;
    std::thread thread_;
};

} // namespace skiff::dataplane
