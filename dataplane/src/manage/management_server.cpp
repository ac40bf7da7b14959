#include "skiff/dataplane/management_server.hpp"

#include "namespace_qos.hpp"

#include "skiff/config/load.hpp"
#include "skiff/config/save.hpp"
#include "skiff/core/log.hpp"
#include "skiff/dataplane/error_device.hpp"
#include "skiff/dataplane/management_peer.hpp"
#include "skiff/dataplane/stats/io_stats.hpp"
#include "skiff/nvmeof/transport/ip_address.hpp"
#include "skiff/nvmeof/wire/command.hpp"

#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>

namespace skiff::dataplane {

using nlohmann::json;

namespace {

// An error the handler reports as a JSON-RPC error object.
struct RpcError {
    int code;
    std::string message;
    json data = nullptr;
};

const json &param(const json &params, const char *key, json::value_t type, const char *expected) {
    auto it = params.find(key);
    if (it == params.end())
        throw RpcError{kRpcInvalidParams, std::string("params.") + key + ": missing; expected " + expected};
    bool ok = it->type() == type ||
              (type == json::value_t::number_unsigned && it->is_number_integer() && it->get<int64_t>() >= 0);
    if (!ok)
        throw RpcError{kRpcInvalidParams,
                       std::string("params.") + key + ": expected " + expected + ", got " + it->dump()};
    return *it;
}

std::string str(const json &params, const char *key, const char *expected) {
    return param(params, key, json::value_t::string, expected).get<std::string>();
}

// params.addr of a listener or referral in its canonical form, as the configuration keeps
// addresses, so "0:0::1" finds the listener on "::1". Text that is no address stays as it is: it
// matches nothing, and the validator names it when it is added.
std::string addr_param(const json &params, const char *expected) {
    const std::string addr = str(params, "addr", expected);
    return nvmeof::transport::canonical_ip(addr).value_or(addr);
}

// params.port: 0..65535.
uint16_t port_param(const json &params, const char *expected) {
    uint64_t port = param(params, "port", json::value_t::number_unsigned, expected).get<uint64_t>();
    if (port > UINT16_MAX)
        throw RpcError{kRpcInvalidParams, std::string("params.port: expected ") + expected +
                                              " 0..65535, got " + std::to_string(port)};
    return static_cast<uint16_t>(port);
}

// An optional parameter of a given type: `fallback` when absent, an error naming it when present
// with another type (json::value would throw a type_error out of the server instead).
bool opt_bool(const json &params, const char *key, bool fallback) {
    return params.contains(key) ? param(params, key, json::value_t::boolean, "true or false").get<bool>()
                                : fallback;
}
std::string opt_str(const json &params, const char *key, const std::string &fallback, const char *expected) {
    return params.contains(key) ? str(params, key, expected) : fallback;
}

// The entry of doc[section] whose `key` equals value, or end.
json::iterator find_entry(json &doc, const char *section, const char *key, const json &value) {
    json &list = doc[section];
    for (auto it = list.begin(); it != list.end(); ++it)
        if (it->value(key, json()) == value) return it;
    return list.end();
}

json &subsystem_entry(json &doc, const std::string &nqn) {
    auto it = find_entry(doc, "subsystems", "nqn", nqn);
    if (it == doc["subsystems"].end())
        throw RpcError{kRpcInvalidParams, "params.nqn: no subsystem named \"" + nqn + "\""};
    return *it;
}

// The namespace entry of subsystem entry `s` that params.nsid names (namespace.remove,
// namespace.resize, namespace.host_add / host_remove / visibility, qos.set).
json::iterator namespace_entry(json &s, const json &params) {
    uint64_t nsid = param(params, "nsid", json::value_t::number_unsigned, "a namespace id").get<uint64_t>();
    auto it = find_entry(s, "namespaces", "nsid", nsid);
    if (it == s["namespaces"].end())
        throw RpcError{kRpcInvalidParams, "params.nsid: no namespace " + std::to_string(nsid) + " in " +
                                              s["nqn"].get<std::string>()};
    return it;
}

void remove_backend(json &doc, const std::string &name) {
    auto it = find_entry(doc, "backends", "name", name);
    if (it != doc["backends"].end()) doc["backends"].erase(it);
}

const char *kMethods = "list, controllers, connections, io_stats, subsystem.add, subsystem.remove, "
                       "namespace.add, namespace.remove, namespace.resize, namespace.host_add, "
                       "namespace.host_remove, namespace.visibility, qos.set, qos.show, "
                       "backend.add, backend.remove, listener.add, listener.remove, host.add, host.remove, "
                       "ana.set, referral.add, referral.remove, config.apply, save, reload, error.inject";

// namespace.host_add / namespace.host_remove {"nqn", "nsid", "host"}: a host that sees a namespace
// of listed hosts (visible_hosts), or no longer does. A namespace every host sees has no list to
// add to: namespace.visibility {"nqn", "nsid", "all_hosts": false} gives it one (empty).
void namespace_hosts_edit(json &doc, const json &params, bool add) {
    json &s = subsystem_entry(doc, str(params, "nqn", "a subsystem NQN"));
    json &ns = *namespace_entry(s, params);
    const std::string host = str(params, "host", "a host NQN");
    const std::string which = "namespace " + ns["nsid"].dump() + " of " + s["nqn"].get<std::string>();
    if (!ns.contains("visible_hosts"))
        throw RpcError{kRpcInvalidParams,
                       "params.nsid: " + which +
                           " is visible to every host; make it visible to listed hosts only first "
                           "(namespace.visibility with all_hosts false, skiff-ctl namespace visibility "
                           "--listed-hosts)"};
    json &list = ns["visible_hosts"];
    auto it = std::find(list.begin(), list.end(), host);
    if (add && it != list.end())
        throw RpcError{kRpcInvalidParams, "params.host: \"" + host + "\" already sees " + which};
    if (!add && it == list.end())
        throw RpcError{kRpcInvalidParams, "params.host: \"" + host + "\" is not a host that sees " + which};
    if (add)
        list.push_back(host);
    else
        list.erase(it);
}

// namespace.visibility {"nqn", "nsid", "all_hosts"}: every host sees the namespace (its host list
// goes), or only listed hosts (an empty list unless it has one: no host until host_add).
void namespace_visibility_edit(json &doc, const json &params) {
    json &ns = *namespace_entry(subsystem_entry(doc, str(params, "nqn", "a subsystem NQN")), params);
    if (param(params, "all_hosts", json::value_t::boolean, "true or false").get<bool>())
        ns.erase("visible_hosts");
    else if (!ns.contains("visible_hosts"))
        ns["visible_hosts"] = json::array();
}

// qos.set {"nqn", "nsid", "host"?, "clear"?, <limit>...}: changes the namespace's QoS limits (or,
// with "host", that host's limits on it). Limits not named stay; 0 removes one; "clear": true
// removes them all first. A limit is one of config::QosLimitsConfig's fields, as in the file.
void qos_set(json &doc, const json &params) {
    static constexpr const char *kLimits[] = {"rw_ios_per_sec",     "read_ios_per_sec",
                                              "write_ios_per_sec",  "rw_bytes_per_sec",
                                              "read_bytes_per_sec", "write_bytes_per_sec"};
    auto ns = namespace_entry(subsystem_entry(doc, str(params, "nqn", "a subsystem NQN")), params);
    for (auto &[key, value] : params.items()) {
        bool known = key == "nqn" || key == "nsid" || key == "host" || key == "clear";
        for (const char *k : kLimits) known |= key == k;
        if (!known)
            throw RpcError{kRpcInvalidParams,
                           "params." + key +
                               ": not a QoS limit; expected rw_, read_ or write_ "
                               "followed by ios_per_sec or bytes_per_sec (or host, clear)"};
    }
    json &qos = (*ns)["qos"];
    if (!qos.is_object()) qos = json::object();
    json *limits = &qos;
    if (params.contains("host")) {
        const std::string host = str(params, "host", "a host NQN");
        json &hosts = qos["hosts"];
        if (!hosts.is_array()) hosts = json::array();
        auto it = std::find_if(hosts.begin(), hosts.end(),
                               [&](const json &h) { return h.value("nqn", "") == host; });
        if (it == hosts.end()) {
            hosts.push_back({{"nqn", host}});
            it = hosts.end() - 1;
        }
        limits = &*it;
    }
    if (opt_bool(params, "clear", false))
        for (const char *k : kLimits) limits->erase(k);
    for (const char *k : kLimits) {
        if (!params.contains(k)) continue;
        const json &v = params[k];
        if (v.is_number_integer() && v.get<int64_t>() == 0)
            limits->erase(k);
        else
            (*limits)[k] = v; // checked with the whole configuration
    }
    // A host left without limits leaves the list.
    if (qos.contains("hosts")) {
        auto &hosts = qos["hosts"];
        hosts.erase(std::remove_if(hosts.begin(), hosts.end(), [](const json &h) { return h.size() <= 1; }),
                    hosts.end());
        if (hosts.empty()) qos.erase("hosts");
    }
}

// How long an ANA transition may keep a group in the change state: below ANATT (10 s, Identify
// Controller), which is how long a host waits before it gives the path up.
constexpr uint64_t kMaxAnaTransitionMs = 9000;

// The listener entry of doc on addr:port (trtype tcp unless given).
json &listener_entry(json &doc, const json &params) {
    std::string addr = addr_param(params, "the listener's IPv4 or IPv6 address");
    uint16_t port = port_param(params, "the listener's port");
    std::string trtype = params.value("trtype", "tcp");
    for (auto &l : doc["listeners"])
        if (l["addr"] == addr && l["port"] == port && l.value("trtype", "tcp") == trtype) return l;
    throw RpcError{kRpcInvalidParams,
                   "params: no " + trtype + " listener on " + nvmeof::transport::host_port(addr, port)};
}

// ana.set {"addr", "port", "trtype"?, "nqn"?, "group", "state"}: the listener's entry for
// (nqn, group) now says `state`; an entry that would only repeat what applies anyway is dropped,
// so a saved configuration lists exceptions only.
void ana_set(json &doc, const json &params) {
    json &l = listener_entry(doc, params);
    std::string nqn = params.contains("nqn") ? str(params, "nqn", "a subsystem NQN") : "";
    if (!nqn.empty()) (void)subsystem_entry(doc, nqn);
    uint64_t group =
        param(params, "group", json::value_t::number_unsigned, "an ANA group id 1..128").get<uint64_t>();
    std::string state =
        str(params, "state", "optimized, non-optimized, inaccessible, persistent-loss or change");
    json &list = l["ana"];
    if (!list.is_array()) list = json::array();
    for (auto it = list.begin(); it != list.end(); ++it)
        if (it->value("group", json()) == group && it->value("subsystem", std::string()) == nqn) {
            list.erase(it);
            break;
        }
    std::string inherited = "optimized";
    if (!nqn.empty())
        for (auto &e : list)
            if (e.value("group", json()) == group && !e.contains("subsystem"))
                inherited = e.value("state", "");
    if (state == inherited) return;
    json e = {{"group", group}, {"state", state}};
    if (!nqn.empty()) e["subsystem"] = nqn;
    list.push_back(e);
}

// referral.add / referral.remove {"addr", "port"?, "trtype"?}.
void referral_edit(json &doc, const json &params, bool add) {
    json r = {{"trtype", params.value("trtype", "tcp")},
              {"addr", addr_param(params, "the other target's discovery address")},
              {"port", params.contains("port") ? port_param(params, "the other target's discovery port")
                                               : uint16_t(8009)}};
    json &list = doc["referrals"];
    if (!list.is_array()) list = json::array();
    auto it = std::find(list.begin(), list.end(), r);
    std::string what = r["trtype"].get<std::string>() + " " +
                       nvmeof::transport::host_port(r["addr"].get<std::string>(), r["port"].get<uint16_t>());
    if (add) {
        if (it != list.end()) throw RpcError{kRpcInvalidParams, "params: " + what + " is already a referral"};
        list.push_back(r);
    } else {
        if (it == list.end()) throw RpcError{kRpcInvalidParams, "params: " + what + " is not a referral"};
        list.erase(it);
    }
}

// error.inject {"backend": NAME, "op": "read"|"write"|"flush", "count": N, "status": 0x281,
// "dnr": false, "delay_us": 0}: arms the error backend NAME (runtime state, not configuration:
// `save` keeps the backend's configured "inject"). count 0 disarms. Answers what is armed now.
json error_inject(LiveConfig &live, const json &params) {
    std::string name = str(params, "backend", "the name of an error backend");
    auto dev = std::dynamic_pointer_cast<ErrorDevice>(live.device(name));
    if (!dev)
        throw RpcError{kRpcInvalidParams, "params.backend: \"" + name + "\" is not " +
                                              (live.device(name) ? "an error backend (kind \"error\")"
                                                                 : "the name of a backend")};
    std::string op_name = str(params, "op", "\"read\", \"write\" or \"flush\"");
    InjectOp op;
    if (!parse_inject_op(op_name.c_str(), op))
        throw RpcError{kRpcInvalidParams,
                       "params.op: expected \"read\", \"write\" or \"flush\", got \"" + op_name + "\""};
    auto number = [&](const char *key, const char *what) {
        return params.contains(key) ? param(params, key, json::value_t::number_unsigned, what).get<uint64_t>()
                                    : 0;
    };
    uint64_t count =
        param(params, "count", json::value_t::number_unsigned, "a command count").get<uint64_t>();
    uint64_t code = number("status", "an NVMe status, SCT in bits 10:8 and SC in 7:0 (641 = 0x281)");
    uint64_t delay = number("delay_us", "microseconds");
    if (count > 0xFFFFFFFF || code > 0x7FF || delay > kMaxInjectDelayUs || (count && !code && !delay))
        throw RpcError{
            kRpcInvalidParams,
            "params: expected count <= 4294967295, a status <= 0x7ff (SCT in bits 10:8, SC in 7:0) "
            "and/or delay_us <= " +
                std::to_string(kMaxInjectDelayUs) + ", at least one of them non-zero; got count " +
                std::to_string(count) + ", status " + std::to_string(code) + ", delay_us " +
                std::to_string(delay)};
    uint16_t status =
        code ? nvmeof::wire::Status::make(static_cast<uint8_t>(code >> 8), static_cast<uint8_t>(code & 0xFF),
                                          opt_bool(params, "dnr", false))
             : 0;
    dev->inject(op, static_cast<uint32_t>(count), status, static_cast<uint32_t>(delay));
    skiff::log::get("manage")->info("error backend {}: the next {} {} command(s): delay {} us, status {:#x}",
                                    name, count, op_name, delay, code);
    json armed = json::object();
    for (InjectOp o : {InjectOp::kRead, InjectOp::kWrite, InjectOp::kFlush}) {
        uint16_t st = dev->status(o);
        armed[inject_op_name(o)] = {
            {"pending", dev->pending(o)},
            {"status", st ? (nvmeof::wire::Status::sct(st) << 8) | nvmeof::wire::Status::sc(st) : 0},
            {"delay_us", dev->delay_us(o)},
            {"injected", dev->injected(o)}};
    }
    return {{"backend", name}, {"armed", armed}};
}

} // namespace

ManagementServer::ManagementServer(LiveConfig &live, std::string socket_path, Reload reload)
    : live_(live), path_(std::move(socket_path)), reload_(std::move(reload)) {}

ManagementServer::~ManagementServer() {
    stop();
}

Status ManagementServer::start() {
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (path_.size() >= sizeof(addr.sun_path))
        return make_error(DOCA_ERROR_INVALID_VALUE, "management socket path too long: " + path_);
    std::strncpy(addr.sun_path, path_.c_str(), sizeof(addr.sun_path) - 1);
    listen_fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    ::unlink(path_.c_str()); // a stale socket from a previous run
    if (listen_fd_ < 0 || ::bind(listen_fd_, reinterpret_cast<sockaddr *>(&addr), sizeof(addr)) != 0)
        return make_error(DOCA_ERROR_OPERATING_SYSTEM,
                          "management socket " + path_ + ": " + std::strerror(errno));
    // The socket file's mode came from the umask (0777 under umask 000): set it before listen(),
    // so nobody can connect before it is 0660, owned by this user and the management group.
    group_ = management_group();
    if (::chmod(path_.c_str(), 0660) != 0)
        return make_error(DOCA_ERROR_OPERATING_SYSTEM,
                          "management socket " + path_ + ": chmod 0660: " + std::strerror(errno));
    if (::chown(path_.c_str(), uid_t(-1), group_) != 0) {
        // Not root and not a member of the "skiff" group: the socket keeps the group it was
        // created with, and that group's members are the ones the peer check lets in.
        const int why = errno;
        struct stat st {};
        const gid_t wanted = group_;
        group_ = ::stat(path_.c_str(), &st) == 0 ? st.st_gid : ::getegid();
        skiff::log::get("manage")->info(
            "management socket {}: cannot give it group {} ({}); it keeps group {}", path_, wanted,
            std::strerror(why), group_);
    }
    if (::listen(listen_fd_, 8) != 0)
        return make_error(DOCA_ERROR_OPERATING_SYSTEM,
                          "management socket " + path_ + ": " + std::strerror(errno));
    wake_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    thread_ = std::thread([this] { run(); });
    skiff::log::get("manage")->info(
        "management: JSON-RPC on {} (mode 0660, group {}; root, uid {} and group {} "
        "may manage)",
        path_, group_, ::geteuid(), group_);
    return Status::success();
}

void ManagementServer::stop() {
    if (thread_.joinable()) {
        uint64_t one = 1;
        [[maybe_unused]] ssize_t n = write(wake_fd_, &one, sizeof(one));
        thread_.join();
    }
    if (listen_fd_ >= 0) {
        ::close(listen_fd_);
        ::unlink(path_.c_str());
        listen_fd_ = -1;
    }
    if (wake_fd_ >= 0) ::close(wake_fd_);
    wake_fd_ = -1;
}

void ManagementServer::run() {
    struct Client {
        int fd;
        std::string in;
    };
    std::vector<Client> clients;
    for (;;) {
        std::vector<pollfd> fds = {{wake_fd_, POLLIN, 0}, {listen_fd_, POLLIN, 0}};
        for (auto &c : clients) fds.push_back({c.fd, POLLIN, 0});
        // Wake at least every 100 ms to destroy namespaces that became quiescent.
        ::poll(fds.data(), fds.size(), 100);
        live_.reap();
        live_.finish_ana_transitions();
        if (fds[0].revents) break;
        if (fds[1].revents & POLLIN) {
            int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
            if (fd >= 0 && admit(fd)) clients.push_back({fd, {}});
        }
        for (size_t i = 2; i < fds.size(); ++i) {
            if (!fds[i].revents) continue;
            Client &c = clients[i - 2];
            char buf[4096];
            ssize_t n = ::read(c.fd, buf, sizeof(buf));
            if (n <= 0) {
                ::close(c.fd);
                c.fd = -1;
                continue;
            }
            c.in.append(buf, size_t(n));
            size_t nl;
            while ((nl = c.in.find('\n')) != std::string::npos) {
                std::string line = c.in.substr(0, nl);
                c.in.erase(0, nl + 1);
                std::string out = handle_line(line) + "\n";
                for (size_t off = 0; off < out.size();) {
                    ssize_t w = ::write(c.fd, out.data() + off, out.size() - off);
                    if (w <= 0) break;
                    off += size_t(w);
                }
            }
        }
        std::erase_if(clients, [](const Client &c) { return c.fd < 0; });
    }
    for (auto &c : clients) ::close(c.fd);
}

bool ManagementServer::admit(int fd) {
    auto peer = peer_credentials(fd);
    if (peer && may_manage(*peer, ::geteuid(), group_)) return true;
    std::string why = peer ? peer->describe() + " is not root, uid " + std::to_string(::geteuid()) +
                                 " or a member of group " + std::to_string(group_)
                           : peer.error().message;
    skiff::log::get("manage")->warn("management: refused a connection: {}", why);
    // One answer line, so skiff-ctl can say why, then the connection closes.
    std::string out = json{{"jsonrpc", "2.0"},
                           {"id", nullptr},
                           {"error", {{"code", kRpcNotPermitted}, {"message", "not permitted: " + why}}}}
                          .dump() +
                      "\n";
    [[maybe_unused]] ssize_t n = ::send(fd, out.data(), out.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
    ::close(fd);
    return false;
}

std::string ManagementServer::handle_line(const std::string &line) {
    json req = json::parse(line, nullptr, false);
    json resp =
        req.is_discarded()
            ? json{{"jsonrpc", "2.0"},
                   {"id", nullptr},
                   {"error", {{"code", kRpcParseError}, {"message", "the request is not valid JSON"}}}}
            : handle(req);
    // A request may carry any bytes; the answer is JSON whatever they were (invalid UTF-8 in a
    // string echoed back becomes U+FFFD instead of an exception).
    return resp.dump(-1, ' ', false, json::error_handler_t::replace);
}

json ManagementServer::handle(const json &request) {
    json resp = {{"jsonrpc", "2.0"}, {"id", request.is_object() ? request.value("id", json()) : json()}};
    try {
        // Compared as JSON values: a member of another type is a wrong request, not an exception.
        if (!request.is_object() || !request.contains("jsonrpc") || request["jsonrpc"] != "2.0" ||
            !request.contains("method") || !request["method"].is_string())
            throw RpcError{
                kRpcInvalidRequest,
                "expected {\"jsonrpc\": \"2.0\", \"method\": \"...\", \"params\": {...}, \"id\": 1}"};
        json params = request.value("params", json::object());
        if (!params.is_object()) throw RpcError{kRpcInvalidParams, "params: expected an object"};
        resp["result"] = dispatch(request["method"].get<std::string>(), params);
    } catch (const RpcError &e) {
        resp["error"] = {{"code", e.code}, {"message", e.message}};
        if (!e.data.is_null()) resp["error"]["data"] = e.data;
    } catch (const json::exception &e) {
        // A member of an unexpected type that no check above caught: the request is wrong, the
        // server must answer and keep serving (an exception here would end the target).
        resp["error"] = {{"code", kRpcInvalidParams}, {"message", std::string("params: ") + e.what()}};
    }
    if (resp.contains("error")) {
        const json *m = request.is_object() && request.contains("method") ? &request["method"] : nullptr;
        skiff::log::get("manage")->warn("{}: {}",
                                        m && m->is_string() ? m->get<std::string>() : std::string("?"),
                                        resp["error"]["message"].get<std::string>());
    }
    return resp;
}

static bool has_secrets(const json &params) {
    return params.contains("dhchap_key") || params.contains("tls_psk");
}

// host.add may carry DH-HMAC-CHAP secrets and a TLS PSK: they go into the host's hosts[] entry
// (for this subsystem only with "per_subsystem": true). Secrets of one kind replace that kind
// in an existing entry (a new dhchap_key drops the old ctrl key, hashes and groups) and leave
// the other kind as it was. host.remove drops the entry for this subsystem.
static void set_host_secrets(json &doc, bool add, const std::string &nqn, const std::string &host,
                             const json &params) {
    if (!doc.contains("hosts")) doc["hosts"] = json::array();
    auto &hosts = doc["hosts"];
    const bool per_subsystem = params.value("per_subsystem", false);
    auto matches = [&](const json &h, bool specific) {
        return h.value("nqn", "") == host && h.value("subsystem", "") == (specific ? nqn : "");
    };
    if (!add) {
        hosts.erase(
            std::remove_if(hosts.begin(), hosts.end(), [&](const json &h) { return matches(h, true); }),
            hosts.end());
        return;
    }
    if (!has_secrets(params)) return;
    auto it =
        std::find_if(hosts.begin(), hosts.end(), [&](const json &h) { return matches(h, per_subsystem); });
    if (it == hosts.end()) {
        json entry = {{"nqn", host}};
        if (per_subsystem) entry["subsystem"] = nqn;
        hosts.push_back(entry);
        it = hosts.end() - 1;
    }
    json &entry = *it;
    static constexpr const char *kDhchap[] = {"dhchap_key", "dhchap_ctrl_key", "dhchap_hashes",
                                              "dhchap_dhgroups"};
    if (params.contains("dhchap_key"))
        for (const char *key : kDhchap) {
            entry.erase(key);
            if (params.contains(key)) entry[key] = params[key];
        }
    if (params.contains("tls_psk")) entry["tls_psk"] = params["tls_psk"];
}

json ManagementServer::dispatch(const std::string &method, const json &params) {
    if (method == "list")
        return {{"config", config::redact_secrets(config::to_json(live_.running()))},
                {"listeners", live_.listeners_json()}};
    if (method == "controllers") return live_.controllers_json();
    if (method == "connections") return live_.connections_json();
    if (method == "error.inject") return error_inject(live_, params);
    if (method == "io_stats") {
        // io_stats {"subsystem"?: NQN}: cumulative I/O counters (stats/io_stats.hpp).
        std::optional<std::string> subsystem;
        if (params.contains("subsystem")) subsystem = str(params, "subsystem", "a subsystem NQN");
        auto r = stats::io_stats_json(live_.target(), subsystem);
        if (!r)
            throw RpcError{r.error().code == DOCA_ERROR_NOT_FOUND ? kRpcInvalidParams : kRpcRefused,
                           r.error().message};
        return std::move(*r);
    }
    if (method == "qos.show") {
        // qos.show {"subsystem"?: NQN}: limits and what QoS held back, per namespace.
        return qos_show_json(live_.target(), live_.running(),
                             opt_str(params, "subsystem", "", "a subsystem NQN"));
    }
    if (method == "save") {
        std::string path = str(params, "path", "a file path such as \"/etc/skiff/target.json\"");
        if (auto st = config::save_config_file(live_.running(), path); !st)
            throw RpcError{kRpcRefused, st.error().message};
        return {{"saved", path}};
    }
    if (method == "reload") {
        auto r = reload_ ? reload_()
                         : Result<std::vector<std::string>>(
                               make_error(DOCA_ERROR_NOT_SUPPORTED, "no configuration file to reload"));
        if (!r) throw RpcError{kRpcRefused, "reload refused: " + r.error().message};
        return {{"changes", *r}};
    }

    // Everything else edits the running configuration, then validates and applies it whole.
    json doc = config::to_json(live_.running());
    uint64_t ana_transition_ms = 0;
    std::string resized_backend; // namespace.resize
    if (method == "config.apply") {
        doc = param(params, "config", json::value_t::object, "a whole skiff configuration object");
    } else if (method == "subsystem.add") {
        doc["subsystems"].push_back(param(params, "subsystem", json::value_t::object, "a subsystem object"));
    } else if (method == "subsystem.remove") {
        std::string nqn = str(params, "nqn", "a subsystem NQN");
        json &s = subsystem_entry(doc, nqn);
        for (auto &ns : s["namespaces"]) remove_backend(doc, ns["backend"]);
        doc["subsystems"].erase(find_entry(doc, "subsystems", "nqn", nqn));
        for (auto &l : doc["listeners"])
            if (l.contains("subsystems"))
                l["subsystems"].erase(std::remove(l["subsystems"].begin(), l["subsystems"].end(), nqn),
                                      l["subsystems"].end());
    } else if (method == "namespace.add") {
        json &s = subsystem_entry(doc, str(params, "nqn", "a subsystem NQN"));
        json ns = param(params, "namespace", json::value_t::object, "a namespace object");
        if (params.contains("backend")) {
            const json &b = param(params, "backend", json::value_t::object, "a backend object");
            doc["backends"].push_back(b);
            if (!ns.contains("backend") && b.contains("name")) ns["backend"] = b["name"];
        }
        s["namespaces"].push_back(ns);
    } else if (method == "namespace.remove") {
        json &s = subsystem_entry(doc, str(params, "nqn", "a subsystem NQN"));
        auto it = namespace_entry(s, params);
        if (!opt_bool(params, "keep_backend", false)) remove_backend(doc, (*it)["backend"]);
        s["namespaces"].erase(it);
    } else if (method == "namespace.resize") {
        // namespace.resize {"nqn", "nsid", "size"}: its backend's size, grown in place (apply).
        auto it = namespace_entry(subsystem_entry(doc, str(params, "nqn", "a subsystem NQN")), params);
        if (!params.contains("size") || !(params["size"].is_string() || params["size"].is_number_unsigned()))
            throw RpcError{kRpcInvalidParams,
                           "params.size: expected a size such as \"2GiB\" or a byte count"};
        resized_backend = (*it)["backend"].get<std::string>();
        auto b = find_entry(doc, "backends", "name", resized_backend);
        (*b)["size"] = params["size"];
    } else if (method == "namespace.host_add" || method == "namespace.host_remove") {
        namespace_hosts_edit(doc, params, method == "namespace.host_add");
    } else if (method == "namespace.visibility") {
        namespace_visibility_edit(doc, params);
    } else if (method == "backend.add") {
        doc["backends"].push_back(param(params, "backend", json::value_t::object, "a backend object"));
    } else if (method == "backend.remove") {
        std::string name = str(params, "name", "a backend name");
        if (find_entry(doc, "backends", "name", name) == doc["backends"].end())
            throw RpcError{kRpcInvalidParams, "params.name: no backend named \"" + name + "\""};
        remove_backend(doc, name);
    } else if (method == "listener.add") {
        doc["listeners"].push_back(param(params, "listener", json::value_t::object, "a listener object"));
    } else if (method == "listener.remove") {
        std::string addr = addr_param(params, "an IPv4 or IPv6 address");
        uint16_t port = port_param(params, "a port number");
        std::string trtype = opt_str(params, "trtype", "tcp", "\"tcp\" or \"rdma\"");
        auto &list = doc["listeners"];
        auto before = list.size();
        list.erase(std::remove_if(list.begin(), list.end(),
                                  [&](const json &l) {
                                      return l["addr"] == addr && l["port"] == port && l["trtype"] == trtype;
                                  }),
                   list.end());
        if (list.size() == before)
            throw RpcError{kRpcInvalidParams, "params: no " + trtype + " listener on " +
                                                  nvmeof::transport::host_port(addr, port)};
    } else if (method == "ana.set") {
        ana_set(doc, params);
        if (params.contains("transition_ms")) {
            ana_transition_ms = param(params, "transition_ms", json::value_t::number_unsigned,
                                      "milliseconds in the change state")
                                    .get<uint64_t>();
            if (ana_transition_ms > kMaxAnaTransitionMs)
                throw RpcError{kRpcInvalidParams, "params.transition_ms: expected at most " +
                                                      std::to_string(kMaxAnaTransitionMs) +
                                                      " (below ANATT, 10 s), got " +
                                                      std::to_string(ana_transition_ms)};
        }
    } else if (method == "qos.set") {
        qos_set(doc, params);
    } else if (method == "referral.add" || method == "referral.remove") {
        referral_edit(doc, params, method == "referral.add");
    } else if (method == "host.add" || method == "host.remove") {
        const std::string nqn = str(params, "nqn", "a subsystem NQN");
        json &s = subsystem_entry(doc, nqn);
        std::string host = str(params, "host", "a host NQN");
        set_host_secrets(doc, method == "host.add", nqn, host, params);
        auto &hosts = s["allowed_hosts"];
        auto it = std::find(hosts.begin(), hosts.end(), host);
        if (method == "host.add") {
            // An allowed host may be added again to set or change its secrets.
            if (it != hosts.end() && !has_secrets(params))
                throw RpcError{kRpcInvalidParams, "params.host: \"" + host + "\" is already allowed"};
            if (it == hosts.end()) hosts.push_back(host);
            s["allow_any_host"] = false; // a host list means only those hosts
        } else {
            if (it == hosts.end())
                throw RpcError{kRpcInvalidParams, "params.host: \"" + host + "\" is not on the list"};
            hosts.erase(it);
        }
    } else {
        throw RpcError{kRpcMethodNotFound, "unknown method \"" + method + "\"; expected one of " + kMethods};
    }
    config::LoadResult checked = config::parse_config(doc);
    if (!checked.ok()) {
        std::string all = checked.error_text();
        all.pop_back(); // the last newline
        throw RpcError{kRpcInvalidParams, all, checked.errors};
    }
    if (!resized_backend.empty()) { // a resize only grows: anything else would make the backend anew
        uint64_t was = live_.running().find_backend(resized_backend)->size_bytes;
        if (was == 0) // the device decided (an aio file's size, an rbd image's)
            if (auto dev = live_.device(resized_backend)) was = dev->size_bytes();
        const uint64_t want = checked.config->find_backend(resized_backend)->size_bytes;
        if (want <= was)
            throw RpcError{
                kRpcInvalidParams,
                "params.size: a namespace grows while hosts are connected, it does not shrink: expected "
                "more than its " +
                    std::to_string(was) + " bytes, got " + std::to_string(want)};
    }
    auto applied = live_.apply(*checked.config, uint32_t(ana_transition_ms));
    if (!applied) throw RpcError{kRpcRefused, "refused: " + applied.error().message};
    return {{"changes", *applied}};
}

} // namespace skiff::dataplane
