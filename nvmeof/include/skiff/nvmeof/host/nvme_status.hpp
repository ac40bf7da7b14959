// Human-readable names for what a target answers when something fails: the NVMe completion
// status (SCT/SC) and the fatal error status of an NVMe/TCP TermReq.
#pragma once

#include <cstdint>
#include <string>

namespace skiff::nvmeof::host {

// Name of a status code type: "generic", "command specific", "media", "path", "vendor".
const char *status_type_name(uint8_t sct);

// Name of a status code within its type ("Invalid Command Opcode", "LBA Out of Range", ...).
// `fabrics` selects the Fabrics command specific names (Connect: 80h..84h) for SCT 1.
const char *status_code_name(uint8_t sct, uint8_t sc, bool fabrics = false);

// "sct 0h (generic) sc 80h (LBA Out of Range), DNR" for the status field of a CQE (phase bit
// included, as it sits in the upper 16 bits of DW3).
std::string describe_status(uint16_t cqe_status, bool fabrics = false);

// Name of a TermReq FES ("Header Digest Error", ...).
const char *term_req_fes_name(uint16_t fes);

} // namespace skiff::nvmeof::host
