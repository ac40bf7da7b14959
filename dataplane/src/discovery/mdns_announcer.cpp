#include "skiff/dataplane/mdns_announcer.hpp"

#include "skiff/core/log.hpp"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <unistd.h>

#include <cstring>

#ifdef SKIFF_HAVE_AVAHI
#include <avahi-client/client.h>
#include <avahi-client/publish.h>
#include <avahi-common/alternative.h>
#include <avahi-common/error.h>
#include <avahi-common/malloc.h>
#include <avahi-common/thread-watch.h>
#include <avahi-common/timeval.h>
#endif

namespace skiff::dataplane {

namespace {

constexpr const char *kDiscoveryNqn = "nqn.2014-08.org.nvmexpress.discovery";

std::string default_name() {
    char host[256] = {};
    if (::gethostname(host, sizeof(host) - 1) != 0 || host[0] == '\0') std::strcpy(host, "localhost");
    std::string name = std::string("skiff-target on ") + host;
    return name.substr(0, 63); // one DNS label
}

// The interface that holds `host` (an IPv4 or IPv6 address), or -1 for a wildcard or when none
// does (the caller then announces on every interface).
int interface_of(const std::string &host) {
    if (host == "0.0.0.0" || host == "::") return -1;
    in6_addr want6{};
    in_addr want4{};
    const bool v6 = inet_pton(AF_INET6, host.c_str(), &want6) == 1;
    if (!v6 && inet_pton(AF_INET, host.c_str(), &want4) != 1) return -1;
    ifaddrs *list = nullptr;
    if (getifaddrs(&list) != 0) return -1;
    int index = -1;
    for (ifaddrs *a = list; a && index < 0; a = a->ifa_next) {
        if (!a->ifa_addr) continue;
        if (v6 && a->ifa_addr->sa_family == AF_INET6 &&
            std::memcmp(&reinterpret_cast<sockaddr_in6 *>(a->ifa_addr)->sin6_addr, &want6, sizeof(want6)) ==
                0)
            index = int(if_nametoindex(a->ifa_name));
        if (!v6 && a->ifa_addr->sa_family == AF_INET &&
            reinterpret_cast<sockaddr_in *>(a->ifa_addr)->sin_addr.s_addr == want4.s_addr)
            index = int(if_nametoindex(a->ifa_name));
    }
    freeifaddrs(list);
    return index;
}

bool is_ipv6(const std::string &host) {
    return host.find(':') != std::string::npos;
}

} // namespace

std::vector<std::string> MdnsAnnouncer::txt_records(const nvmeof::transport::ListenAddress &listener) {
    // TP8009's protocol key: "tcp" for NVMe/TCP, "roce" for NVMe/RDMA over RoCE.
    return {std::string("nqn=") + kDiscoveryNqn, listener.trtype == "rdma" ? "p=roce" : "p=tcp"};
}

#ifdef SKIFF_HAVE_AVAHI

namespace {

// Avahi's client on Avahi's own thread (a threaded poll): every call into the client happens on
// that thread (callbacks) or under the poll's lock (announce() from the control plane).
class AvahiAnnouncer final : public MdnsAnnouncer {
  public:
    explicit AvahiAnnouncer(std::string name) : name_(std::move(name)), log_(log::get("mdns")) {}

    ~AvahiAnnouncer() override {
        if (!poll_) return;
        avahi_threaded_poll_stop(poll_);
        if (restart_) avahi_threaded_poll_get(poll_)->timeout_free(restart_);
        if (client_) avahi_client_free(client_); // frees the entry group with it
        avahi_threaded_poll_free(poll_);
    }

    Status start() {
        poll_ = avahi_threaded_poll_new();
        if (!poll_) return make_error(DOCA_ERROR_NO_MEMORY, "mDNS: avahi_threaded_poll_new failed");
        if (int error = connect(); error != 0) waiting(avahi_strerror(error));
        if (avahi_threaded_poll_start(poll_) < 0)
            return make_error(DOCA_ERROR_OPERATING_SYSTEM, "mDNS: cannot start Avahi's thread");
        return Status::success();
    }

    void announce(const std::optional<nvmeof::transport::ListenAddress> &listener) override {
        avahi_threaded_poll_lock(poll_);
        listener_ = listener;
        publish();
        avahi_threaded_poll_unlock(poll_);
    }

  private:
    // AVAHI_CLIENT_NO_FAIL: without a daemon the client waits for one (state CONNECTING) instead of
    // failing. Without even a system D-Bus, creating the client fails: then a new try every few
    // seconds. Either way the target starts and announces once avahi-daemon is there. Returns
    // Avahi's error, 0 when the client exists.
    int connect() {
        int error = 0;
        client_ = avahi_client_new(avahi_threaded_poll_get(poll_), AVAHI_CLIENT_NO_FAIL,
                                   &AvahiAnnouncer::on_client, this, &error);
        return client_ ? 0 : (error != 0 ? error : AVAHI_ERR_FAILURE);
    }

    // Says once, until the announcement is made again, that it waits for the daemon; schedules a
    // new client when `retry`.
    void waiting(const char *why, bool retry = true) {
        if (!waiting_logged_)
            log_->warn(
                "mDNS: avahi-daemon is not running ({}); the discovery listener is announced once it is",
                why);
        waiting_logged_ = true;
        if (retry) schedule_restart();
    }

    static void on_client(AvahiClient *c, AvahiClientState state, void *arg) {
        auto *self = static_cast<AvahiAnnouncer *>(arg);
        self->client_ = c; // the callback may run inside avahi_client_new, before it returns
        switch (state) {
        case AVAHI_CLIENT_S_RUNNING:
            self->waiting_logged_ = false;
            self->publish();
            break;
        case AVAHI_CLIENT_S_COLLISION:
        case AVAHI_CLIENT_S_REGISTERING: // the host name changes: withdraw, publish again once running
            if (self->group_) avahi_entry_group_reset(self->group_);
            break;
        case AVAHI_CLIENT_CONNECTING: // the client itself waits for the daemon to appear
            self->drop_group();
            self->waiting("no daemon on the system bus", false);
            break;
        case AVAHI_CLIENT_FAILURE:
            // The daemon or the bus went away (restart, crash): a new client soon waits for it again.
            self->drop_group();
            self->waiting(avahi_strerror(avahi_client_errno(c)));
            break;
        }
    }

    static void on_group(AvahiEntryGroup *g, AvahiEntryGroupState state, void *arg) {
        auto *self = static_cast<AvahiAnnouncer *>(arg);
        switch (state) {
        case AVAHI_ENTRY_GROUP_ESTABLISHED:
            self->log_->info("mDNS: announcing \"{}\" ({}, port {}, {})", self->name_, kServiceType,
                             self->listener_ ? self->listener_->port : 0,
                             self->listener_ ? txt_records(*self->listener_)[1] : "");
            break;
        case AVAHI_ENTRY_GROUP_COLLISION: {
            // Another service on the network has the name: take Avahi's next one ("name #2").
            self->take_alternative_name();
            avahi_entry_group_reset(g);
            self->publish();
            break;
        }
        case AVAHI_ENTRY_GROUP_FAILURE:
            self->log_->error("mDNS: the announcement failed: {}",
                              avahi_strerror(avahi_client_errno(avahi_entry_group_get_client(g))));
            break;
        case AVAHI_ENTRY_GROUP_UNCOMMITED:
        case AVAHI_ENTRY_GROUP_REGISTERING:
            break;
        }
    }

    // (Re)publishes listener_ in the entry group: on Avahi's thread or under the poll's lock.
    void publish() {
        if (!client_ || avahi_client_get_state(client_) != AVAHI_CLIENT_S_RUNNING) return;
        if (!group_) group_ = avahi_entry_group_new(client_, &AvahiAnnouncer::on_group, this);
        if (!group_) {
            log_->error("mDNS: cannot create an entry group: {}",
                        avahi_strerror(avahi_client_errno(client_)));
            return;
        }
        avahi_entry_group_reset(group_);
        if (!listener_) return; // withdrawn
        const int ifindex = interface_of(listener_->host);
        const AvahiProtocol proto = is_ipv6(listener_->host) ? AVAHI_PROTO_INET6 : AVAHI_PROTO_INET;
        AvahiStringList *txt = nullptr;
        for (auto &r : txt_records(*listener_)) txt = avahi_string_list_add(txt, r.c_str());
        int rc = avahi_entry_group_add_service_strlst(group_, ifindex < 0 ? AVAHI_IF_UNSPEC : ifindex, proto,
                                                      AvahiPublishFlags(0), name_.c_str(), kServiceType,
                                                      nullptr, nullptr, listener_->port, txt);
        avahi_string_list_free(txt);
        if (rc == AVAHI_ERR_COLLISION) {
            take_alternative_name();
            return publish();
        }
        if (rc >= 0) rc = avahi_entry_group_commit(group_);
        if (rc < 0) log_->error("mDNS: cannot announce {}: {}", listener_->str(), avahi_strerror(rc));
    }

    // The name is taken (on the network, or locally by another client): Avahi's next one,
    // "name #2", then "name #3", ...
    void take_alternative_name() {
        char *alt = avahi_alternative_service_name(name_.c_str());
        log_->warn("mDNS: the name \"{}\" is taken; trying \"{}\"", name_, alt);
        name_ = alt;
        avahi_free(alt);
    }

    void drop_group() {
        if (group_) avahi_entry_group_free(group_);
        group_ = nullptr;
    }

    void schedule_restart() {
        const AvahiPoll *api = avahi_threaded_poll_get(poll_);
        timeval tv{};
        avahi_elapse_time(&tv, kRetryMs, 0);
        if (restart_)
            api->timeout_update(restart_, &tv);
        else
            restart_ = api->timeout_new(api, &tv, &AvahiAnnouncer::on_restart, this);
    }

    static void on_restart(AvahiTimeout *, void *arg) {
        auto *self = static_cast<AvahiAnnouncer *>(arg);
        if (self->client_) avahi_client_free(self->client_);
        self->client_ = nullptr;
        if (int error = self->connect(); error != 0) self->waiting(avahi_strerror(error));
    }

    static constexpr unsigned kRetryMs = 2000; // a new client while there is no bus or daemon

    std::string name_;
    std::shared_ptr<spdlog::logger> log_;
    AvahiThreadedPoll *poll_ = nullptr;
    AvahiClient *client_ = nullptr;
    AvahiEntryGroup *group_ = nullptr;
    AvahiTimeout *restart_ = nullptr;
    bool waiting_logged_ = false;
    std::optional<nvmeof::transport::ListenAddress> listener_;
};

} // namespace

Result<std::unique_ptr<MdnsAnnouncer>> MdnsAnnouncer::create(const std::string &name) {
    auto a = std::make_unique<AvahiAnnouncer>(name.empty() ? default_name() : name);
    if (auto st = a->start(); !st) return st.error();
    return std::unique_ptr<MdnsAnnouncer>(std::move(a));
}

#else // built without Avahi

Result<std::unique_ptr<MdnsAnnouncer>> MdnsAnnouncer::create(const std::string &) {
    (void)default_name;
    (void)interface_of;
    (void)is_ipv6;
    return make_error(DOCA_ERROR_NOT_SUPPORTED,
                      "mdns.announce: this skiff-target was built without Avahi's client library "
                      "(libavahi-client-dev); install it and build again, or turn the announcement off");
}

#endif

} // namespace skiff::dataplane
