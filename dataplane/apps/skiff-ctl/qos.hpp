// skiff-ctl qos set|show: a namespace's QoS limits (and a host's on it), changed live, and what
// they held back.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <string>

namespace skiff::ctl {

struct QosCommand {
    std::string method; // "qos.set" or "qos.show" once one of them was given
    nlohmann::json params = nlohmann::json::object();
    bool json = false; // qos show --json
};

// Adds `qos` with its subcommands set and show; parsing fills `out`.
void add_qos_commands(CLI::App &app, QosCommand &out);
// Prints qos.show's result: a table, or the JSON with --json.
void print_qos_show(const nlohmann::json &result, bool json);

} // namespace skiff::ctl
