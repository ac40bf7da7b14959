// How an imported mmap reaches the exporter's pages, for logs, benchmarks and tests. Includes
// nothing internal, so that tests can use it. Not part of the public DOCA API.
#pragma once

struct doca_mmap;

namespace skiff::core::mem {

enum class ImportPath {
    not_imported,   // a local mmap, or an RDMA import
    shared_mapping, // the exporter's shared memory mapped here: one memcpy per access
    fenced,         // was a shared mapping; revoked or orphaned, the pages were replaced
    proc_mem,       // private memory of the exporter: one pread/pwrite on /proc/<pid>/mem per access
};
ImportPath import_path(const doca_mmap *mmap);

// Where the exporter's address addr lives in this process for a shared mapping (also once
// fenced: then private zero pages); nullptr for other mmaps.
const void *import_local_view(const doca_mmap *mmap, const void *addr);

} // namespace skiff::core::mem
