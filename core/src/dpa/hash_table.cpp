// doca_dpa_hash_table: a fixed-capacity open-addressing table (linear probing, tombstones) for
// device code; num_entries entries at most, adding one more is the fatal error (DOCA: undefined).
#include "dpa/device_call.hpp"

#include <doca_dpa_dev.h>

#include <memory>
#include <new>

namespace {

struct Entry {
    enum class State : uint8_t { empty, used, removed };
    State state = State::empty;
    uint32_t key = 0;
    uint64_t value = 0;
};

} // namespace

struct doca_dpa_hash_table {
    static constexpr uint32_t kMagic = 0x44504854; // "DPHT"
    uint32_t magic = kMagic;
    doca_dpa *dpa = nullptr;
    unsigned num_entries = 0;
    unsigned count = 0;
    size_t mask = 0; // capacity - 1 (a power of two, at least 2 * num_entries)
    std::unique_ptr<Entry[]> slots;

    static size_t hash(uint32_t key) { return static_cast<size_t>(key) * 0x9E3779B97F4A7C15ull >> 17; }

    // The slot holding key, or nullptr.
    Entry *find(uint32_t key) {
        for (size_t i = hash(key) & mask, n = 0; n <= mask; i = (i + 1) & mask, ++n) {
            Entry &e = slots[i];
            if (e.state == Entry::State::empty) return nullptr;
            if (e.state == Entry::State::used && e.key == key) return &e;
        }
        return nullptr;
    }

    // False when full.
    bool add(uint32_t key, uint64_t value) {
        if (Entry *e = find(key)) {
            e->value = value;
            return true;
        }
        if (count == num_entries) return false;
        for (size_t i = hash(key) & mask;; i = (i + 1) & mask) {
            Entry &e = slots[i];
            if (e.state != Entry::State::used) {
                e = {Entry::State::used, key, value};
                ++count;
                return true;
            }
        }
    }

    void remove(uint32_t key) {
        if (Entry *e = find(key)) {
            e->state = Entry::State::removed;
            --count;
        }
    }
};

namespace {

doca_dpa_hash_table *table_of(uint64_t handle, const char *api, skiff::core::dpa::DeviceCall *&call) {
    call = skiff::core::dpa::device_call(api);
    if (!call) return nullptr;
    return skiff::core::dpa::decode_handle<doca_dpa_hash_table>(*call, handle, api);
}

} // namespace

extern "C" {

doca_error_t doca_dpa_hash_table_create(doca_dpa *dpa, unsigned int num_entries, doca_dpa_hash_table **ht) {
    if (!ht || num_entries == 0 || num_entries > (1u << 24)) return DOCA_ERROR_INVALID_VALUE;
    if (auto r = skiff::core::dpa::check_usable(dpa); r != DOCA_SUCCESS) return r;
    auto t = std::make_unique<doca_dpa_hash_table>();
    size_t capacity = 2;
    while (capacity < 2ull * num_entries) capacity <<= 1;
    t->slots.reset(new (std::nothrow) Entry[capacity]);
    if (!t->slots) return DOCA_ERROR_NO_MEMORY;
    t->dpa = dpa;
    t->num_entries = num_entries;
    t->mask = capacity - 1;
    dpa->objects.fetch_add(1);
    *ht = t.release();
    return DOCA_SUCCESS;
}

doca_error_t doca_dpa_hash_table_destroy(doca_dpa_hash_table *ht) {
    if (!ht || ht->magic != doca_dpa_hash_table::kMagic) return DOCA_ERROR_INVALID_VALUE;
    ht->dpa->objects.fetch_sub(1);
    ht->magic = 0;
    delete ht;
    return DOCA_SUCCESS;
}

doca_error_t doca_dpa_hash_table_get_dpa_handle(doca_dpa_hash_table *ht, doca_dpa_dev_hash_table_t *handle) {
    if (!ht || !handle) return DOCA_ERROR_INVALID_VALUE;
    if (auto r = skiff::core::dpa::check_usable(ht->dpa); r != DOCA_SUCCESS) return r;
    *handle = static_cast<doca_dpa_dev_hash_table_t>(reinterpret_cast<uintptr_t>(ht));
    return DOCA_SUCCESS;
}

void doca_dpa_dev_hash_table_add(doca_dpa_dev_hash_table_t ht_handle, uint32_t key, uint64_t value) {
    skiff::core::dpa::DeviceCall *call = nullptr;
    doca_dpa_hash_table *ht = table_of(ht_handle, "doca_dpa_dev_hash_table_add", call);
    if (ht && !ht->add(key, value)) {
        skiff::core::dpa::device_fault(*call, "doca_dpa_dev_hash_table_add: the table is full (" +
                                                  std::to_string(ht->num_entries) + " entries)");
    }
}

void doca_dpa_dev_hash_table_remove(doca_dpa_dev_hash_table_t ht_handle, uint32_t key) {
    skiff::core::dpa::DeviceCall *call = nullptr;
    if (doca_dpa_hash_table *ht = table_of(ht_handle, "doca_dpa_dev_hash_table_remove", call))
        ht->remove(key);
}

int doca_dpa_dev_hash_table_find(doca_dpa_dev_hash_table_t ht_handle, uint32_t key, uint64_t *value) {
    skiff::core::dpa::DeviceCall *call = nullptr;
    doca_dpa_hash_table *ht = table_of(ht_handle, "doca_dpa_dev_hash_table_find", call);
    if (!ht) return 0;
    Entry *e = ht->find(key);
    if (!e) return 0;
    if (value) *value = e->value;
    return 1;
}

} // extern "C"
