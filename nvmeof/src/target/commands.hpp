// Internal: the parse functions of each command family (nvmet's parse_*_cmd). Each validates
// the command, sets req.dir and req.execute, and returns false with req's status set when the
// command fails before execution.
#pragma once

#include "skiff/nvmeof/target/queue.hpp"
#include "skiff/nvmeof/target/request.hpp"

#include <nvme/types.h>

namespace skiff::nvmeof::target::detail {

bool parse_fabrics(Request &req);
bool parse_admin(Request &req);
bool parse_discovery_admin(Request &req);
bool parse_io(Request &req);
// Parts of the I/O parser with files of their own (req.ns set, access checked).
bool parse_copy(Request &req);
bool parse_verify(Request &req);
// Authentication Send / Receive (auth_cmd.cpp).
bool parse_auth_send(Request &req);
bool parse_auth_receive(Request &req);
// True (and a warn log) when the queue has not authenticated by its deadline
// (Limits::auth_timeout_ms after Connect): Queue::poll then closes it.
bool authentication_overdue(const Queue &q, uint64_t now_ms);

// Log pages (log_page.cpp), shared by the I/O and discovery admin parsers.
bool parse_get_log_page(Request &req);
// Get Log Page's RAE bit (CDW10 bit 15): the read keeps the asynchronous events it would clear.
inline bool log_retains_events(const Request &req) {
    return req.cmd.cdw10 & (1u << 15);
}

// Common checks.
inline bool fail(Request &req, uint8_t sct, uint8_t sc, bool dnr = true) {
    req.fail(sct, sc, dnr);
    return false;
}
// The SGL must describe exactly `len` bytes moving in `dir` (nvmet_check_transfer_len).
bool expect_transfer(Request &req, uint32_t len, DataDir dir);
// Commands need CC.EN = 1 and CSTS.RDY = 1 (no fatal status) before they run.
bool check_ready(Request &req);

inline void complete(Request &req) {
    req.queue->complete(req);
}

// Copies the window [offset, offset + len) of a logical page, written piecewise, into dst.
class PageWindow {
  public:
    PageWindow(uint8_t *dst, uint64_t offset, uint32_t len) : dst_(dst), offset_(offset), len_(len) {}
    void put(uint64_t page_off, const void *src, size_t n);
    // Bytes the host asked for (the window length).
    uint32_t len() const { return len_; }

  private:
    uint8_t *dst_;
    uint64_t offset_;
    uint32_t len_;
};

} // namespace skiff::nvmeof::target::detail
