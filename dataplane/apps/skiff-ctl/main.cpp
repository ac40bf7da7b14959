// skiff-ctl: changes a running skiff-target through its management socket (JSON-RPC 2.0, one
// request per line). Every change is validated like a configuration file and applied whole, or
// refused with the reason; nothing is half-applied.
#include "qos.hpp"
#include "stats.hpp"

#include "skiff/core/man_page.hpp"
#include "skiff/dataplane/management_peer.hpp"
#include "skiff/dataplane/management_socket_path.hpp"
#include "skiff/nvmeof/auth/secret_file.hpp"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace {

using nlohmann::json;

// Sends one request and returns the response (or an error object describing the failure).
json call(const std::string &socket_path, const std::string &method, const json &params) {
    auto local_error = [](const std::string &m) { return json{{"error", {{"code", -1}, {"message", m}}}}; };
    int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, socket_path.c_str(), sizeof(addr.sun_path) - 1);
    if (fd < 0 || ::connect(fd, reinterpret_cast<sockaddr *>(&addr), sizeof(addr)) != 0) {
        std::string why = std::strerror(errno);
        if (fd >= 0) ::close(fd);
        return local_error("cannot reach skiff-target at " + socket_path + ": " + why +
                           " (is it running with a management socket? see --socket)");
    }
    // Before any request (it may carry secrets): the target must be root, us, or the service user;
    // anyone else who managed to put a socket at this path gets nothing.
    auto server = skiff::dataplane::peer_credentials(fd);
    if (!server || !skiff::dataplane::trusted_target(*server, ::geteuid())) {
        ::close(fd);
        return local_error("refusing to talk to " + socket_path + ": " +
                           (server ? "it is served by " + server->describe() +
                                         ", not by root, this user or the \"" +
                                         skiff::dataplane::kServiceUser + "\" user"
                                   : server.error().message));
    }
    std::string out =
        json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", method}, {"params", params}}.dump() + "\n";
    for (size_t off = 0; off < out.size();) {
        // No SIGPIPE: a target that refuses this caller has answered and closed already; its
        // answer is read below.
        ssize_t w = ::send(fd, out.data() + off, out.size() - off, MSG_NOSIGNAL);
        if (w <= 0) break;
        off += size_t(w);
    }
    std::string in;
    char buf[65536];
    while (in.find('\n') == std::string::npos) {
        ssize_t n = ::read(fd, buf, sizeof(buf));
        if (n <= 0) break;
        in.append(buf, size_t(n));
    }
    ::close(fd);
    json resp = json::parse(in, nullptr, false);
    if (resp.is_discarded()) return local_error("skiff-target closed the connection without an answer");
    return resp;
}

// A size option: "64MiB" stays a string, a plain number becomes one.
json size_value(const std::string &s) {
    return s.find_first_not_of("0123456789") == std::string::npos ? json(std::stoull(s)) : json(s);
}

// Without --socket: the first default place (the ones skiff-target uses) holding a socket.
std::string find_default_socket() {
    for (auto &path : skiff::dataplane::default_management_socket_paths()) {
        struct stat st {};
        if (::stat(path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode)) return path;
    }
    return "";
}

skiff::cli::ManPage man_page() {
    skiff::cli::ManPage m;
    m.name = "skiff-ctl - change a running skiff-target (subsystems, namespaces, listeners, hosts, ANA, "
             "referrals)";
    m.synopsis = "skiff-ctl [--socket PATH] COMMAND [ARGUMENTS]\n"
                 "skiff-ctl COMMAND --help";
    m.description =
        "skiff-ctl talks to skiff-target through its management socket (JSON-RPC 2.0, one request\n"
        "per line). Every change is validated like a configuration file and applied whole, or refused\n"
        "with the reason; nothing is half-applied. Hosts connected to a changed subsystem get a\n"
        "namespace-changed event.\n"
        "\n"
        "Without --socket, skiff-ctl uses the first default socket of FILES that exists: where a\n"
        "target started without a socket option (or skiff-target.service) listens. The answer is\n"
        "printed as JSON; the exit status is 0 on success, 1 when the target refused or could not\n"
        "be reached.\n"
        "\n"
        "Root, the target's user and members of the group skiff may use the socket. skiff-ctl talks\n"
        "only to a target running as root, as the caller or as the user skiff: a socket someone else\n"
        "serves gets no request (and no secret). Give keys with --dhchap-key-file and --tls-psk-file:\n"
        "every local user can read a command line.";
    m.files = "$RUNTIME_DIRECTORY/target.sock, /run/skiff/target.sock\n"
              "    the default socket (skiff-target.service: /run/skiff/target.sock)\n"
              "$XDG_RUNTIME_DIR/skiff/target.sock, /tmp/skiff-<uid>/target.sock\n"
              "    the defaults of a target that could not write /run/skiff";
    m.examples =
        "skiff-ctl list\n"
        "    the running configuration and the bound listeners\n"
        "skiff-ctl namespace add nqn.2026-11.io.skiff:default --nsid 2 --kind ram --size 64MiB\n"
        "    a second namespace on a new 64 MiB RAM backend\n"
        "skiff-ctl namespace add nqn.2026-11.io.skiff:default --nsid 3 --kind rbd --pool rbd --image "
        "disk0 --ceph-conf /etc/ceph/ceph.conf\n"
        "    a namespace on the Ceph RBD image rbd/disk0\n"
        "skiff-ctl namespace remove nqn.2026-11.io.skiff:default 2\n"
        "skiff-ctl namespace resize nqn.2026-11.io.skiff:default 1 --size 2GiB\n"
        "    namespace 1 grows to 2 GiB; connected hosts see the new size without reconnecting\n"
        "skiff-ctl namespace add nqn.2026-11.io.skiff:default --nsid 4 --kind ram --size 1GiB \\\n"
        "        --visible-host nqn.2014-08.org.nvmexpress:uuid:0c7a3f52-4e1b-4f0a-9d61-3b2f8e5a7c10\n"
        "    a namespace only that host sees (others find nsid 4 inactive)\n"
        "skiff-ctl namespace host add nqn.2026-11.io.skiff:default 4 nqn.2026-11.io.skiff:host2\n"
        "    a second host sees namespace 4 too (host remove hides it again)\n"
        "skiff-ctl listener add 192.168.100.2 4420 --trtype rdma\n"
        "skiff-ctl listener add fd00::2 4420\n"
        "    an NVMe/TCP listener on an IPv6 address (written without brackets)\n"
        "skiff-ctl ana set 127.0.0.1 4420 inaccessible --group 1\n"
        "    hosts connected through 127.0.0.1:4420 fail over to their other paths\n"
        "skiff-ctl referral add 192.0.2.8 8009\n"
        "    the discovery log page lists another target's discovery service\n"
        "skiff-ctl controllers\n"
        "    connected controllers with per-queue I/O statistics\n"
        "skiff-ctl stats --hosts\n"
        "    IOPS, MB/s and latency per namespace and per host, every second (needs --io-accounting)\n"
        "skiff-ctl connections\n"
        "    open connections (also those not connected yet) and queues per host, with the limits\n"
        "skiff-ctl qos set nqn.2026-11.io.skiff:default 1 --rw-iops 5000 --rw-bps 200MiB\n"
        "    namespace 1 serves at most 5,000 IOPS and 200 MiB/s (I/O over that waits; qos show)\n"
        "skiff-ctl error-inject flaky0 --op read --count 3 --status 0x281\n"
        "    the next 3 reads of error backend flaky0 fail with Unrecovered Read Error\n"
        "skiff-ctl save /etc/skiff/target.json\n"
        "    keep the live changes across restarts (skiff-target.service serves that file)";
    m.see_also = "skiff-target --help; config/README.md (the methods, for skiff-ctl call)";
    return m;
}

} // namespace

int main(int argc, char **argv) {
    CLI::App app;
    skiff::cli::set_man_page(app, man_page());
    app.require_subcommand(1);
    std::string socket_path;
    app.add_option("-s,--socket", socket_path,
                   "the target's management socket (default: the first of the FILES below that exists)");

    std::string method;
    json params = json::object();
    auto on = [&](CLI::App *cmd, const char *m, auto fill) {
        cmd->final_callback([&, m, fill] {
            method = m;
            fill();
        });
    };

    on(app.add_subcommand("list", "show the running configuration and the bound listeners"), "list", [] {});
    on(app.add_subcommand("controllers", "show connected controllers with per-queue I/O statistics"),
       "controllers", [] {});
    on(app.add_subcommand("connections",
                          "show open connections per peer address and queues per host against the limits"),
       "connections", [] {});
    std::string save_path;
    auto *save =
        app.add_subcommand("save", "write the running configuration (skiff JSON, loadable with --config)");
    save->add_option("file", save_path, "where to write it (on the target's machine)")->required();
    on(save, "save", [&] { params["path"] = save_path; });
    on(app.add_subcommand("reload", "re-read the target's configuration file (as SIGHUP)"), "reload", [] {});

    // subsystem add|remove
    auto *subsys = app.add_subcommand("subsystem", "add or remove a subsystem")->require_subcommand(1);
    std::string nqn, serial = "SKIFF0001", model = "skiff";
    std::vector<std::string> hosts;
    auto *sadd = subsys->add_subcommand("add", "add an empty subsystem (add namespaces after)");
    sadd->add_option("nqn", nqn, "subsystem NQN")->required();
    sadd->add_option("--serial", serial, "serial number (up to 20 characters)")->capture_default_str();
    sadd->add_option("--model", model, "model (up to 40 characters)")->capture_default_str();
    sadd->add_option("--allow-host", hosts,
                     "only these host NQNs may connect (repeatable; default: any host)");
    on(sadd, "subsystem.add", [&] {
        params["subsystem"] = {{"nqn", nqn},
                               {"serial", serial},
                               {"model", model},
                               {"allowed_hosts", hosts},
                               {"allow_any_host", hosts.empty()}};
    });
    auto *srm = subsys->add_subcommand("remove", "remove a subsystem (its controllers are disconnected)");
    srm->add_option("nqn", nqn, "subsystem NQN")->required();
    on(srm, "subsystem.remove", [&] { params["nqn"] = nqn; });

    // namespace add|remove|resize|host|visibility
    auto *ns =
        app.add_subcommand("namespace", "add, remove or grow a namespace, or choose the hosts that see "
                                        "it (hosts get a namespace-changed event)")
            ->require_subcommand(1);
    uint32_t nsid = 0, block_size = 512;
    std::string kind = "ram", size, path, backend_name, uuid;
    std::string rbd_pool, rbd_image, rbd_ns, ceph_conf, rbd_client, keyring;
    bool keep_backend = false, no_auto_visible = false;
    std::vector<std::string> visible_hosts;
    auto *nadd =
        ns->add_subcommand("add", "add a namespace on a new backend (or an existing one with --backend)");
    nadd->add_option("nqn", nqn, "subsystem NQN")->required();
    nadd->add_option("--nsid", nsid, "namespace id (1..1024)")->required();
    nadd->add_option("--kind", kind, "new backend kind: ram, null, aio or rbd")->capture_default_str();
    nadd->add_option("--size", size,
                     "new backend size, e.g. 64MiB (aio, rbd: optional, the file's / image's)");
    nadd->add_option("--path", path, "aio: the file or block device");
    nadd->add_option("--pool", rbd_pool, "rbd: the Ceph pool");
    nadd->add_option("--image", rbd_image, "rbd: the RBD image in that pool");
    nadd->add_option("--rados-namespace", rbd_ns, "rbd: the RADOS namespace inside the pool (default: none)");
    nadd->add_option("--ceph-conf", ceph_conf, "rbd: the cluster's ceph.conf (default /etc/ceph/ceph.conf)");
    nadd->add_option("--client", rbd_client, "rbd: the Ceph client name or id (default client.admin)");
    nadd->add_option("--keyring", keyring, "rbd: the client's keyring (default: what ceph.conf says)");
    nadd->add_option("--backend", backend_name, "use this existing, unused backend instead of creating one");
    nadd->add_option("--block-size", block_size, "512 or 4096")->capture_default_str();
    nadd->add_option("--uuid", uuid, "namespace UUID (default: derived from the NQN and nsid)");
    nadd->add_option("--visible-host", visible_hosts,
                     "only these host NQNs see the namespace (repeatable; default: every host)");
    nadd->add_flag("--no-auto-visible", no_auto_visible,
                   "no host sees the namespace until `namespace host add` names one");
    on(nadd, "namespace.add", [&] {
        json n = {{"nsid", nsid}, {"block_size", block_size}};
        if (!uuid.empty()) n["uuid"] = uuid;
        if (no_auto_visible || !visible_hosts.empty()) n["visible_hosts"] = visible_hosts;
        if (!backend_name.empty()) {
            n["backend"] = backend_name;
        } else {
            json b = {{"name", "ns" + std::to_string(nsid) + "@" + nqn}, {"kind", kind}};
            if (!size.empty()) b["size"] = size_value(size);
            if (!path.empty()) b["path"] = path;
            const std::pair<const char *, const std::string *> rbd[] = {
                {"pool", &rbd_pool},       {"image", &rbd_image},   {"namespace", &rbd_ns},
                {"ceph_conf", &ceph_conf}, {"client", &rbd_client}, {"keyring", &keyring}};
            for (auto &[key, value] : rbd)
                if (!value->empty()) b[key] = *value;
            params["backend"] = b;
        }
        params["nqn"] = nqn;
        params["namespace"] = n;
    });
    auto *nrm = ns->add_subcommand("remove", "remove a namespace (and its backend unless --keep-backend)");
    nrm->add_option("nqn", nqn, "subsystem NQN")->required();
    nrm->add_option("nsid", nsid, "namespace id")->required();
    nrm->add_flag("--keep-backend", keep_backend, "keep the backend defined (for adding it again)");
    on(nrm, "namespace.remove", [&] {
        params = {{"nqn", nqn}, {"nsid", nsid}, {"keep_backend", keep_backend}};
    });

    auto *nrs = ns->add_subcommand("resize", "grow a namespace while hosts are connected (ram: up to 4x the "
                                             "size it started with; aio: a file is extended, a block device "
                                             "must be grown first; rbd: the image is resized)");
    nrs->add_option("nqn", nqn, "subsystem NQN")->required();
    nrs->add_option("nsid", nsid, "namespace id")->required();
    nrs->add_option("--size", size, "the new size, larger than today's, e.g. 2GiB")->required();
    on(nrs, "namespace.resize", [&] { params = {{"nqn", nqn}, {"nsid", nsid}, {"size", size}}; });

    // namespace host add|remove, namespace visibility: which hosts see a namespace.
    std::string host;
    auto *nhost = ns->add_subcommand("host", "add or remove a host that sees a namespace (one added with "
                                             "--visible-host or --no-auto-visible)")
                      ->require_subcommand(1);
    for (const char *verb : {"add", "remove"}) {
        const bool add = verb == std::string("add");
        auto *cmd = nhost->add_subcommand(verb, add ? "the host sees the namespace from now on"
                                                    : "the host no longer sees the namespace (its I/O to "
                                                      "it fails from now on)");
        cmd->add_option("nqn", nqn, "subsystem NQN")->required();
        cmd->add_option("nsid", nsid, "namespace id")->required();
        cmd->add_option("host", host, "host NQN")->required();
        on(cmd, add ? "namespace.host_add" : "namespace.host_remove", [&] {
            params = {{"nqn", nqn}, {"nsid", nsid}, {"host", host}};
        });
    }
    bool all_hosts = false, listed_hosts = false;
    auto *nvis =
        ns->add_subcommand("visibility", "make a namespace visible to every host, or to listed hosts "
                                         "only (none until `namespace host add`)");
    nvis->add_option("nqn", nqn, "subsystem NQN")->required();
    nvis->add_option("nsid", nsid, "namespace id")->required();
    auto *all_flag = nvis->add_flag("--all-hosts", all_hosts, "every host the subsystem lets in sees it");
    auto *listed_flag = nvis->add_flag("--listed-hosts", listed_hosts,
                                       "only the hosts added with `namespace host add` see it");
    all_flag->excludes(listed_flag);
    on(nvis, "namespace.visibility", [&] {
        if (!all_hosts && !listed_hosts)
            throw CLI::ValidationError("namespace visibility", "give --all-hosts or --listed-hosts");
        params = {{"nqn", nqn}, {"nsid", nsid}, {"all_hosts", all_hosts}};
    });

    // listener add|remove
    auto *lst = app.add_subcommand("listener", "add or remove a listener")->require_subcommand(1);
    std::string trtype = "tcp", addr;
    uint16_t port = 0;
    std::vector<std::string> lsubs;
    auto *ladd = lst->add_subcommand("add", "listen on ADDR PORT");
    ladd->add_option("addr", addr, "IPv4 or IPv6 address, without brackets (::1)")->required();
    ladd->add_option("port", port, "TCP port")->required();
    ladd->add_option("--trtype", trtype, "tcp or rdma")->capture_default_str();
    ladd->add_option("--subsystem", lsubs, "expose only these subsystems (repeatable; default: all)");
    on(ladd, "listener.add", [&] {
        params["listener"] = {{"trtype", trtype}, {"addr", addr}, {"port", port}};
        if (!lsubs.empty()) params["listener"]["subsystems"] = lsubs;
    });
    auto *lrm = lst->add_subcommand("remove", "stop listening on ADDR PORT (connections stay)");
    lrm->add_option("addr", addr, "IPv4 or IPv6 address, without brackets (::1)")->required();
    lrm->add_option("port", port, "TCP port")->required();
    lrm->add_option("--trtype", trtype, "tcp or rdma")->capture_default_str();
    on(lrm, "listener.remove", [&] { params = {{"trtype", trtype}, {"addr", addr}, {"port", port}}; });

    // host add|remove (host: declared with namespace host add|remove above)
    auto *hst = app.add_subcommand("host", "allow or disallow a host on a subsystem")->require_subcommand(1);
    auto *hadd = hst->add_subcommand("add", "allow HOST (the subsystem then admits only listed hosts)");
    hadd->add_option("nqn", nqn, "subsystem NQN")->required();
    hadd->add_option("host", host, "host NQN")->required();
    std::string dh_key, dh_ctrl_key, dh_key_file, dh_ctrl_key_file;
    std::vector<std::string> dh_hashes, dh_groups;
    bool dh_per_subsystem = false;
    auto *dh_key_opt = hadd->add_option(
        "--dhchap-key", dh_key,
        "the host's DH-HMAC-CHAP secret (\"DHHC-1:xx:...:\" from nvme gen-dhchap-key): the host "
        "must authenticate; adding an allowed host again changes its secrets. Every local user can "
        "see a command line: prefer --dhchap-key-file");
    hadd->add_option("--dhchap-key-file", dh_key_file,
                     "the same, read from a file's first line (keeps the key out of the process list; "
                     "the file should be mode 0600)")
        ->check(CLI::ExistingFile)
        ->excludes(dh_key_opt);
    auto *dh_ctrl_opt = hadd->add_option(
        "--dhchap-ctrl-key", dh_ctrl_key,
        "the controller's secret, for hosts that authenticate the controller too (bidirectional)");
    hadd->add_option("--dhchap-ctrl-key-file", dh_ctrl_key_file,
                     "the controller's secret, read from a file's first line")
        ->check(CLI::ExistingFile)
        ->excludes(dh_ctrl_opt);
    hadd->add_option("--dhchap-hash", dh_hashes,
                     "allowed hash: sha256, sha384, sha512 (repeatable, preferred first)");
    hadd->add_option("--dhchap-dhgroup", dh_groups,
                     "allowed DH group: null, ffdhe2048 ... ffdhe8192 (repeatable, preferred first)");
    std::string tls_psk, tls_psk_file;
    auto *psk_opt =
        hadd->add_option("--tls-psk", tls_psk,
                         "the host's TLS PSK for NVMe/TCP over TLS (\"NVMeTLSkey-1:01:...:\" as nvme "
                         "gen-tls-key prints it); adding an allowed host again replaces it. Prefer "
                         "--tls-psk-file");
    hadd->add_option("--tls-psk-file", tls_psk_file,
                     "the same, read from a file's first line (keeps the key out of the process list)")
        ->check(CLI::ExistingFile)
        ->excludes(psk_opt);
    hadd->add_flag(
        "--per-subsystem", dh_per_subsystem,
        "the secrets apply on this subsystem only (default: every subsystem the host connects to)");
    std::string file_error; // a key file that cannot be read: reported before anything is sent
    on(hadd, "host.add", [&] {
        for (auto [file, value] :
             {std::pair{&dh_key_file, &dh_key}, std::pair{&dh_ctrl_key_file, &dh_ctrl_key},
              std::pair{&tls_psk_file, &tls_psk}}) {
            if (file->empty()) continue;
            auto secret = skiff::nvmeof::auth::read_secret_file(*file);
            if (!secret) {
                file_error = secret.error().message;
                return;
            }
            if (!secret->warning.empty())
                std::fprintf(stderr, "skiff-ctl: warning: %s\n", secret->warning.c_str());
            *value = secret->text;
        }
        params = {{"nqn", nqn}, {"host", host}};
        if (!dh_key.empty()) params["dhchap_key"] = dh_key;
        if (!dh_ctrl_key.empty()) params["dhchap_ctrl_key"] = dh_ctrl_key;
        if (!dh_hashes.empty()) params["dhchap_hashes"] = dh_hashes;
        if (!dh_groups.empty()) params["dhchap_dhgroups"] = dh_groups;
        if (!tls_psk.empty()) params["tls_psk"] = tls_psk;
        if (dh_per_subsystem) params["per_subsystem"] = true;
    });
    auto *hrm = hst->add_subcommand("remove", "take HOST off the list");
    hrm->add_option("nqn", nqn, "subsystem NQN")->required();
    hrm->add_option("host", host, "host NQN")->required();
    on(hrm, "host.remove", [&] { params = {{"nqn", nqn}, {"host", host}}; });

    // ana set: one listener's ANA state of a group.
    auto *ana =
        app.add_subcommand("ana", "set a listener's ANA state of a group (multipath)")->require_subcommand(1);
    std::string ana_state, ana_nqn;
    uint32_t ana_group = 1, ana_transition_ms = 0;
    auto *aset =
        ana->add_subcommand("set", "hosts connected through ADDR PORT see GROUP in STATE (ANA change "
                                   "event, log page 0Ch)");
    aset->add_option("addr", addr, "the listener's IPv4 or IPv6 address")->required();
    aset->add_option("port", port, "the listener's port")->required();
    aset->add_option("state", ana_state, "optimized, non-optimized, inaccessible, persistent-loss or change")
        ->required()
        ->check(CLI::IsMember({"optimized", "non-optimized", "inaccessible", "persistent-loss", "change"}));
    aset->add_option("--group", ana_group, "ANA group id (namespaces name theirs; default 1)")
        ->capture_default_str();
    aset->add_option("--nqn", ana_nqn, "only this subsystem's group (default: every subsystem's)");
    aset->add_option("--trtype", trtype, "tcp or rdma")->capture_default_str();
    aset->add_option("--transition-ms", ana_transition_ms,
                     "pass through the change state for this long first (at most 9000, below ANATT)");
    on(aset, "ana.set", [&] {
        params = {
            {"trtype", trtype}, {"addr", addr}, {"port", port}, {"group", ana_group}, {"state", ana_state}};
        if (!ana_nqn.empty()) params["nqn"] = ana_nqn;
        if (ana_transition_ms) params["transition_ms"] = ana_transition_ms;
    });

    // referral add|remove: other targets' discovery services in this one's discovery log page.
    auto *ref = app.add_subcommand("referral", "list another target's discovery service in the discovery log")
                    ->require_subcommand(1);
    uint16_t ref_port = 8009;
    for (const char *verb : {"add", "remove"}) {
        bool add = std::string(verb) == "add";
        auto *cmd = ref->add_subcommand(verb, add ? "add a referral to ADDR [PORT]"
                                                  : "remove the referral to ADDR [PORT]");
        cmd->add_option("addr", addr, "the other target's discovery address (IPv4 or IPv6)")->required();
        cmd->add_option("port", ref_port, "its discovery port")->capture_default_str();
        cmd->add_option("--trtype", trtype, "tcp or rdma")->capture_default_str();
        on(cmd, add ? "referral.add" : "referral.remove", [&] {
            params = {{"trtype", trtype}, {"addr", addr}, {"port", ref_port}};
        });
    }

    // error-inject: arm an error backend (kind "error") while the target runs.
    std::string inj_backend, inj_op, inj_status = "0";
    uint32_t inj_count = 0, inj_delay = 0;
    bool inj_dnr = false;
    auto *inj = app.add_subcommand("error-inject",
                                   "fail (--status) or delay (--delay-us) the next COUNT reads / writes / "
                                   "flushes of an error backend (COUNT 0 disarms)");
    inj->add_option("backend", inj_backend, "the error backend's name (kind \"error\" in the configuration)")
        ->required();
    inj->add_option("--op", inj_op, "read (Read, Compare), write (Write, Write Zeroes, Deallocate) or flush")
        ->required()
        ->check(CLI::IsMember({"read", "write", "flush"}));
    inj->add_option("--count", inj_count, "how many commands fail (0: disarm)")->required();
    inj->add_option("--status", inj_status,
                    "NVMe status as nvme-cli prints it, SCT in bits 10:8 and SC in 7:0: 0x281 Unrecovered "
                    "Read Error, 0x280 Write Fault, 0x6 Internal Error, 0x302 ANA Inaccessible");
    inj->add_flag("--dnr", inj_dnr, "set Do Not Retry (the host fails the I/O without retrying)");
    inj->add_option("--delay-us", inj_delay,
                    "hold each of those commands this many microseconds first (alone: latency only, the "
                    "commands then succeed)");
    on(inj, "error.inject", [&] {
        char *end = nullptr;
        unsigned long code = std::strtoul(inj_status.c_str(), &end, 0);
        if (inj_status.empty() || *end) code = 0x10000; // the target names the problem
        if (inj_status == "0") code = 0;
        params = {{"backend", inj_backend}, {"op", inj_op},   {"count", inj_count},
                  {"status", code},         {"dnr", inj_dnr}, {"delay_us", inj_delay}};
    });

    // stats: samples io_stats every interval and prints the differences.
    skiff::ctl::StatsOptions stats_opts;
    bool stats_run = false;
    auto *stats = app.add_subcommand(
        "stats",
        "live I/O per namespace (and per host): IOPS, MB/s, latency; needs the target's I/O accounting");
    stats->footer(
        "Every INTERVAL seconds skiff-ctl asks the target for its cumulative I/O counters (method\n"
        "io_stats) and prints what changed since the previous sample: one table per sample, a line\n"
        "per namespace (with --hosts, a line per host that used it under it):\n"
        "  r/s w/s        Read and Write commands completed per second (failed ones included)\n"
        "  rMB/s wMB/s    megabytes (10^6 bytes) per second moved by successful Reads and Writes\n"
        "  r_avg r_p50 r_p99, w_avg w_p50 w_p99\n"
        "                 latency in microseconds inside the target, from the command received to\n"
        "                 its response handed to the transport (the network is not included):\n"
        "                 the average is exact; p50 and p99 are interpolated within the target's\n"
        "                 latency histogram buckets (1, 2, 5, 10, 20, 50 ... us up to 1 s), so they\n"
        "                 are estimates within the bucket they fall in; '-' when there was no I/O\n"
        "  other/s        Flush, Write Zeroes, Dataset Management, Compare, ... per second\n"
        "  err            commands that failed in the interval\n"
        "The first table comes after one interval. The counts are kept per I/O queue by the target\n"
        "only when its I/O accounting is on: start skiff-target with --io-accounting (or --metrics,\n"
        "or \"metrics\": {\"accounting\": true} in its configuration). Otherwise skiff-ctl stats says so\n"
        "and exits 1.\n"
        "\n"
        "--json prints one JSON object per line per sample instead of a table, for scripts:\n"
        "  {\"time\": \"2026-11-28T16:20:01Z\", \"interval_s\": 1.0, \"namespaces\": [{\"subsystem\": NQN,\n"
        "   \"nsid\": 1, \"read\": {\"commands\", \"bytes\", \"iops\", \"mb_per_s\", \"avg_us\", "
        "\"p50_us\",\n"
        "   \"p99_us\"}, \"write\": {...}, \"other\": {...}, \"errors\": 0}], \"hosts\": [... \"hostnqn\": "
        "NQN ...]}\n"
        "(latencies null without I/O; \"hosts\" only with --hosts). The cumulative counters themselves:\n"
        "skiff-ctl call io_stats.\n"
        "\n"
        "Examples:\n"
        "  skiff-ctl stats\n"
        "      every namespace, every second, until Ctrl-C\n"
        "  skiff-ctl stats --hosts --subsystem nqn.2026-11.io.skiff:default\n"
        "      one subsystem, with a line per host under each namespace\n"
        "  skiff-ctl stats --json --interval 5 --count 12 > minute.jsonl\n"
        "      a minute of 5-second samples for a script");
    stats->add_option("-i,--interval", stats_opts.interval_s, "seconds between samples (0.1 .. 3600)")
        ->capture_default_str()
        ->check(CLI::Range(0.1, 3600.0));
    stats->add_option("-c,--count", stats_opts.count,
                      "print this many samples, then exit (default: until Ctrl-C)");
    stats->add_flag("--json", stats_opts.json, "one JSON object per line per sample instead of a table");
    stats->add_option("--subsystem", stats_opts.subsystem, "only this subsystem (NQN)");
    stats->add_flag("--hosts", stats_opts.hosts, "also a line per host (host NQN) under each namespace");
    stats->final_callback([&] { stats_run = true; });

    // qos set|show: namespace and host-on-namespace limits (qos.cpp).
    skiff::ctl::QosCommand qos_cmd;
    skiff::ctl::add_qos_commands(app, qos_cmd);

    // Any method by name (scripts, and what the subcommands do not cover).
    std::string raw_params = "{}";
    auto *raw =
        app.add_subcommand("call", "send any JSON-RPC method: skiff-ctl call METHOD '{\"param\": ...}'");
    std::string raw_method;
    raw->add_option("method", raw_method, "method name, e.g. backend.add")->required();
    raw->add_option("params", raw_params, "params as a JSON object");
    on(raw, "", [] {});
    CLI11_PARSE(app, argc, argv);

    if (!file_error.empty()) {
        std::fprintf(stderr, "skiff-ctl: %s\n", file_error.c_str());
        return 2;
    }
    if (!raw_method.empty()) {
        method = raw_method;
        params = json::parse(raw_params, nullptr, false);
        if (params.is_discarded()) {
            std::fprintf(stderr, "skiff-ctl: params: not valid JSON: %s\n", raw_params.c_str());
            return 2;
        }
    }
    if (!qos_cmd.method.empty()) {
        method = qos_cmd.method;
        params = qos_cmd.params;
    }
    if (socket_path.empty()) socket_path = find_default_socket();
    if (socket_path.empty()) {
        std::string tried;
        for (auto &p : skiff::dataplane::default_management_socket_paths()) tried += "\n  " + p;
        std::fprintf(stderr,
                     "skiff-ctl: no skiff-target management socket in the default places:%s\n"
                     "(is skiff-target running? give its socket with --socket PATH)\n",
                     tried.c_str());
        return 1;
    }
    if (stats_run)
        return skiff::ctl::run_stats(
            stats_opts, [&](const std::string &m, const json &p) { return call(socket_path, m, p); });
    json resp = call(socket_path, method, params);
    if (resp.contains("error")) {
        std::fprintf(stderr, "skiff-ctl: %s\n",
                     resp["error"].value("message", std::string("failed")).c_str());
        return 1;
    }
    if (method == "qos.show")
        skiff::ctl::print_qos_show(resp["result"], qos_cmd.json);
    else
        std::printf("%s\n", resp["result"].dump(2).c_str());
    return 0;
}
