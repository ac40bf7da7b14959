// doca_dpa: base and extended contexts, their lifecycle, limits and handles.
#include "dpa/dpa_context.hpp"

#include "dev/device.hpp"
#include "dpa/event_waiters.hpp"
#include "dpa/kernel_launch.hpp"

#include <skiff/core/device.hpp>

#include <cstdlib>
#include <new>

namespace skiff::core::dpa {
namespace {

std::atomic<int> g_hw_threads{0};

unsigned default_num_eus() {
    const char *v = std::getenv("SKIFF_DPA_EUS");
    if (!v || !*v) return 1;
    char *end = nullptr;
    unsigned long n = std::strtoul(v, &end, 10);
    if (!end || *end != '\0' || n == 0 || n > kMaxEus) {
        dpa_logger().warn("SKIFF_DPA_EUS={} is not a number in 1..{}; using 1 EU", v, kMaxEus);
        return 1;
    }
    return static_cast<unsigned>(n);
}

} // namespace

spdlog::logger &dpa_logger() {
    static auto log = skiff::log::get("dpa");
    return *log;
}

bool reserve_hw_threads(unsigned n) {
    int now = g_hw_threads.fetch_add(static_cast<int>(n), std::memory_order_acq_rel) + static_cast<int>(n);
    if (now <= static_cast<int>(SKIFF_DPA_MAX_HW_THREADS)) return true;
    g_hw_threads.fetch_sub(static_cast<int>(n), std::memory_order_acq_rel);
    dpa_logger().error("the DPA has {} hardware threads; {} more would make {}", SKIFF_DPA_MAX_HW_THREADS, n,
                       now);
    return false;
}

void release_hw_threads(unsigned n) {
    g_hw_threads.fetch_sub(static_cast<int>(n), std::memory_order_acq_rel);
}

} // namespace skiff::core::dpa

using skiff::core::dpa::check_usable;
using skiff::core::dpa::dpa_logger;

doca_dpa::~doca_dpa() {
    if (log_file) std::fclose(log_file);
    if (trace_file) std::fclose(trace_file);
    for (auto &[ptr, size] : heap) std::free(reinterpret_cast<void *>(ptr));
}

void doca_dpa::stop_engine() {
    skiff::core::dpa::cancel_waiting_launches(*this);
    engine.reset(); // joins the EUs; launched kernels still running finish first
}

extern "C" {

doca_error_t doca_devinfo_get_is_dpa_supported(const doca_devinfo *devinfo) {
    if (!devinfo) return DOCA_ERROR_INVALID_VALUE;
    return skiff::core::devinfo_has_cap(devinfo, skiff::core::DevCap::dpa) ? DOCA_SUCCESS
                                                                           : DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_dpa_cap_is_supported(const doca_devinfo *devinfo) {
    return doca_devinfo_get_is_dpa_supported(devinfo);
}

doca_error_t doca_dpa_create(doca_dev *dev, doca_dpa **dpa) {
    if (!dev || !dpa) return DOCA_ERROR_INVALID_VALUE;
    const auto &desc = skiff::core::dev::desc_of(dev);
    if (!desc.has_cap(skiff::core::DevCap::dpa) || desc.func_type != DOCA_PCI_FUNC_TYPE_PF) {
        dpa_logger().error("doca_dpa_create: device {} is not a PF with DPA support (extend a base context "
                           "with doca_dpa_device_extend for a VF/SF)",
                           desc.name);
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    *dpa = new (std::nothrow) doca_dpa();
    if (!*dpa) return DOCA_ERROR_NO_MEMORY;
    (*dpa)->dev = dev;
    (*dpa)->num_eus = skiff::core::dpa::default_num_eus();
    skiff::core::dpa::install_event_hook();
    return DOCA_SUCCESS;
}

doca_error_t doca_dpa_set_app(doca_dpa *dpa, doca_dpa_app *app) {
    if (!dpa || !app) return DOCA_ERROR_INVALID_VALUE;
    if (dpa->started || dpa->base) return DOCA_ERROR_BAD_STATE;
    if (dpa->app) dpa->app->users.fetch_sub(1);
    dpa->app = app;
    app->users.fetch_add(1);
    return DOCA_SUCCESS;
}

doca_error_t doca_dpa_get_app(doca_dpa *dpa, doca_dpa_app **app) {
    if (!dpa || !app) return DOCA_ERROR_INVALID_VALUE;
    *app = dpa->root().app;
    return DOCA_SUCCESS;
}

doca_error_t skiff_dpa_set_num_eus(doca_dpa *dpa, unsigned int num_eus) {
    if (!dpa) return DOCA_ERROR_INVALID_VALUE;
    if (dpa->started || dpa->base) return DOCA_ERROR_BAD_STATE;
    if (num_eus == 0 || num_eus > skiff::core::dpa::kMaxEus) {
        dpa_logger().error("skiff_dpa_set_num_eus: {} is not in 1..{}", num_eus, skiff::core::dpa::kMaxEus);
        return DOCA_ERROR_INVALID_VALUE;
    }
    dpa->num_eus = num_eus;
    return DOCA_SUCCESS;
}

doca_error_t skiff_dpa_get_num_eus(const doca_dpa *dpa, unsigned int *num_eus) {
    if (!dpa || !num_eus) return DOCA_ERROR_INVALID_VALUE;
    *num_eus = dpa->root().num_eus;
    return DOCA_SUCCESS;
}

doca_error_t doca_dpa_start(doca_dpa *dpa) {
    if (auto r = check_usable(dpa); r != DOCA_SUCCESS) return r;
    if (dpa->started) return DOCA_ERROR_BAD_STATE;
    if (!dpa->app) {
        dpa_logger().error("doca_dpa_start: no application; call doca_dpa_set_app first");
        return DOCA_ERROR_BAD_STATE;
    }
    dpa->engine = std::make_unique<skiff::core::dpa::Engine>(*dpa, dpa->num_eus);
    dpa->started = true;
    return DOCA_SUCCESS;
}

doca_error_t doca_dpa_stop(doca_dpa *dpa) {
    if (!dpa) return DOCA_ERROR_INVALID_VALUE;
    if (dpa->base) {
        dpa_logger().error("doca_dpa_stop: an extended context is stopped by destroying it");
        return DOCA_ERROR_NOT_PERMITTED;
    }
    if (!dpa->started) return DOCA_ERROR_BAD_STATE;
    if (dpa->objects.load() != 0) {
        dpa_logger().error("doca_dpa_stop: {} objects still exist on the context; destroy them first",
                           dpa->objects.load());
        return DOCA_ERROR_IN_USE;
    }
    dpa->stop_engine();
    dpa->started = false;
    return DOCA_SUCCESS;
}

doca_error_t doca_dpa_destroy(doca_dpa *dpa) {
    if (!dpa || dpa->magic != doca_dpa::kMagic) return DOCA_ERROR_INVALID_VALUE;
    if (uint32_t n = dpa->objects.load(); n != 0) {
        dpa_logger().error(
            "doca_dpa_destroy: {} objects (threads, completions, async ops, extended contexts, "
            "...) still exist on the context; destroy them first",
            n);
        return DOCA_ERROR_IN_USE;
    }
    if (dpa->base) {
        dpa->base->objects.fetch_sub(1);
    } else {
        if (dpa->started) dpa->stop_engine();
        if (dpa->app) dpa->app->users.fetch_sub(1);
    }
    dpa->magic = 0;
    delete dpa;
    return DOCA_SUCCESS;
}

doca_error_t doca_dpa_device_extend(doca_dpa *dpa, doca_dev *other_dev, doca_dpa **extended_dpa) {
    if (!other_dev || !extended_dpa) return DOCA_ERROR_INVALID_VALUE;
    if (auto r = check_usable(dpa); r != DOCA_SUCCESS) return r;
    if (dpa->base || !dpa->started) {
        dpa_logger().error("doca_dpa_device_extend: extend a started base context");
        return DOCA_ERROR_BAD_STATE;
    }
    auto type = skiff::core::dev::desc_of(other_dev).func_type;
    if (type != DOCA_PCI_FUNC_TYPE_VF && type != DOCA_PCI_FUNC_TYPE_SF) {
        dpa_logger().error("doca_dpa_device_extend: device {} is not a VF or SF",
                           skiff::core::dev::desc_of(other_dev).name);
        return DOCA_ERROR_INVALID_VALUE;
    }
    auto *ext = new (std::nothrow) doca_dpa();
    if (!ext) return DOCA_ERROR_NO_MEMORY;
    ext->base = dpa;
    ext->dev = other_dev;
    ext->started = true; // an extended context is returned started
    dpa->objects.fetch_add(1);
    *extended_dpa = ext;
    return DOCA_SUCCESS;
}

doca_error_t doca_dpa_get_dpa_handle(doca_dpa *dpa, doca_dpa_dev_t *handle) {
    if (!handle) return DOCA_ERROR_INVALID_VALUE;
    if (auto r = check_usable(dpa); r != DOCA_SUCCESS) return r;
    if (!dpa->started) return DOCA_ERROR_BAD_STATE;
    *handle = static_cast<doca_dpa_dev_t>(reinterpret_cast<uintptr_t>(dpa));
    return DOCA_SUCCESS;
}

doca_error_t doca_dpa_get_max_threads_per_kernel(const doca_dpa *dpa, unsigned int *value) {
    if (!dpa || !value) return DOCA_ERROR_INVALID_VALUE;
    *value = skiff::core::dpa::kMaxThreadsPerKernel;
    return DOCA_SUCCESS;
}

doca_error_t doca_dpa_get_core_num(const doca_dpa *dpa, unsigned int *num_cores) {
    if (!dpa || !num_cores) return DOCA_ERROR_INVALID_VALUE;
    *num_cores = skiff::core::dpa::kNumCores;
    return DOCA_SUCCESS;
}

doca_error_t doca_dpa_get_num_eus_per_core(const doca_dpa *dpa, unsigned int *num_eus) {
    if (!dpa || !num_eus) return DOCA_ERROR_INVALID_VALUE;
    *num_eus = skiff::core::dpa::kEusPerCore;
    return DOCA_SUCCESS;
}

// Every EU id an affinity may name (0..kMaxEuId); the emulation runs them on its workers.
doca_error_t doca_dpa_get_total_num_eus_available(const doca_dpa *dpa, unsigned int *num_eus) {
    if (!dpa || !num_eus) return DOCA_ERROR_INVALID_VALUE;
    *num_eus = skiff::core::dpa::kNumCores * skiff::core::dpa::kEusPerCore;
    return DOCA_SUCCESS;
}

doca_error_t doca_dpa_get_kernel_max_run_time(const doca_dpa *dpa, unsigned long long *value) {
    if (!dpa || !value) return DOCA_ERROR_INVALID_VALUE;
    *value = skiff::core::dpa::kKernelMaxRunTimeSec;
    return DOCA_SUCCESS;
}

doca_error_t doca_dpa_peek_at_last_error(const doca_dpa *dpa) {
    if (!dpa) return DOCA_ERROR_INVALID_VALUE;
    return dpa->usable() ? DOCA_SUCCESS : DOCA_ERROR_BAD_STATE;
}

} // extern "C"
