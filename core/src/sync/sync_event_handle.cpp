// skiff/core/sync_event.hpp over the C API.
#include <skiff/core/sync_event.hpp>

namespace skiff::core {

Result<SyncEvent> SyncEvent::create_started(uint64_t *external) {
    SyncEvent ev;
    if (Status s = check(doca_sync_event_create(&ev.ev_), "doca_sync_event_create"); !s) return s.error();
    if (external) {
        if (Status s = check(doca_sync_event_set_addr(ev.ev_, external), "doca_sync_event_set_addr"); !s)
            return s.error();
    }
    if (Status s = check(doca_sync_event_add_publisher_location_dpu(ev.ev_), "add publisher"); !s)
        return s.error();
    if (Status s = check(doca_sync_event_add_subscriber_location_dpu(ev.ev_), "add subscriber"); !s)
        return s.error();
    if (Status s = check(doca_sync_event_start(ev.ev_), "doca_sync_event_start"); !s) return s.error();
    return ev;
}

SyncEvent &SyncEvent::operator=(SyncEvent &&other) noexcept {
    if (this != &other) {
        if (ev_) doca_sync_event_destroy(ev_);
        ev_ = std::exchange(other.ev_, nullptr);
    }
    return *this;
}

SyncEvent::~SyncEvent() {
    if (ev_) doca_sync_event_destroy(ev_);
}

uint64_t SyncEvent::value() const {
    uint64_t v = 0;
    doca_sync_event_get(ev_, &v);
    return v;
}

Status SyncEvent::set(uint64_t v) {
    return check(doca_sync_event_update_set(ev_, v), "doca_sync_event_update_set");
}

Result<uint64_t> SyncEvent::add(uint64_t v) {
    uint64_t before = 0;
    if (Status s = check(doca_sync_event_update_add(ev_, v, &before), "doca_sync_event_update_add"); !s)
        return s.error();
    return before;
}

Status SyncEvent::wait_gt(uint64_t threshold, uint64_t mask) {
    return check(doca_sync_event_wait_gt(ev_, threshold, mask), "doca_sync_event_wait_gt");
}

} // namespace skiff::core
