// skiff::core::Mmap: the C++ handle over doca_mmap.
#include <skiff/core/mmap.hpp>

#include <doca_mmap.h>

#include "mem/mem_access.hpp"

#include <skiff/core/log.hpp>

namespace skiff::core {

Mmap &Mmap::operator=(Mmap &&other) noexcept {
    if (this != &other) {
        (void)destroy();
        mmap_ = std::exchange(other.mmap_, nullptr);
    }
    return *this;
}

Mmap::~Mmap() {
    if (Status s = destroy(); !s.ok()) skiff::log::get("mem")->error("{}", s.error().describe());
}

Result<Mmap> Mmap::create_local(void *addr, size_t len, std::initializer_list<doca_dev *> devices,
                                uint32_t permissions) {
    doca_mmap *raw = nullptr;
    if (doca_error_t r = doca_mmap_create(&raw); r != DOCA_SUCCESS)
        return check(r, "doca_mmap_create").error();
    Mmap m(raw); // destroyed on any failure below
    if (Status s = check(doca_mmap_set_memrange(raw, addr, len), "doca_mmap_set_memrange"); !s.ok())
        return s.error();
    if (Status s = check(doca_mmap_set_permissions(raw, permissions), "doca_mmap_set_permissions"); !s.ok())
        return s.error();
    if (devices.size() > 0)
        if (Status s = check(doca_mmap_set_max_num_devices(raw, static_cast<uint32_t>(devices.size())),
                             "doca_mmap_set_max_num_devices");
            !s.ok())
            return s.error();
    for (doca_dev *dev : devices)
        if (Status s = check(doca_mmap_add_dev(raw, dev), "doca_mmap_add_dev"); !s.ok()) return s.error();
    if (Status s = check(doca_mmap_start(raw), "doca_mmap_start"); !s.ok()) return s.error();
    return m;
}

Result<Mmap> Mmap::import(std::span<const uint8_t> descriptor, doca_dev *dev) {
    doca_mmap *raw = nullptr;
    doca_error_t r = doca_mmap_create_from_export(nullptr, descriptor.data(), descriptor.size(), dev, &raw);
    if (r != DOCA_SUCCESS) return check(r, "doca_mmap_create_from_export").error();
    return Mmap(raw);
}

Result<std::span<const uint8_t>> Mmap::export_pci(doca_dev *dev) {
    const void *desc = nullptr;
    size_t len = 0;
    if (doca_error_t r = doca_mmap_export_pci(mmap_, dev, &desc, &len); r != DOCA_SUCCESS)
        return check(r, "doca_mmap_export_pci").error();
    return std::span<const uint8_t>(static_cast<const uint8_t *>(desc), len);
}

Status Mmap::read(const void *addr, void *dst, size_t len) const {
    return check(mmap_read(mmap_, addr, dst, len), "reading " + std::to_string(len) + " bytes of the mmap");
}

Status Mmap::write(void *addr, const void *src, size_t len) {
    return check(mmap_write(mmap_, addr, src, len),
                 "writing " + std::to_string(len) + " bytes into the mmap");
}

uint32_t Mmap::num_bufs() const {
    uint32_t n = 0;
    if (mmap_ != nullptr) (void)doca_mmap_get_num_bufs(mmap_, &n);
    return n;
}

Status Mmap::destroy() {
    if (mmap_ == nullptr) return Status::success();
    if (doca_error_t r = doca_mmap_destroy(mmap_); r != DOCA_SUCCESS)
        return check(r, "doca_mmap_destroy (" + std::to_string(num_bufs()) + " buf(s) still point into it)");
    mmap_ = nullptr;
    return Status::success();
}

} // namespace skiff::core
