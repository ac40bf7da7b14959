// namespaces[].qos: reading it (with errors naming the JSON path) and writing it back.
#pragma once

#include "json_reader.hpp"
#include "skiff/config/config.hpp"

namespace skiff::config::detail {

// Limits a namespace may name at most (one host's budget each).
constexpr size_t kMaxQosHosts = 64;

void read_qos(JsonReader &r, const json &j, const std::string &path, QosConfig &out);
// Only the limits that are set (an empty object for none).
json qos_json(const QosConfig &qos);

} // namespace skiff::config::detail
