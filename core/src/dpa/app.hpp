// The object behind doca_dpa_app: skiff's stand-in for the DPACC-built DPA program. Device
// functions are ordinary C/C++ functions registered here with their argument count (every argument
// is one uint64_t), so a kernel launch or an RPC can unpack its variadic arguments and call them.
#pragma once

#include <doca_dpa.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace skiff::core::dpa {

// One registered device function.
struct DeviceFunction {
    doca_dpa_func_t *func = nullptr;
    unsigned num_args = 0;
    bool rpc = false; // returns uint64_t
    std::string name;
};

using Args = std::array<uint64_t, SKIFF_DPA_MAX_FUNC_ARGS>;

// Calls a kernel / thread function with its first fn.num_args arguments.
void call_kernel(const DeviceFunction &fn, const Args &args);
// Calls an RPC function and returns its result.
uint64_t call_rpc(const DeviceFunction &fn, const Args &args);
// Reads fn.num_args uint64_t arguments from a va_list.
Args read_args(const DeviceFunction &fn, va_list ap);

} // namespace skiff::core::dpa

struct doca_dpa_app {
    std::string name;
    std::vector<skiff::core::dpa::DeviceFunction> functions;
    std::atomic<uint32_t> users{0}; // DPA contexts using it

    // nullptr when func is not registered (with the wanted kind).
    const skiff::core::dpa::DeviceFunction *find(doca_dpa_func_t *func, bool rpc) const;
};
