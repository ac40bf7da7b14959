// Submission queue entries for the commands the initiator sends, built field by field as the
// NVMe Base / NVM Command Set / NVMe-oF specifications lay them out. The data pointer (SGL) is
// filled in by the queue at submission time, because only it knows whether data goes in-capsule.
#pragma once

#include "skiff/nvmeof/wire/command.hpp"

#include <nvme/types.h>

#include <cstdint>

namespace skiff::nvmeof::host::cmd {

// Fabrics.
wire::Sqe connect(uint16_t qid, uint16_t sqsize_0based, uint32_t kato_ms, bool disable_sq_flow_control);
wire::Sqe property_get(uint32_t offset, bool eight_bytes);
wire::Sqe property_set(uint32_t offset, uint64_t value, bool eight_bytes);
// Authentication Send (TL bytes to the controller) / Receive (AL bytes back), protocol E9h.
wire::Sqe auth_send(uint32_t tl);
wire::Sqe auth_receive(uint32_t al);

// Admin.
wire::Sqe identify(uint8_t cns, uint32_t nsid, uint16_t cntid = 0);
// Get Log Page of `bytes` (a multiple of 4) starting at byte `offset`; RAE set when retain_async.
wire::Sqe get_log_page(uint8_t lid, uint32_t nsid, uint32_t bytes, uint64_t offset,
                       bool retain_async = false);
wire::Sqe get_features(uint8_t fid, uint32_t nsid = 0, uint8_t select = 0, uint32_t cdw11 = 0);
wire::Sqe set_features(uint8_t fid, uint32_t cdw11, uint32_t nsid = 0, bool save = false);
wire::Sqe keep_alive();

// NVM I/O. nlb is the number of blocks (1..65536), not 0's based.
wire::Sqe read(uint32_t nsid, uint64_t slba, uint32_t nlb);
wire::Sqe write(uint32_t nsid, uint64_t slba, uint32_t nlb);
wire::Sqe flush(uint32_t nsid);
wire::Sqe write_zeroes(uint32_t nsid, uint64_t slba, uint32_t nlb, bool deallocate = false);
// Dataset Management with `ranges` nvme_dsm_range entries in the data; attributes as in CDW11
// (NVME_DSMGMT_AD = deallocate).
wire::Sqe dsm(uint32_t nsid, uint32_t ranges, uint32_t attributes);
// Verify of nlb blocks: the controller reads them and moves no data.
wire::Sqe verify(uint32_t nsid, uint64_t slba, uint32_t nlb);
// Copy with `ranges` Source Range entries (1..256) in the data, descriptor format `format`, to
// consecutive blocks from sdlba.
wire::Sqe copy(uint32_t nsid, uint64_t sdlba, uint32_t ranges, uint8_t format = 0);

// CC fields used to enable a controller: NVM command set, 4 KiB pages, 64-byte SQEs, 16-byte CQEs.
constexpr uint32_t kCcEnable = 1u << 0;
constexpr uint32_t kCcIosqes = 6u << 16;
constexpr uint32_t kCcIocqes = 4u << 20;
constexpr uint32_t kCcShnNormal = 1u << 14;
constexpr uint32_t kCcShnMask = 3u << 14;
constexpr uint32_t kCstsRdy = 1u << 0;
constexpr uint32_t kCstsCfs = 1u << 1;
constexpr uint32_t kCstsShstMask = 3u << 2;
constexpr uint32_t kCstsShstComplete = 2u << 2;

} // namespace skiff::nvmeof::host::cmd
