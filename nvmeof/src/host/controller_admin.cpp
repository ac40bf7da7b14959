// Admin commands of a connected controller, and the keep-alive thread.
#include "skiff/nvmeof/host/controller.hpp"

#include "skiff/core/log.hpp"
#include "skiff/nvmeof/host/commands.hpp"

#include <cstring>

namespace skiff::nvmeof::host {

Result<Completion> Controller::admin(const wire::Sqe &sqe, DataDir dir, void *data, uint32_t len) {
    std::lock_guard lock(admin_mu_);
    return admin_locked(sqe, dir, data, len);
}

Result<Completion> Controller::admin_locked(const wire::Sqe &sqe, DataDir dir, void *data, uint32_t len) {
    return admin_->execute(sqe, dir, data, len, options_.timeout);
}

Result<nvme_id_ctrl> Controller::identify_controller() {
    nvme_id_ctrl id{};
    Result<Completion> c =
        admin(cmd::identify(NVME_IDENTIFY_CNS_CTRL, 0), DataDir::kControllerToHost, &id, sizeof(id));
    if (!c) return c.error();
    if (Status st = to_status(*c, "Identify Controller"); !st) return st.error();
    return id;
}

Result<nvme_id_ns> Controller::identify_namespace(uint32_t nsid) {
    nvme_id_ns id{};
    Result<Completion> c =
        admin(cmd::identify(NVME_IDENTIFY_CNS_NS, nsid), DataDir::kControllerToHost, &id, sizeof(id));
    if (!c) return c.error();
    if (Status st = to_status(*c, "Identify Namespace " + std::to_string(nsid)); !st) return st.error();
    return id;
}

Result<std::vector<uint32_t>> Controller::active_namespaces(uint32_t after_nsid) {
    uint32_t list[1024] = {};
    Result<Completion> c = admin(cmd::identify(NVME_IDENTIFY_CNS_NS_ACTIVE_LIST, after_nsid),
                                 DataDir::kControllerToHost, list, sizeof(list));
    if (!c) return c.error();
    if (Status st = to_status(*c, "Identify Active Namespace ID list"); !st) return st.error();
    std::vector<uint32_t> out;
    for (uint32_t nsid : list) {
        if (nsid == 0) break;
        out.push_back(nsid);
    }
    return out;
}

Status Controller::get_log_page(uint8_t lid, uint32_t nsid, void *buf, uint32_t len, uint64_t offset) {
    if (len == 0 || len % 4 != 0)
        return make_error(DOCA_ERROR_INVALID_VALUE,
                          "Get Log Page length " + std::to_string(len) + " must be a non-zero multiple of 4");
    Result<Completion> c =
        admin(cmd::get_log_page(lid, nsid, len, offset), DataDir::kControllerToHost, buf, len);
    if (!c) return c.error();
    return to_status(*c, "Get Log Page " + std::to_string(lid));
}

Result<DiscoveryLog> Controller::discovery_log() {
    // Header first for NUMREC, then everything; retry when GENCTR moved in between.
    constexpr size_t kEntry = sizeof(nvmf_disc_log_entry);
    for (int attempt = 0; attempt < 3; ++attempt) {
        nvmf_discovery_log head{};
        if (Status st = get_log_page(NVME_LOG_LID_DISCOVER, 0, &head, sizeof(head)); !st) return st.error();
        const uint64_t numrec = head.numrec;
        if (numrec > 1024)
            return make_error(DOCA_ERROR_UNEXPECTED,
                              "discovery log claims " + std::to_string(numrec) + " records");
        std::vector<uint8_t> page(sizeof(head) + numrec * kEntry);
        if (Status st =
                get_log_page(NVME_LOG_LID_DISCOVER, 0, page.data(), static_cast<uint32_t>(page.size()));
            !st)
            return st.error();
        const auto *full = reinterpret_cast<const nvmf_discovery_log *>(page.data());
        if (full->genctr != head.genctr || full->numrec != numrec) continue;
        DiscoveryLog log;
        log.genctr = full->genctr;
        log.recfmt = full->recfmt;
        log.entries.resize(numrec);
        std::memcpy(log.entries.data(), page.data() + sizeof(head), numrec * kEntry);
        return log;
    }
    return make_error(DOCA_ERROR_AGAIN, "discovery log kept changing (GENCTR) across 3 reads");
}

Result<uint32_t> Controller::get_features(uint8_t fid, uint32_t nsid, uint32_t cdw11) {
    Result<Completion> c = admin(cmd::get_features(fid, nsid, 0, cdw11));
    if (!c) return c.error();
    if (Status st = to_status(*c, "Get Features " + std::to_string(fid)); !st) return st.error();
    return static_cast<uint32_t>(c->cqe.result);
}

Result<uint32_t> Controller::set_features(uint8_t fid, uint32_t value, uint32_t nsid) {
    Result<Completion> c = admin(cmd::set_features(fid, value, nsid));
    if (!c) return c.error();
    if (Status st = to_status(*c, "Set Features " + std::to_string(fid)); !st) return st.error();
    return static_cast<uint32_t>(c->cqe.result);
}

Status Controller::keep_alive() {
    Result<Completion> c = admin(cmd::keep_alive());
    if (!c) return c.error();
    return to_status(*c, "Keep Alive");
}

Result<uint64_t> Controller::property_get(uint32_t offset, bool eight_bytes) {
    Result<Completion> c = admin(cmd::property_get(offset, eight_bytes));
    if (!c) return c.error();
    if (Status st = to_status(*c, "Property Get " + std::to_string(offset), true); !st) return st.error();
    return eight_bytes ? c->cqe.result : (c->cqe.result & 0xFFFFFFFFu);
}

Status Controller::property_set(uint32_t offset, uint64_t value, bool eight_bytes) {
    Result<Completion> c = admin(cmd::property_set(offset, value, eight_bytes));
    if (!c) return c.error();
    return to_status(*c, "Property Set " + std::to_string(offset), true);
}

void Controller::start_keep_alive() {
    if (ka_thread_.joinable() || options_.kato_ms == 0) return;
    ka_stop_ = false;
    ka_thread_ = std::thread([this] { keep_alive_loop(); });
}

void Controller::stop_keep_alive() {
    {
        std::lock_guard lock(ka_mu_);
        ka_stop_ = true;
    }
    ka_cv_.notify_all();
    if (ka_thread_.joinable()) ka_thread_.join();
}

void Controller::keep_alive_loop() {
    const auto interval = std::chrono::milliseconds(std::max<uint32_t>(options_.kato_ms / 2, 1));
    std::unique_lock lock(ka_mu_);
    while (!ka_cv_.wait_for(lock, interval, [this] { return ka_stop_; })) {
        lock.unlock();
        if (Status st = keep_alive(); !st) {
            skiff::log::get("host")->warn("keep alive to cntlid {} failed, stopping: {}", cntlid_,
                                          st.error().message);
            return;
        }
        lock.lock();
    }
}

} // namespace skiff::nvmeof::host
