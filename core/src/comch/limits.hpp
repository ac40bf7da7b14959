// What the emulated communication channel offers (doca_comch_cap_*), in one place.
#pragma once

#include <cstdint>

namespace skiff::core::comch {

// The largest message, as on a BlueField's channel (one 4 KiB page minus the channel's header).
constexpr uint32_t kMaxMsgSize = 4080;
// Default and largest receive queue (messages); the socket buffer is sized from it.
constexpr uint32_t kDefaultRecvQueueSize = 64;
constexpr uint32_t kMaxRecvQueueSize = 8192;
// Clients of one server, send tasks of one ctx, name length (NUL included).
constexpr uint32_t kMaxClients = 512;
constexpr uint32_t kMaxSendTasks = 8192;
constexpr uint32_t kMaxNameLen = 120;
// How often a client without a server tries to connect again (milliseconds, while progressing).
constexpr uint32_t kConnectRetryMs = 10;

} // namespace skiff::core::comch
