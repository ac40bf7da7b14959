#include "skiff/dataplane/rbd_device.hpp"

#include "rbd_channel.hpp"
#include "skiff/core/log.hpp"

#include <cerrno>
#include <cstring>
#include <ctime>
#include <unistd.h>

namespace skiff::dataplane {
namespace {

constexpr uint32_t kMaxQueueDepth = 4096;

std::string client_name_of(const std::string &name) {
    return name.rfind("client.", 0) == 0 ? name : "client." + name;
}

// Names the image: "pool/image" or "pool/namespace/image".
std::string label_of(const RbdOptions &o) {
    return o.pool + "/" + (o.rados_namespace.empty() ? "" : o.rados_namespace + "/") + o.image;
}

std::string errno_text(int rc) {
    return std::strerror(rc < 0 ? -rc : rc);
}

// The image's feature bits by name (librbd's RBD_FEATURE_*), for the log and the checks.
std::string feature_names(uint64_t f) {
    static const struct {
        uint64_t bit;
        const char *name;
    } kNames[] = {{RBD_FEATURE_LAYERING, "layering"},
                  {RBD_FEATURE_STRIPINGV2, "striping"},
                  {RBD_FEATURE_EXCLUSIVE_LOCK, "exclusive-lock"},
                  {RBD_FEATURE_OBJECT_MAP, "object-map"},
                  {RBD_FEATURE_FAST_DIFF, "fast-diff"},
                  {RBD_FEATURE_DEEP_FLATTEN, "deep-flatten"},
                  {RBD_FEATURE_JOURNALING, "journaling"},
                  {RBD_FEATURE_DATA_POOL, "data-pool"}};
    std::string out;
    for (auto &n : kNames)
        if (f & n.bit) out += (out.empty() ? "" : ",") + std::string(n.name);
    return out.empty() ? "none" : out;
}

} // namespace

RbdDevice::RbdDevice(RbdOptions options) : options_(std::move(options)), label_(label_of(options_)) {}

Result<std::shared_ptr<RbdDevice>> RbdDevice::open(const RbdOptions &options) {
    if (options.pool.empty() || options.image.empty())
        return make_error(DOCA_ERROR_INVALID_VALUE, "rbd backend: a pool and an image are required");
    if (options.queue_depth == 0 || options.queue_depth > kMaxQueueDepth)
        return make_error(DOCA_ERROR_INVALID_VALUE, "rbd backend: " + label_of(options) + ": queue depth " +
                                                        std::to_string(options.queue_depth) +
                                                        " is outside 1.." + std::to_string(kMaxQueueDepth));
    std::shared_ptr<RbdDevice> dev(new RbdDevice(options));
    if (auto st = dev->connect(); !st) return st.error();
    dev->watcher_ = std::thread([raw = dev.get()] { raw->watch_loop(); });
    return dev;
}

// Everything that can block: reading ceph.conf, reaching a monitor (bounded by
// client_mount_timeout), opening the pool and the image. Runs where the configuration is
// applied, never on a poll group thread.
Status RbdDevice::connect() {
    const RbdOptions &o = options_;
    const std::string who = "rbd backend: " + label_ + " (ceph.conf " + o.conf_path + ", " +
                            client_name_of(o.client_name) + "): ";
    auto fail = [&](const std::string &what, int rc, const std::string &hint = "") {
        doca_error_t code = rc == -ENOENT                           ? DOCA_ERROR_NOT_FOUND
                            : (rc == -EACCES || rc == -EPERM)       ? DOCA_ERROR_NOT_PERMITTED
                            : (rc == -ETIMEDOUT || rc == -ENOTCONN) ? DOCA_ERROR_TIME_OUT
                                                                    : DOCA_ERROR_OPERATING_SYSTEM;
        return make_error(code, who + what + ": " + errno_text(rc) + hint);
    };
    int rc = rados_create2(&cluster_, "ceph", client_name_of(o.client_name).c_str(), 0);
    if (rc < 0) {
        cluster_ = nullptr;
        return fail("cannot create the cluster handle", rc);
    }
    if (::access(o.conf_path.c_str(), R_OK) != 0)
        return fail("cannot read the configuration file", -errno,
                    " (the cluster's ceph.conf: mon_host and, usually, the keyring)");
    if ((rc = rados_conf_read_file(cluster_, o.conf_path.c_str())) < 0)
        return fail("cannot parse the configuration file", rc);
    const std::string op_timeout = std::to_string(o.op_timeout_s);
    // Bounded waits: a lost cluster fails I/O (and the probe) instead of hanging it, well
    // within the 30 s a Linux host waits for an I/O before it resets the controller.
    const std::pair<const char *, std::string> settings[] = {
        {"client_mount_timeout", std::to_string(o.connect_timeout_s)},
        {"rados_osd_op_timeout", op_timeout},
        {"rados_mon_op_timeout", op_timeout},
        // A completed write must be on the OSDs: no client-side write-back cache (VWC clear).
        {"rbd_cache", "false"},
        // librbd copies a write's bytes when it takes the write (its default, pinned here): the
        // watchdog may then answer a stuck write early without librbd reading the request's
        // buffer afterwards (backend README, "Losing the cluster").
        {"rbd_disable_zero_copy_writes", "true"},
        // librados' own log must not land on the target's stderr.
        {"log_to_stderr", "false"},
        {"err_to_stderr", "false"},
    };
    for (auto &[key, value] : settings)
        if ((rc = rados_conf_set(cluster_, key, value.c_str())) < 0)
            return fail(std::string("cannot set ") + key + "=" + value, rc);
    if (!o.keyring.empty() && (rc = rados_conf_set(cluster_, "keyring", o.keyring.c_str())) < 0)
        return fail("cannot set keyring " + o.keyring, rc);
    if ((rc = rados_connect(cluster_)) < 0)
        return fail("cannot connect to the cluster", rc,
                    rc == -ETIMEDOUT || rc == -ENOTCONN
                        ? " (no monitor answered within " + std::to_string(o.connect_timeout_s) +
                              " s: is mon_host in the ceph.conf right and the cluster up?)"
                        : std::string(rc == -ENOENT || rc == -EACCES || rc == -EPERM
                                          ? " (the client's key: check the keyring and the client name)"
                                          : ""));
    if ((rc = rados_ioctx_create(cluster_, o.pool.c_str(), &ioctx_)) < 0) {
        ioctx_ = nullptr;
        return fail("cannot open pool \"" + o.pool + "\"", rc, rc == -ENOENT ? " (no such pool)" : "");
    }
    rados_ioctx_set_namespace(ioctx_, o.rados_namespace.empty() ? nullptr : o.rados_namespace.c_str());
    if ((rc = rbd_open(ioctx_, o.image.c_str(), &image_, nullptr)) < 0) {
        image_ = nullptr;
        return fail("cannot open image \"" + o.image + "\"", rc,
                    rc == -ENOENT ? " (no such image in that pool" +
                                        std::string(o.rados_namespace.empty() ? "" : " and namespace") + ")"
                                  : "");
    }
    uint64_t actual = 0, features = 0;
    if ((rc = rbd_get_size(image_, &actual)) < 0) return fail("cannot read the image's size", rc);
    if ((rc = rbd_get_features(image_, &features)) < 0) return fail("cannot read the image's features", rc);
    if (features & RBD_FEATURE_JOURNALING)
        return make_error(DOCA_ERROR_NOT_SUPPORTED,
                          who +
                              "the image has the journaling feature, which skiff does not serve (every "
                              "write would go twice; `rbd feature disable " +
                              label_ + " journaling`)");
    exclusive_lock_ = (features & RBD_FEATURE_EXCLUSIVE_LOCK) != 0;
    char id[64] = {};
    if (rbd_get_id(image_, id, sizeof(id)) == 0) header_object_ = std::string("rbd_header.") + id;
    uint64_t want = o.size_bytes ? o.size_bytes : actual;
    if (want > actual)
        return make_error(DOCA_ERROR_INVALID_VALUE, who + "the image is " + std::to_string(actual) +
                                                        " bytes, smaller than the requested size " +
                                                        std::to_string(want) + " (rbd resize)");
    size_ = want / 4096 * 4096;
    if (size_ == 0)
        return make_error(DOCA_ERROR_INVALID_VALUE,
                          who + "the image is " + std::to_string(actual) + " bytes: smaller than 4 KiB");
    skiff::log::get("dataplane")
        ->info("rbd backend: {} as {}: {} bytes, features {}{}", label_, client_name_of(o.client_name),
               size_bytes(), feature_names(features),
               features & RBD_FEATURE_EXCLUSIVE_LOCK
                   ? ""
                   : " (no exclusive-lock: serve it from one gateway only, and stuck writes wait for librbd "
                     "instead of failing over; see dataplane/src/backend/README.md)");
    return Status::success();
}

RbdDevice::~RbdDevice() {
    {
        std::lock_guard<std::mutex> lock(mu_);
        stop_ = true;
    }
    wake_.notify_all();
    if (watcher_.joinable()) watcher_.join();
    if (image_) rbd_close(image_); // waits for librbd's own in-flight work; channels are gone
    if (ioctx_) rados_ioctx_destroy(ioctx_);
    if (cluster_) rados_shutdown(cluster_);
}

Result<std::unique_ptr<nvmeof::target::IoChannel>>
RbdDevice::open_channel(nvmeof::target::PollContext &ctx, const nvmeof::target::ChannelParams &params) {
    uint32_t depth = params.queue_depth ? params.queue_depth : options_.queue_depth;
    auto ch = std::make_unique<RbdChannel>(*this, ctx, depth, params.max_io_bytes);
    if (auto st = ch->start(); !st) return st.error();
    return std::unique_ptr<nvmeof::target::IoChannel>(std::move(ch));
}

template <typename F>
void RbdDevice::update_state(F f, const char *why) {
    uint64_t old = state_.load(std::memory_order_acquire), next;
    bool was, is;
    do {
        next = f(old) & kDownMask;
        was = (old & kDownMask) == 0;
        is = next == 0;
        next |= ((old >> kChangesShift) + (was != is)) << kChangesShift;
    } while (!state_.compare_exchange_weak(old, next, std::memory_order_acq_rel, std::memory_order_acquire));
    if (was == is) return;
    auto log = skiff::log::get("dataplane");
    if (!is)
        log->warn("rbd backend: {}: {}: namespace inaccessible (ANA) until it answers again", label_, why);
    else
        log->info("rbd backend: {}: cluster reachable again and no I/O stuck: namespace accessible", label_);
}

void RbdDevice::set_lost(bool lost) {
    update_state([lost](uint64_t s) { return lost ? s | kLost : s & ~kLost; }, "cluster unreachable");
}

void RbdDevice::set_stalled(bool stalled) {
    update_state([stalled](uint64_t s) { return stalled ? s + kStalledOne : s - kStalledOne; },
                 "an I/O has been inside librbd for longer than op_timeout_s");
}

void RbdDevice::mark_lost(int err) {
    if (accessible())
        skiff::log::get("dataplane")->warn("rbd backend: {}: I/O failed: {}", label_, errno_text(err));
    set_lost(true);
    wake_.notify_all(); // probe now: the watcher decides when it is back
}

// Reachable = a monitor answers a command and the OSD holding the image's header answers a
// stat, each within op_timeout_s. The image's I/O needs both (maps, OSD sessions).
bool RbdDevice::probe() {
    const char *cmd[] = {"{\"prefix\": \"mon stat\", \"format\": \"json\"}"};
    char *out = nullptr, *status = nullptr;
    size_t out_len = 0, status_len = 0;
    int rc = rados_mon_command(cluster_, cmd, 1, "", 0, &out, &out_len, &status, &status_len);
    if (out) rados_buffer_free(out);
    if (status) rados_buffer_free(status);
    if (rc < 0) return false;
    if (header_object_.empty()) return true;
    uint64_t size = 0;
    time_t mtime = 0;
    return rados_stat(ioctx_, header_object_.c_str(), &size, &mtime) == 0;
}

uint64_t RbdDevice::monotonic_ms() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000 + static_cast<uint64_t>(ts.tv_nsec) / 1000000;
}

void RbdDevice::check_probe(uint64_t now_ms) {
    const uint64_t started = probe_started_ms_.load(std::memory_order_acquire);
    if (started == 0 || now_ms - started < options_.op_timeout_s * 1000ull || !accessible()) return;
    skiff::log::get("dataplane")
        ->warn("rbd backend: {}: the cluster has not answered the reachability probe for {} ms", label_,
               now_ms - started);
    set_lost(true);
}

void RbdDevice::watch_loop() {
    std::unique_lock<std::mutex> lock(mu_);
    while (!stop_) {
        lock.unlock();
        probe_started_ms_.store(monotonic_ms(), std::memory_order_release);
        bool ok = probe();
        probe_started_ms_.store(0, std::memory_order_release);
        lock.lock();
        if (stop_) break;
        set_lost(!ok);
        wake_.wait_for(lock, std::chrono::milliseconds(options_.probe_interval_ms));
    }
}

Status RbdDevice::grow(uint64_t new_size_bytes) {
    if (new_size_bytes <= size_bytes() || new_size_bytes % 4096)
        return make_error(DOCA_ERROR_INVALID_VALUE,
                          label_ + ": grows to a larger multiple of 4096 bytes than its " +
                              std::to_string(size_bytes()) + ", not to " + std::to_string(new_size_bytes));
    uint64_t actual = 0;
    if (int rc = rbd_get_size(image_, &actual); rc < 0)
        return make_error(DOCA_ERROR_IO_FAILED,
                          label_ + ": cannot read the image's size: " + std::strerror(-rc));
    if (actual < new_size_bytes) {
        if (int rc = rbd_resize(image_, new_size_bytes); rc < 0)
            return make_error(DOCA_ERROR_IO_FAILED, label_ + ": rbd_resize to " +
                                                        std::to_string(new_size_bytes) +
                                                        " bytes failed: " + std::strerror(-rc));
    }
    size_.store(new_size_bytes, std::memory_order_release);
    skiff::log::get("dataplane")->info("rbd backend: {} grew to {} bytes", label_, new_size_bytes);
    return Status::success();
}

} // namespace skiff::dataplane
