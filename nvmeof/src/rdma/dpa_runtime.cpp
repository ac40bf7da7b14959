#include "dpa_runtime.hpp"

#include "rdma_dpa_queue.hpp"
#include "skiff/core/log.hpp"

namespace skiff::nvmeof::rdma {

doca_dpa_func_t *DpaRuntime::queue_thread_function() {
    return reinterpret_cast<doca_dpa_func_t *>(&DpaQueue::thread_main);
}

Result<std::shared_ptr<DpaRuntime>> DpaRuntime::start(unsigned eus) {
    std::shared_ptr<DpaRuntime> rt(new DpaRuntime());
    auto dev = core::Device::open_with_cap(core::DevCap::dpa);
    if (!dev) return make_error(dev.error().code, "dpa data path: no DPA device: " + dev.error().message);
    rt->dev_ = std::move(*dev);
    auto step = [](doca_error_t r, const char *what) {
        return check(r, std::string("dpa data path: ") + what);
    };
    if (auto st = step(skiff_dpa_app_create("skiff_nvmf_rdma", &rt->app_), "skiff_dpa_app_create"); !st)
        return st.error();
    if (auto st = step(skiff_dpa_app_add_kernel(rt->app_, queue_thread_function(), 1, "nvmf_rdma_queue"),
                       "registering the queue thread");
        !st)
        return st.error();
    if (auto st = step(skiff_dpa_app_add_rpc(rt->app_, DpaQueue::arm_function(), 2, "nvmf_rdma_queue_arm"),
                       "registering the arming RPC");
        !st)
        return st.error();
    if (auto st = step(doca_dpa_create(rt->dev_.get(), &rt->dpa_), "doca_dpa_create"); !st) return st.error();
    if (auto st = step(doca_dpa_set_app(rt->dpa_, rt->app_), "doca_dpa_set_app"); !st) return st.error();
    if (auto st = step(skiff_dpa_set_num_eus(rt->dpa_, eus), "setting the number of EUs"); !st)
        return st.error();
    if (auto st = step(doca_dpa_start(rt->dpa_), "doca_dpa_start"); !st) return st.error();
    rt->eus_ = eus;
    skiff::log::get("rdma")->info("dpa data path: {} execution unit(s) on {}", eus, rt->dev_.iface_name());
    return rt;
}

DpaRuntime::~DpaRuntime() {
    if (dpa_) {
        doca_dpa_stop(dpa_);
        doca_dpa_destroy(dpa_);
    }
    if (app_) skiff_dpa_app_destroy(app_);
}

} // namespace skiff::nvmeof::rdma
