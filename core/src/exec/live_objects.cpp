#include "exec/live_objects.hpp"

namespace skiff::core {

LiveObjects &live_exec_objects() {
    static LiveObjects objects;
    return objects;
}

} // namespace skiff::core
