// The DPA error state: a device-side fault makes the whole DPA process (base context and its
// extensions) fatal for good, and writes a crash report (what real hardware dumps as
// doca_dpa_fatal.<PID>.core / .crash). Nothing resets it; only destroying the contexts helps.
#include "dpa/dpa_context.hpp"
#include "dpa/device_call.hpp"

#include <chrono>
#include <ctime>
#include <unistd.h>

std::string doca_dpa::crash_file_path() const {
    const doca_dpa &r = root();
    std::string dir = "/tmp";
    if (!r.log_path.empty()) {
        auto slash = r.log_path.rfind('/');
        dir = slash == std::string::npos ? "." : r.log_path.substr(0, slash == 0 ? 1 : slash);
    }
    return dir + "/doca_dpa_fatal." + std::to_string(::getpid()) + ".crash";
}

void doca_dpa::fail(const std::string &reason) {
    doca_dpa &r = root();
    std::call_once(r.fatal_once, [&] {
        r.fatal.store(true, std::memory_order_release);
        std::string path = crash_file_path();
        skiff::core::dpa::dpa_logger().critical(
            "DPA fatal error: {}; the context must be destroyed (crash report {})", reason, path);
        if (FILE *f = std::fopen(path.c_str(), "w")) {
            auto *call = skiff::core::dpa::current_call();
            std::fprintf(f, "skiff emulated DPA fatal error\n");
            std::fprintf(f, "pid: %d\n", static_cast<int>(::getpid()));
            std::fprintf(f, "time: %lld\n", static_cast<long long>(std::time(nullptr)));
            std::fprintf(f, "application: %s\n", r.app ? r.app->name.c_str() : "(none)");
            std::fprintf(f, "reason: %s\n", reason.c_str());
            if (call) {
                static const char *kinds[] = {"dpa thread", "kernel", "rpc"};
                std::fprintf(f, "running: %s %s, rank %u of %u, EU %u\n", kinds[static_cast<int>(call->kind)],
                             call->function, call->rank, call->num_threads,
                             call->eu ? call->eu->index() : 0u);
            } else {
                std::fprintf(f, "running: (host side)\n");
            }
            std::fclose(f);
        }
    });
}

namespace skiff::core::dpa {

void device_fault(DeviceCall &call, const std::string &reason) {
    call.dpa->fail(std::string(call.function) + ": " + reason);
}

} // namespace skiff::core::dpa
