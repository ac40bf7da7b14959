// The host's side of NVMe/TCP framing: ICReq/ICResp negotiation, where header digest, padding,
// data and data digest go in an outgoing PDU, and the checks every incoming header must pass.
// Pure functions over the wire structs, so they are unit-testable without a socket.
#pragma once

#include "skiff/core/status.hpp"
#include "skiff/nvmeof/wire/tcp_pdu.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

namespace skiff::nvmeof::host {

// What host and controller agreed on in the ICReq/ICResp exchange.
struct TcpParams {
    bool header_digest = false;
    bool data_digest = false;
    uint32_t cpda_align = 4; // our data in H2C PDUs starts at a multiple of this, (CPDA+1)*4
    uint32_t maxh2cdata = 0; // largest H2CData payload the controller accepts
};

// An ICReq asking for the given digests, host PDU data alignment (0..31) and MAXR2T (0's based).
wire::tcp::IcReq make_ic_req(bool header_digest, bool data_digest, uint8_t hpda, uint32_t maxr2t);

// Validates an ICResp (type, lengths, PFV 0, MAXH2CDATA a multiple of 4 and >= 4096, CPDA <= 31)
// and returns the negotiated parameters: a digest is on only when both sides set it.
Result<TcpParams> parse_ic_resp(const wire::tcp::IcResp &resp, bool want_header_digest,
                                bool want_data_digest);

// Placement of one outgoing PDU: header [+ header digest] [+ pad] [+ data + data digest].
struct PduFrame {
    uint32_t header_len = 0; // HLEN plus the header digest when present
    uint32_t pad = 0;        // zero bytes between header digest and data (PDO alignment)
    uint8_t pdo = 0;         // 0 when the PDU carries no data
    uint32_t plen = 0;
    uint8_t flags = 0; // HDGSTF / DDGSTF as they must be set in the common header
};

PduFrame frame_pdu(uint8_t hlen, uint32_t data_len, const TcpParams &params);

// Writes the common header fields of a frame into ch (type given, flags OR-ed in).
void fill_common_header(wire::tcp::CommonHeader &ch, uint8_t type, uint8_t hlen, const PduFrame &frame);

// CRC32C of the first hlen bytes, as it follows the header on the wire.
uint32_t header_digest(const void *header, uint8_t hlen);

// Checks an incoming common header before the rest of the PDU is read: known controller-to-host
// type, the HLEN that type requires, a PLEN that covers the header (and digest), a PDO that
// lies after the header. max_plen bounds what we are willing to read.
Status check_incoming_header(const wire::tcp::CommonHeader &ch, const TcpParams &params, uint32_t max_plen);

// "C2HTermReq: FES 03h (Header Digest Error), FEI 0x0"
std::string describe_term_req(const wire::tcp::TermReq &req);

} // namespace skiff::nvmeof::host
