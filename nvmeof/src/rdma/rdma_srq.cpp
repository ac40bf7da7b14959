#include "rdma_srq.hpp"

#include "skiff/core/log.hpp"
#include "skiff/nvmeof/transport/buffer_areas.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <sys/mman.h>

namespace skiff::nvmeof::rdma {

namespace {

Status fail(const std::string &what) {
    return make_error(DOCA_ERROR_DRIVER, "shared receive queue: " + what + ": " + std::strerror(errno));
}

} // namespace

RdmaSrq::RdmaSrq(ibv_context *verbs, uint32_t depth, uint32_t capsule_len, uint64_t wr_tag)
    : verbs_(verbs), depth_(depth), capsule_len_(capsule_len), wr_tag_(wr_tag) {}

RdmaSrq::~RdmaSrq() {
    // Every QP on it is gone (they hold the last references): the SRQ, then its MR and PD.
    if (srq_) ibv_destroy_srq(srq_);
    if (mr_) ibv_dereg_mr(mr_);
    if (region_) {
        transport::buffer_areas::remove(region_);
        munmap(region_, region_len_);
    }
    if (pd_) ibv_dealloc_pd(pd_);
}

Status RdmaSrq::create() {
    pd_ = ibv_alloc_pd(verbs_);
    if (!pd_) return fail("ibv_alloc_pd");
    region_len_ = size_t(depth_) * capsule_len_;
    void *p = mmap(nullptr, region_len_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return fail("mmap of " + std::to_string(region_len_) + " bytes of capsules");
    region_ = static_cast<uint8_t *>(p);
    // In-capsule data is used where it landed, so DMA backends may read it from here.
    transport::buffer_areas::add(region_, region_len_);
    mr_ = ibv_reg_mr(pd_, region_, region_len_, IBV_ACCESS_LOCAL_WRITE);
    if (!mr_) return fail("ibv_reg_mr of " + std::to_string(region_len_) + " bytes");
    ibv_srq_init_attr attr{};
    attr.attr.max_wr = depth_;
    attr.attr.max_sge = 1;
    srq_ = ibv_create_srq(pd_, &attr);
    if (!srq_) return fail("ibv_create_srq with " + std::to_string(depth_) + " entries");
    for (uint32_t i = 0; i < depth_; ++i)
        if (!post(i)) return fail("ibv_post_srq_recv");
    return Status::success();
}

bool RdmaSrq::post(uint32_t index) {
    ibv_sge sge{reinterpret_cast<uintptr_t>(capsule(index)), capsule_len_, mr_->lkey};
    ibv_recv_wr wr{};
    wr.wr_id = wr_tag_ | index;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    ibv_recv_wr *bad = nullptr;
    if (ibv_post_srq_recv(srq_, &wr, &bad)) return false;
    ++posted_;
    return true;
}

Result<std::shared_ptr<RdmaSrq>> SrqPool::get(int group, ibv_context *verbs, uint32_t depth,
                                              uint32_t capsule_len, uint64_t wr_tag) {
    std::lock_guard lock(mu_);
    auto &slot = srqs_[{group, verbs}];
    if (auto srq = slot.lock()) return srq;
    ibv_device_attr dev{};
    if (ibv_query_device(verbs, &dev) == 0 && dev.max_srq_wr > 0 && uint32_t(dev.max_srq_wr) < depth) {
        skiff::log::get("rdma")->warn("shared receive queue depth {} clipped to the device's {} ({})", depth,
                                      dev.max_srq_wr, ibv_get_device_name(verbs->device));
        depth = uint32_t(dev.max_srq_wr);
    }
    auto srq = std::make_shared<RdmaSrq>(verbs, depth, capsule_len, wr_tag);
    if (auto st = srq->create(); !st) return st.error();
    skiff::log::get("rdma")->info("poll group {}: shared receive queue of {} capsules on {}", group, depth,
                                  ibv_get_device_name(verbs->device));
    slot = srq;
    return srq;
}

} // namespace skiff::nvmeof::rdma
