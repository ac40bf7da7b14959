// doca_dpa_app: registration of device functions and calling them with unpacked arguments.
#include "dpa/app.hpp"

#include <skiff/core/log.hpp>

#include <cstring>
#include <new>
#include <utility>

namespace skiff::core::dpa {
namespace {

spdlog::logger &logger() {
    static auto log = skiff::log::get("dpa");
    return *log;
}

// The function's real type for N arguments: R f(uint64_t x N).
template <typename R, size_t... I>
R call_with(doca_dpa_func_t *func, const Args &args, std::index_sequence<I...>) {
    using Fn = R (*)(decltype(I, uint64_t{})...);
    return reinterpret_cast<Fn>(func)(args[I]...);
}

template <typename R, size_t N = 0>
R dispatch(doca_dpa_func_t *func, unsigned num_args, const Args &args) {
    if constexpr (N < SKIFF_DPA_MAX_FUNC_ARGS) {
        if (num_args != N) return dispatch<R, N + 1>(func, num_args, args);
    }
    return call_with<R>(func, args, std::make_index_sequence<N>{});
}

} // namespace

void call_kernel(const DeviceFunction &fn, const Args &args) {
    if (fn.invoke)
        fn.invoke(args.data());
    else
        dispatch<void>(fn.func, fn.num_args, args);
}

uint64_t call_rpc(const DeviceFunction &fn, const Args &args) {
    return fn.invoke ? fn.invoke(args.data()) : dispatch<uint64_t>(fn.func, fn.num_args, args);
}

bool read_args(const DeviceFunction &fn, va_list ap, Args &args) {
    args = Args{};
    if (!fn.capture) {
        for (unsigned i = 0; i < fn.num_args; ++i) args[i] = va_arg(ap, uint64_t);
        return true;
    }
    va_list copy; // the capture function takes a va_list *, which a va_list parameter is not everywhere
    va_copy(copy, ap);
    size_t used = fn.capture(&copy, args.data(), sizeof args);
    va_end(copy);
    if (used == 0) {
        logger().error("dpa: the arguments of {} take more than {} bytes", fn.name, sizeof args);
        return false;
    }
    return true;
}

} // namespace skiff::core::dpa

const skiff::core::dpa::DeviceFunction *doca_dpa_app::find(doca_dpa_func_t *func, bool rpc) const {
    for (const auto &f : functions) {
        if (f.func == func && f.rpc == rpc) return &f;
    }
    return nullptr;
}

using skiff::core::dpa::logger;

namespace {

doca_error_t add_function(doca_dpa_app *app, doca_dpa_func_t *func, unsigned num_args, const char *name,
                          bool rpc, skiff_dpa_capture_fn capture = nullptr,
                          skiff_dpa_invoke_fn invoke = nullptr) {
    if (!app || !func) return DOCA_ERROR_INVALID_VALUE;
    if (num_args > SKIFF_DPA_MAX_FUNC_ARGS) {
        logger().error("dpa app {}: function {} takes {} arguments; at most {} are supported", app->name,
                       name ? name : "?", num_args, SKIFF_DPA_MAX_FUNC_ARGS);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (app->users.load() != 0) {
        logger().error("dpa app {}: register functions before doca_dpa_set_app", app->name);
        return DOCA_ERROR_BAD_STATE;
    }
    for (const auto &f : app->functions) {
        if (f.func == func) return DOCA_ERROR_ALREADY_EXIST;
    }
    app->functions.push_back({func, num_args, rpc, name ? name : "unnamed", capture, invoke});
    return DOCA_SUCCESS;
}

} // namespace

extern "C" {

doca_error_t skiff_dpa_app_create(const char *name, doca_dpa_app **app) {
    if (!app) return DOCA_ERROR_INVALID_VALUE;
    *app = new (std::nothrow) doca_dpa_app();
    if (!*app) return DOCA_ERROR_NO_MEMORY;
    (*app)->name = name ? name : "dpa_app";
    return DOCA_SUCCESS;
}

doca_error_t skiff_dpa_app_destroy(doca_dpa_app *app) {
    if (!app) return DOCA_ERROR_INVALID_VALUE;
    if (app->users.load() != 0) return DOCA_ERROR_IN_USE;
    delete app;
    return DOCA_SUCCESS;
}

doca_error_t skiff_dpa_app_add_kernel(doca_dpa_app *app, doca_dpa_func_t *func, unsigned int num_args,
                                      const char *name) {
    return add_function(app, func, num_args, name, false);
}

doca_error_t skiff_dpa_app_add_rpc(doca_dpa_app *app, doca_dpa_func_t *func, unsigned int num_args,
                                   const char *name) {
    return add_function(app, func, num_args, name, true);
}

doca_error_t skiff_dpa_app_add_typed(doca_dpa_app *app, doca_dpa_func_t *func, bool rpc,
                                     unsigned int num_args, const char *name, skiff_dpa_capture_fn capture,
                                     skiff_dpa_invoke_fn invoke) {
    if (!capture || !invoke) return DOCA_ERROR_INVALID_VALUE;
    return add_function(app, func, num_args, name, rpc, capture, invoke);
}

doca_error_t doca_dpa_app_get_name(doca_dpa_app *app, char *app_name, size_t *app_name_len) {
    if (!app || !app_name || !app_name_len) return DOCA_ERROR_INVALID_VALUE;
    if (*app_name_len < app->name.size() + 1) return DOCA_ERROR_INVALID_VALUE;
    std::memcpy(app_name, app->name.c_str(), app->name.size() + 1);
    *app_name_len = app->name.size() + 1;
    return DOCA_SUCCESS;
}

} // extern "C"
