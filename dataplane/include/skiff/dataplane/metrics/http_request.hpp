// The little HTTP/1.x the metrics endpoint needs: where a request head ends, and whether it is
// a well-formed head (request line and header fields). A scraper is a peer like any other, so
// everything is checked and nothing is trusted; the body (a GET has none) is never read.
#pragma once

#include "skiff/core/status.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace skiff::dataplane::metrics {

struct RequestHead {
    std::string method; // "GET", ...
    std::string path;   // the request target without its query ("/metrics")
};

// The length of the head up to and including the empty line that ends it (CRLF CRLF, or LF LF
// from lenient clients), or nullopt while it is not all there.
std::optional<size_t> request_head_length(std::string_view received);

// Parses a complete head. The error says what is wrong (it goes into the 400 response and the
// debug log, never anything the peer could use to learn more than that).
Result<RequestHead> parse_request_head(std::string_view head);

} // namespace skiff::dataplane::metrics
