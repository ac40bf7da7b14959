// C++ handles for bufs and their pools: a BufRef holds one reference on a doca_buf (released on
// destruction); BufInventory and BufPool are started pools of descriptors, destroyed on
// destruction. Declare pools after the Mmap they use, and BufRefs after their pools.
#pragma once

#include <skiff/core/status.hpp>

#include <cstddef>
#include <cstdint>
#include <utility>

struct doca_buf;
struct doca_buf_inventory;
struct doca_buf_pool;
struct doca_mmap;

namespace skiff::core {

// One reference on a doca_buf (a list head); dec_refcount on destruction.
class BufRef {
  public:
    BufRef() = default;
    explicit BufRef(doca_buf *buf) : buf_(buf) {}
    BufRef(BufRef &&other) noexcept : buf_(std::exchange(other.buf_, nullptr)) {}
    BufRef &operator=(BufRef &&other) noexcept;
    BufRef(const BufRef &) = delete;
    BufRef &operator=(const BufRef &) = delete;
    ~BufRef() { reset(); }

    doca_buf *get() const { return buf_; }
    explicit operator bool() const { return buf_ != nullptr; }
    // Gives up ownership without releasing (e.g. when a task takes the reference over).
    doca_buf *release() { return std::exchange(buf_, nullptr); }
    void reset();

    void *data() const;
    size_t data_len() const;
    void *head() const;
    size_t len() const;

  private:
    doca_buf *buf_ = nullptr;
};

class BufInventory {
  public:
    BufInventory() = default;
    BufInventory(BufInventory &&other) noexcept : inv_(std::exchange(other.inv_, nullptr)) {}
    BufInventory &operator=(BufInventory &&other) noexcept;
    BufInventory(const BufInventory &) = delete;
    BufInventory &operator=(const BufInventory &) = delete;
    ~BufInventory();

    // A started inventory of `num_elements` descriptors.
    static Result<BufInventory> create(uint32_t num_elements);

    // An empty buf over [addr, addr + len) (a destination) / a full one (a source).
    Result<BufRef> get_by_addr(doca_mmap *mmap, void *addr, size_t len);
    Result<BufRef> get_by_data(doca_mmap *mmap, void *data, size_t len);

    doca_buf_inventory *get() const { return inv_; }
    uint32_t num_free() const;
    // Destroys now; IN_USE while bufs are outstanding.
    Status destroy();

  private:
    doca_buf_inventory *inv_ = nullptr;
};

class BufPool {
  public:
    BufPool() = default;
    BufPool(BufPool &&other) noexcept : pool_(std::exchange(other.pool_, nullptr)) {}
    BufPool &operator=(BufPool &&other) noexcept;
    BufPool(const BufPool &) = delete;
    BufPool &operator=(const BufPool &) = delete;
    ~BufPool();

    // A started pool of `num_elements` bufs of `element_size` bytes in mmap (which must be started).
    static Result<BufPool> create(doca_mmap *mmap, uint32_t num_elements, size_t element_size,
                                  size_t alignment = 1);

    // EMPTY when every buf is out.
    Result<BufRef> alloc();

    doca_buf_pool *get() const { return pool_; }
    uint32_t num_free() const;
    Status destroy();

  private:
    doca_buf_pool *pool_ = nullptr;
};

} // namespace skiff::core
