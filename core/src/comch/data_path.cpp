#include "comch/data_path.hpp"

#include "comch/socket_path.hpp"

#include <atomic>

namespace skiff::core::comch {

uint32_t next_data_path_id() {
    static std::atomic<uint32_t> next{1};
    uint32_t id = next.fetch_add(1, std::memory_order_relaxed);
    return id != 0 ? id : next.fetch_add(1, std::memory_order_relaxed); // skip 0 after a wrap
}

std::string consumer_socket_path(pid_t pid, uint32_t id) {
    return socket_dir() + "/dp." + std::to_string(pid) + "." + std::to_string(id);
}

} // namespace skiff::core::comch
