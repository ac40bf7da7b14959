// Reading skiff-target's Prometheus endpoint from a test: raw HTTP over a loopback TCP socket
// and the exposition's samples by name and labels. Shared by the metrics tests and the tests of
// the backends whose work the metrics count (hostmem's DMA).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace skiff::itest {

// A connected TCP socket to 127.0.0.1:port with 10 s receive and send timeouts, or -1.
int connect_loopback(uint16_t port);

// Sends `request` as is and returns everything the server sends until it closes.
std::string http_exchange(uint16_t port, const std::string &request);

// The response's first line ("HTTP/1.1 200 OK").
std::string status_line(const std::string &response);

// GET /metrics: the body of a 200 response with the exposition's content type, else nullopt
// with the start of what came back in `error`.
std::optional<std::string> scrape_metrics(uint16_t port, std::string *error = nullptr);

// The samples of an exposition: "name{labels}" -> value.
using Samples = std::map<std::string, double>;
Samples parse_samples(const std::string &body);

// The value of the one sample of `name` whose labels include every pair of `labels`
// (nullopt when none, or when several do: the caller named too few labels).
std::optional<double> sample_value(const Samples &s, const std::string &name,
                                   const std::vector<std::pair<std::string, std::string>> &labels);

// The sum of every sample of `name` (all label sets; 0 when there is none).
double sample_sum(const Samples &s, const std::string &name);

} // namespace skiff::itest
