// The files behind a PCI export, carried over a comch connection (comch_trust.hpp): the exporter
// sends them with send_export_files, the receiving endpoint files them here for
// doca_mmap_create_from_export (mem/received_exports.hpp).
#pragma once

#include <cstdint>

struct doca_comch_connection;

namespace skiff::core::comch {

// An export_files frame arrived on conn: `payload` should be a PCI export descriptor made by the
// peer process itself, `fds` its segment, liveness page and (shared memory) backing file. Takes
// the descriptors: filed, or closed with a warning when the frame is not that.
void file_export(const doca_comch_connection &conn, const uint8_t *payload, uint32_t len, const int *fds,
                 int nfds);

// The connection is going: what it handed over and no import took goes with it.
void forget_exports(const doca_comch_connection &conn);

} // namespace skiff::core::comch
