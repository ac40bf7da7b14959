#include "mem/import_probe.hpp"

#include "mem/mmap.hpp"

namespace skiff::core::mem {

ImportPath import_path(const doca_mmap *mmap) {
    if (mmap == nullptr || !mmap->from_export || !mmap->import) return ImportPath::not_imported;
    if (mmap->import->shared)
        return mmap->import->shared->fenced() ? ImportPath::fenced : ImportPath::shared_mapping;
    return ImportPath::proc_mem;
}

const void *import_local_view(const doca_mmap *mmap, const void *addr) {
    if (import_path(mmap) != ImportPath::shared_mapping && import_path(mmap) != ImportPath::fenced)
        return nullptr;
    return mmap->import->shared->local(reinterpret_cast<uintptr_t>(addr));
}

} // namespace skiff::core::mem
