// skiff::core::BufRef, BufInventory and BufPool: C++ handles over the buf C API.
#include <skiff/core/buf.hpp>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_buf_pool.h>

#include <skiff/core/log.hpp>

namespace skiff::core {

namespace {

void log_failure(const Status &s) {
    if (!s.ok()) skiff::log::get("mem")->error("{}", s.error().describe());
}

} // namespace

BufRef &BufRef::operator=(BufRef &&other) noexcept {
    if (this != &other) {
        reset();
        buf_ = std::exchange(other.buf_, nullptr);
    }
    return *this;
}

void BufRef::reset() {
    if (buf_ != nullptr)
        log_failure(check(doca_buf_dec_refcount(std::exchange(buf_, nullptr), nullptr), "releasing a buf"));
}

void *BufRef::data() const {
    void *p = nullptr;
    (void)doca_buf_get_data(buf_, &p);
    return p;
}

size_t BufRef::data_len() const {
    size_t n = 0;
    (void)doca_buf_get_data_len(buf_, &n);
    return n;
}

void *BufRef::head() const {
    void *p = nullptr;
    (void)doca_buf_get_head(buf_, &p);
    return p;
}

size_t BufRef::len() const {
    size_t n = 0;
    (void)doca_buf_get_len(buf_, &n);
    return n;
}

BufInventory &BufInventory::operator=(BufInventory &&other) noexcept {
    if (this != &other) {
        log_failure(destroy());
        inv_ = std::exchange(other.inv_, nullptr);
    }
    return *this;
}

BufInventory::~BufInventory() {
    log_failure(destroy());
}

Result<BufInventory> BufInventory::create(uint32_t num_elements) {
    BufInventory inv;
    if (Status s = check(doca_buf_inventory_create(num_elements, &inv.inv_), "doca_buf_inventory_create");
        !s.ok())
        return s.error();
    if (Status s = check(doca_buf_inventory_start(inv.inv_), "doca_buf_inventory_start"); !s.ok())
        return s.error();
    return inv;
}

Result<BufRef> BufInventory::get_by_addr(doca_mmap *mmap, void *addr, size_t len) {
    doca_buf *b = nullptr;
    if (doca_error_t r = doca_buf_inventory_buf_get_by_addr(inv_, mmap, addr, len, &b); r != DOCA_SUCCESS)
        return check(r, "doca_buf_inventory_buf_get_by_addr").error();
    return BufRef(b);
}

Result<BufRef> BufInventory::get_by_data(doca_mmap *mmap, void *data, size_t len) {
    doca_buf *b = nullptr;
    if (doca_error_t r = doca_buf_inventory_buf_get_by_data(inv_, mmap, data, len, &b); r != DOCA_SUCCESS)
        return check(r, "doca_buf_inventory_buf_get_by_data").error();
    return BufRef(b);
}

uint32_t BufInventory::num_free() const {
    uint32_t n = 0;
    if (inv_ != nullptr) (void)doca_buf_inventory_get_num_free_elements(inv_, &n);
    return n;
}

Status BufInventory::destroy() {
    if (inv_ == nullptr) return Status::success();
    if (Status s = check(doca_buf_inventory_destroy(inv_), "doca_buf_inventory_destroy"); !s.ok()) return s;
    inv_ = nullptr;
    return Status::success();
}

BufPool &BufPool::operator=(BufPool &&other) noexcept {
    if (this != &other) {
        log_failure(destroy());
        pool_ = std::exchange(other.pool_, nullptr);
    }
    return *this;
}

BufPool::~BufPool() {
    log_failure(destroy());
}

Result<BufPool> BufPool::create(doca_mmap *mmap, uint32_t num_elements, size_t element_size,
                                size_t alignment) {
    BufPool pool;
    if (Status s = check(doca_buf_pool_create(num_elements, element_size, mmap, &pool.pool_),
                         "doca_buf_pool_create");
        !s.ok())
        return s.error();
    if (Status s = check(doca_buf_pool_set_element_alignment(pool.pool_, alignment),
                         "doca_buf_pool_set_element_alignment");
        !s.ok())
        return s.error();
    if (Status s = check(doca_buf_pool_start(pool.pool_), "doca_buf_pool_start"); !s.ok()) return s.error();
    return pool;
}

Result<BufRef> BufPool::alloc() {
    doca_buf *b = nullptr;
    if (doca_error_t r = doca_buf_pool_buf_alloc(pool_, &b); r != DOCA_SUCCESS)
        return check(r, "doca_buf_pool_buf_alloc").error();
    return BufRef(b);
}

uint32_t BufPool::num_free() const {
    uint32_t n = 0;
    if (pool_ != nullptr) (void)doca_buf_pool_get_num_free_elements(pool_, &n);
    return n;
}

Status BufPool::destroy() {
    if (pool_ == nullptr) return Status::success();
    if (Status s = check(doca_buf_pool_destroy(pool_), "doca_buf_pool_destroy"); !s.ok()) return s;
    pool_ = nullptr;
    return Status::success();
}

} // namespace skiff::core
