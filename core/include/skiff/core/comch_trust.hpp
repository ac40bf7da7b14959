// skiff extensions to DOCA Comch for the emulated PCI link (not part of DOCA): who is at the other
// end of a connection, and handing the files behind a PCI export to that peer over the connection.
//
// The emulated channel runs between processes of one machine, so it has a local trust model
// (core/src/comch/README.md): a server accepts only clients whose uid is allowed (root, its own,
// SKIFF_COMCH_PEER_UIDS), a client talks only to a server run by such a uid. An importer that runs
// as another user than the exporter (skiff-target as root, skiff-host as "skiff") cannot open the
// exporter's files through /proc; the exporter passes them over the connection instead
// (send_export_files), and the importer accepts them only from the process that connected.
#pragma once

#include <skiff/core/status.hpp>

#include <cstddef>
#include <sys/types.h>

struct doca_comch_connection;
struct doca_mmap;
struct doca_dev;

namespace skiff::core::comch {

// The process at the other end of a connection, as the kernel recorded it when the connection was
// made (SO_PEERCRED): the process that called connect (client) or listen (server).
struct PeerCredentials {
    pid_t pid = 0;
    uid_t uid = 0;
    gid_t gid = 0;
};

// The peer of a connected connection; BAD_STATE when it is not connected.
Result<PeerCredentials> peer_credentials(const doca_comch_connection *conn);

// Exporter side: sends the files behind the PCI export of `mmap` with `dev` (its revocation
// segment, its liveness page and, for shared memory, the memfd or hugetlbfs file) to the peer of
// `conn` as SCM_RIGHTS, in one frame written at once (ahead of any send still waiting for socket
// space). Send it before the descriptor itself. NOT_FOUND when the mmap has no PCI export with
// dev; AGAIN when the socket is full.
Status send_export_files(doca_comch_connection *conn, const doca_mmap *mmap, const doca_dev *dev);

// Importer side: SUCCESS when the PCI export descriptor was made by the process at the other end of
// `conn`; NOT_PERMITTED when it names another process (a peer may not hand over someone else's
// export).
Status check_export_from_peer(const doca_comch_connection *conn, const void *export_desc, size_t len);

} // namespace skiff::core::comch
