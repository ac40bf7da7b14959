// The emulated Comch data path (doca_comch_producer / doca_comch_consumer): what both ends share.
// A consumer owns a SOCK_DGRAM Unix socket at "<SKIFF_COMCH_DIR>/dp.<pid>.<consumer id>"; a
// producer addresses it from the peer's pid (SO_PEERCRED on the comch connection's socket) and the
// consumer id the peer announced. One send is one datagram: a DataPathHeader, then the buffer's
// bytes. Datagrams keep their boundaries and order; a full queue is EAGAIN for the sender, whose
// task then waits and is retried.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

namespace skiff::core::comch {

// What doca_comch_producer_cap_* / doca_comch_consumer_cap_* report.
constexpr uint32_t kMaxImmDataLen = 32;
// One datagram must fit the sender's socket buffer, which the kernel caps (net.core.wmem_max,
// 208 KiB by default): 64 KiB leaves room for a few sends in flight.
constexpr uint32_t kMaxDataPathBufSize = 64 * 1024;
constexpr uint32_t kMaxDataPathTasks = 8192;
constexpr uint32_t kMaxConsumers = 512;
constexpr uint32_t kMaxProducers = 512;

constexpr uint32_t kDataPathMagic = 0x736b6470; // "skdp"

struct DataPathHeader {
    uint32_t magic = kDataPathMagic;
    uint32_t producer_id = 0;
    uint32_t imm_len = 0;
    uint32_t reserved = 0;
    uint8_t imm[kMaxImmDataLen]{};
};
static_assert(sizeof(DataPathHeader) == 48);

// A new producer or consumer id: unique in this process, so unique on any connection, never 0.
uint32_t next_data_path_id();

// The socket path of consumer `id` of process `pid`; empty when SKIFF_COMCH_DIR is too long.
std::string consumer_socket_path(pid_t pid, uint32_t id);

} // namespace skiff::core::comch
