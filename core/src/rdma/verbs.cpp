// Why one PD per device per process: an mmap is registered once and used by every RDMA context
// on the device, so the MR and every QP must share a PD. RDMA-CM binds its ids to the verbs
// contexts of rdma_get_devices(), so the PD is allocated on those.
#include "rdma/verbs.hpp"

#include "dev/device.hpp"
#include "mem/mmap.hpp"

#include <doca_types.h>

#include <skiff/core/log.hpp>

#ifdef SKIFF_HAVE_RDMA
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include <cstring>
#include <map>
#include <mutex>
#include <string>
#endif

namespace skiff::core::rdma {

namespace {
auto logger() {
    return skiff::log::get("rdma");
}
} // namespace

int ibv_access_of(uint32_t p) {
#ifdef SKIFF_HAVE_RDMA
    int a = 0;
    if (p & DOCA_ACCESS_FLAG_LOCAL_READ_WRITE) a |= IBV_ACCESS_LOCAL_WRITE;
    if (p & DOCA_ACCESS_FLAG_RDMA_READ) a |= IBV_ACCESS_REMOTE_READ;
    // Remote write and atomic require local write (verbs rule).
    if (p & DOCA_ACCESS_FLAG_RDMA_WRITE) a |= IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_LOCAL_WRITE;
    if (p & DOCA_ACCESS_FLAG_RDMA_ATOMIC) a |= IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_LOCAL_WRITE;
    return a;
#else
    (void)p;
    return 0;
#endif
}

#ifdef SKIFF_HAVE_RDMA

doca_error_t verbs_device_of(const doca_dev *dev, const char *what, VerbsDevice *out) {
    const auto &desc = dev::desc_of(dev);
    if (desc.ibdev_name.empty()) {
        logger()->error("{}: device {} has no RDMA (it is not an rdma-core device); open an RDMA device "
                        "such as rxe0 or mlx5_0",
                        what, desc.name);
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    // Never destroyed: the PDs live until exit and stay reachable (no static destructor runs
    // while a context or an MR might still use them).
    static std::mutex mu;
    static auto &devices = *new std::map<std::string, VerbsDevice>;
    std::lock_guard lock(mu);
    if (auto it = devices.find(desc.ibdev_name); it != devices.end()) {
        *out = it->second;
        return DOCA_SUCCESS;
    }
    int n = 0;
    ibv_context **list = rdma_get_devices(&n);
    if (list == nullptr) {
        logger()->error("{}: rdma_get_devices failed: {}", what, std::strerror(errno));
        return DOCA_ERROR_DRIVER;
    }
    VerbsDevice vd;
    for (int i = 0; i < n; ++i)
        if (desc.ibdev_name == ibv_get_device_name(list[i]->device)) vd.ctx = list[i];
    rdma_free_devices(list); // the contexts stay open for the life of the process
    if (vd.ctx == nullptr) {
        logger()->error("{}: RDMA device {} is not known to RDMA-CM", what, desc.ibdev_name);
        return DOCA_ERROR_NOT_FOUND;
    }
    vd.pd = ibv_alloc_pd(vd.ctx);
    if (vd.pd == nullptr) {
        logger()->error("{}: ibv_alloc_pd on {} failed: {}", what, desc.ibdev_name, std::strerror(errno));
        return DOCA_ERROR_DRIVER;
    }
    devices.emplace(desc.ibdev_name, vd);
    *out = vd;
    return DOCA_SUCCESS;
}

doca_error_t mmap_mr(doca_mmap *m, const doca_dev *dev, ibv_mr **out) {
    for (const auto &r : m->rdma_regs)
        if (r.dev == dev) {
            *out = r.mr;
            return DOCA_SUCCESS;
        }
    VerbsDevice vd;
    if (auto r = verbs_device_of(dev, "mmap registration", &vd); r != DOCA_SUCCESS) return r;
    ibv_mr *mr = ibv_reg_mr(vd.pd, m->addr, m->len, ibv_access_of(m->permissions));
    if (mr == nullptr) {
        logger()->error("ibv_reg_mr of [{}, +{}) on {} failed: {}", static_cast<void *>(m->addr), m->len,
                        dev::desc_of(dev).ibdev_name, std::strerror(errno));
        return DOCA_ERROR_DRIVER;
    }
    m->rdma_regs.push_back({dev, mr, {}});
    logger()->debug("registered mmap [{}, +{}) on {}: lkey {:#x} rkey {:#x}", static_cast<void *>(m->addr),
                    m->len, dev::desc_of(dev).ibdev_name, mr->lkey, mr->rkey);
    *out = mr;
    return DOCA_SUCCESS;
}

uint32_t mr_rkey(const ibv_mr *mr) {
    return mr->rkey;
}
uint32_t mr_lkey(const ibv_mr *mr) {
    return mr->lkey;
}

doca_error_t register_word(const doca_dev *dev, uint64_t *word, ibv_mr **out) {
    VerbsDevice vd;
    if (auto r = verbs_device_of(dev, "sync event export", &vd); r != DOCA_SUCCESS) return r;
    *out = ibv_reg_mr(vd.pd, word, sizeof *word,
                      IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
                          IBV_ACCESS_REMOTE_ATOMIC);
    if (*out == nullptr) {
        logger()->error("registering a sync event counter on {} failed: {}", dev::desc_of(dev).ibdev_name,
                        std::strerror(errno));
        return DOCA_ERROR_DRIVER;
    }
    return DOCA_SUCCESS;
}

void deregister_word(ibv_mr *mr) {
    ibv_dereg_mr(mr);
}

void mmap_deregister_all(doca_mmap *m) {
    for (auto &r : m->rdma_regs) ibv_dereg_mr(r.mr);
    m->rdma_regs.clear();
}

#else

doca_error_t verbs_device_of(const doca_dev *dev, const char *what, VerbsDevice *) {
    logger()->error("{}: device {}: skiff was built without rdma-core; RDMA is not available", what,
                    dev::desc_of(dev).name);
    return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t mmap_mr(doca_mmap *, const doca_dev *dev, ibv_mr **) {
    return verbs_device_of(dev, "mmap registration", nullptr);
}

uint32_t mr_rkey(const ibv_mr *) {
    return 0;
}
uint32_t mr_lkey(const ibv_mr *) {
    return 0;
}

void mmap_deregister_all(doca_mmap *) {}

doca_error_t register_word(const doca_dev *dev, uint64_t *, ibv_mr **) {
    return verbs_device_of(dev, "sync event export", nullptr);
}

void deregister_word(ibv_mr *) {}

#endif

} // namespace skiff::core::rdma
