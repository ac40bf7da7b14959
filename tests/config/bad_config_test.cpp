// The validator's messages, exactly: each bad configuration and what skiff-target says about
// it. A config is built from a valid base with one edit, so each row tests one rule.
#include "skiff/config/load.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <vector>

namespace skiff::config {
namespace {

using nlohmann::json;

json base() {
    return json::parse(R"({
      "target": {"cores": 1},
      "backends": [{"name": "ram0", "kind": "ram", "size": "64MiB"},
                   {"name": "ram1", "kind": "ram", "size": "64MiB"}],
      "subsystems": [{"nqn": "nqn.2026-11.io.skiff:a",
                      "namespaces": [{"nsid": 1, "backend": "ram0"}, {"nsid": 2, "backend": "ram1"}]}],
      "listeners": [{"trtype": "tcp", "addr": "127.0.0.1", "port": 4420}],
      "discovery": {"trtype": "tcp", "addr": "127.0.0.1", "port": 8009}
    })");
}

struct BadCase {
    const char *what;
    std::function<void(json &)> edit;
    std::vector<std::string> errors;
};

const std::vector<BadCase> kCases = {
    {"unknown backend",
     [](json &j) { j["subsystems"][0]["namespaces"][1]["backend"] = "ram9"; },
     {"subsystems[0].namespaces[1].backend: no backend named \"ram9\""}},
    {"unknown top-level key",
     [](json &j) { j["subsytems"] = json::array(); },
     {"subsytems: unknown key; expected one of target, transports, backends, subsystems, listeners, "
      "discovery, referrals, hosts, metrics, mdns"}},
    {"unknown secure channel",
     [](json &j) { j["listeners"][0]["secure_channel"] = "tls"; },
     {"listeners[0].secure_channel: expected \"none\", \"optional\" or \"required\", got \"tls\""}},
    {"TLS PSK with a wrong CRC",
     [](json &j) {
         j["hosts"] = json::array(
             {{{"nqn", "nqn.2014-08.org.nvmexpress:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6"},
               {"tls_psk", "NVMeTLSkey-1:01:VRLbtnN9AQb2WXW3c9+wEf/DRLz0QuLdbYvEhwtdWwNf9LrA:"}}});
     },
     {"hosts[0].tls_psk: TLS PSK: CRC-32 does not match the key (expected NVMeTLSkey-1:01:<base64>: or "
      "NVMeTLSkey-1:02:<base64>: as nvme gen-tls-key prints)"}},
    {"cores out of range",
     [](json &j) { j["target"]["cores"] = 0; },
     {"target.cores: expected an integer 1..64, got 0"}},
    {"cores of the wrong type",
     [](json &j) { j["target"]["cores"] = "two"; },
     {"target.cores: expected an integer 1..64, got \"two\""}},
    {"unknown log level",
     [](json &j) { j["target"]["log_level"] = "loud"; },
     {"target.log_level: expected one of trace, debug, info, warn, error, critical, off, got \"loud\""}},
    {"unknown data path",
     [](json &j) { j["target"]["datapath"] = "gpu"; },
     {"target.datapath: expected \"poll\" or \"dpa\", got \"gpu\""}},
    {"dpa EUs out of range",
     [](json &j) {
         j["target"]["dpa"] = {{"eus", 65}};
     },
     {"target.dpa.eus: expected an integer 1..64, got 65"}},
    {"dpa settings with an unknown key",
     [](json &j) {
         j["target"]["dpa"] = {{"threads", 2}};
     },
     {"target.dpa.threads: unknown key; expected one of eus"}},
    {"dpa data path with an aio and a hostmem backend",
     [](json &j) {
         j["target"]["datapath"] = "dpa";
         j["listeners"][0]["trtype"] = "rdma";
         j["backends"][0] = {{"name", "ram0"}, {"kind", "aio"}, {"path", "/tmp/x"}};
         j["backends"][1] = {
             {"name", "ram1"}, {"kind", "hostmem"}, {"channel", "/tmp/h.sock"}, {"size", "64MiB"}};
     },
     {"backends[0].kind: \"aio\" cannot serve target.datapath \"dpa\" (its completions need a poll group's "
      "loop); use ram or null, or target.datapath \"poll\"",
      "backends[1].kind: \"hostmem\" cannot serve target.datapath \"dpa\" (its completions need a poll "
      "group's loop); use ram or null, or target.datapath \"poll\""}},
    {"dpa data path with a shared receive queue",
     [](json &j) {
         j["target"]["datapath"] = "dpa";
         j["listeners"][0]["trtype"] = "rdma";
         j["transports"] = json::array({{{"trtype", "rdma"}, {"srq_depth", 64}}});
     },
     {"transports[0].srq_depth: a shared receive queue cannot serve target.datapath \"dpa\" (its receives "
      "belong "
      "to a poll group, each dpa queue owns its own); use 0, or target.datapath \"poll\""}},
    {"size without a unit we know",
     [](json &j) { j["backends"][0]["size"] = "64MB"; },
     {"backends[0].size: expected a size such as \"512MiB\" or \"1TiB\" (or a byte count) from 4KiB to 1TiB, "
      "got "
      "\"64MB\""}},
    {"size not a multiple of 4 KiB",
     [](json &j) { j["backends"][0]["size"] = 6000; },
     {"backends[0].size: expected a multiple of 4KiB, got 6000"}},
    {"missing size",
     [](json &j) { j["backends"][1].erase("size"); },
     {"backends[1].size: missing; expected a size such as \"512MiB\" or \"1TiB\" (or a byte count) from 4KiB "
      "to "
      "1TiB"}},
    {"unknown backend kind",
     [](json &j) { j["backends"][1]["kind"] = "tape"; },
     {"backends[1].kind: unknown backend kind \"tape\"; expected one of ram, null, aio, hostmem, rbd, "
      "error"}},
    {"aio without a path",
     [](json &j) {
         j["backends"][1] = {{"name", "ram1"}, {"kind", "aio"}, {"size", "1GiB"}};
     },
     {"backends[1].path: missing; expected a string such as \"/var/lib/skiff/disk0.img\""}},
    {"aio with a relative path",
     [](json &j) {
         j["backends"][1] = {{"name", "ram1"}, {"kind", "aio"}, {"path", "disk.img"}};
     },
     {"backends[1].path: expected an absolute path, got \"disk.img\""}},
    {"aio create without a size",
     [](json &j) {
         j["backends"][1] = {{"name", "ram1"}, {"kind", "aio"}, {"path", "/tmp/x"}, {"create", true}};
     },
     {"backends[1].size: missing; \"create\": true needs the size of the file to create"}},
    {"hostmem without a channel or a size",
     [](json &j) {
         j["backends"][1] = {{"name", "ram1"}, {"kind", "hostmem"}};
     },
     {"backends[1].channel: missing; expected a string such as \"skiff-host\"",
      "backends[1].size: missing; expected a size such as \"512MiB\" or \"1TiB\" (or a byte count) from 4KiB "
      "to 1TiB"}},
    {"hostmem with an empty channel name",
     [](json &j) {
         j["backends"][1] = {{"name", "ram1"}, {"kind", "hostmem"}, {"channel", ""}, {"size", "1GiB"}};
     },
     {"backends[1].channel: expected the comch channel name skiff-host --channel uses (1 to 119 characters), "
      "got \"\""}},
    {"field of another kind",
     [](json &j) { j["backends"][0]["path"] = "/tmp/x"; },
     {"backends[0].path: unknown key; expected one of name, kind, size"}},
    {"duplicate backend name",
     [](json &j) { j["backends"][1]["name"] = "ram0"; },
     {"backends[1].name: \"ram0\" is already the name of backends[0]",
      "subsystems[0].namespaces[1].backend: no backend named \"ram1\""}},
    {"backend used twice",
     [](json &j) { j["subsystems"][0]["namespaces"][1]["backend"] = "ram0"; },
     {"subsystems[0].namespaces[1].backend: backend \"ram0\" is already used by "
      "subsystems[0].namespaces[0]"}},
    {"bad NQN",
     [](json &j) { j["subsystems"][0]["nqn"] = "skiff-disk"; },
     {"subsystems[0].nqn: \"skiff-disk\" does not start with \"nqn.yyyy-mm.\""}},
    {"discovery NQN",
     [](json &j) { j["subsystems"][0]["nqn"] = "nqn.2014-08.org.nvmexpress.discovery"; },
     {"subsystems[0].nqn: the discovery NQN is reserved; expected an NVM subsystem NQN"}},
    {"duplicate subsystem",
     [](json &j) {
         j["subsystems"].push_back({{"nqn", "nqn.2026-11.io.skiff:a"}});
     },
     {"subsystems[1].nqn: \"nqn.2026-11.io.skiff:a\" is already used by another subsystem"}},
    {"serial too long",
     [](json &j) { j["subsystems"][0]["serial"] = "012345678901234567890"; },
     {"subsystems[0].serial: expected 1..20 characters, got 21"}},
    {"hosts while any host",
     [](json &j) {
         j["subsystems"][0]["allow_any_host"] = true;
         j["subsystems"][0]["allowed_hosts"] = {
             "nqn.2014-08.org.nvmexpress:uuid:8f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b"};
     },
     {"subsystems[0].allow_any_host: is true while allowed_hosts lists hosts; expected false (or drop "
      "allowed_hosts)"}},
    {"bad host NQN",
     [](json &j) { j["subsystems"][0]["allowed_hosts"] = {"host1"}; },
     {"subsystems[0].allowed_hosts[0]: \"host1\" does not start with \"nqn.yyyy-mm.\""}},
    {"controller id range reversed",
     [](json &j) {
         j["subsystems"][0]["cntlid_min"] = 10;
         j["subsystems"][0]["cntlid_max"] = 5;
     },
     {"subsystems[0].cntlid_max: expected at least cntlid_min (10), got 5"}},
    {"nsid out of range",
     [](json &j) { j["subsystems"][0]["namespaces"][0]["nsid"] = 1025; },
     {"subsystems[0].namespaces[0].nsid: expected an integer 1..1024, got 1025"}},
    {"visible_hosts not a list",
     [](json &j) { j["subsystems"][0]["namespaces"][0]["visible_hosts"] = "nqn.2026-11.io.skiff:h1"; },
     {"subsystems[0].namespaces[0].visible_hosts: expected an array of host NQN strings, got "
      "\"nqn.2026-11.io.skiff:h1\""}},
    {"visible_hosts with a bad NQN and a host twice",
     [](json &j) {
         j["subsystems"][0]["namespaces"][1]["visible_hosts"] = {"host1", "nqn.2026-11.io.skiff:h1",
                                                                 "nqn.2026-11.io.skiff:h1"};
     },
     {"subsystems[0].namespaces[1].visible_hosts[0]: \"host1\" does not start with \"nqn.yyyy-mm.\"",
      "subsystems[0].namespaces[1].visible_hosts[2]: \"nqn.2026-11.io.skiff:h1\" is listed twice"}},
    {"duplicate nsid",
     [](json &j) { j["subsystems"][0]["namespaces"][1]["nsid"] = 1; },
     {"subsystems[0].namespaces[1].nsid: 1 is already used in this subsystem"}},
    {"bad block size",
     [](json &j) { j["subsystems"][0]["namespaces"][0]["block_size"] = 1024; },
     {"subsystems[0].namespaces[0].block_size: expected 512 or 4096, got 1024"}},
    {"bad uuid",
     [](json &j) { j["subsystems"][0]["namespaces"][0]["uuid"] = "1234"; },
     {"subsystems[0].namespaces[0].uuid: expected 32 hex digits, optionally as 8-4-4-4-12 with dashes, got "
      "\"1234\""}},
    {"duplicate nguid",
     [](json &j) {
         j["subsystems"][0]["namespaces"][0]["nguid"] = "000102030405060708090a0b0c0d0e0f";
         j["subsystems"][0]["namespaces"][1]["nguid"] = "00010203-0405-0607-0809-0a0b0c0d0e0f";
     },
     {"subsystems[0].namespaces[1].nguid: already used by subsystems[0].namespaces[0].nguid; identifiers "
      "must be "
      "unique"}},
    {"ANA group out of range",
     [](json &j) { j["subsystems"][0]["namespaces"][0]["ana_group"] = 0; },
     {"subsystems[0].namespaces[0].ana_group: expected an integer 1..128, got 0"}},
    {"EUI-64 that is not 16 hex digits",
     [](json &j) { j["subsystems"][0]["namespaces"][0]["eui64"] = "0123456789abcde"; },
     {"subsystems[0].namespaces[0].eui64: expected 16 hex digits, got \"0123456789abcde\""}},
    {"ANA state that does not exist",
     [](json &j) {
         j["listeners"][0]["ana"] = {{{"group", 1}, {"state", "optimised"}}};
     },
     {"listeners[0].ana[0].state: expected \"optimized\", \"non-optimized\", \"inaccessible\", "
      "\"persistent-loss\" or \"change\", got \"optimised\""}},
    {"ANA state of group 0",
     [](json &j) {
         j["listeners"][0]["ana"] = {{{"group", 0}, {"state", "inaccessible"}}};
     },
     {"listeners[0].ana[0].group: expected an integer 1..128, got 0"}},
    {"ANA state without a group",
     [](json &j) {
         j["listeners"][0]["ana"] = {{{"state", "inaccessible"}}};
     },
     {"listeners[0].ana[0].group: missing; expected an integer 1..128"}},
    {"ANA state set twice for one group",
     [](json &j) {
         j["listeners"][0]["ana"] = {{{"group", 2}, {"state", "inaccessible"}},
                                     {{"group", 2}, {"state", "optimized"}}};
     },
     {"listeners[0].ana[1]: group 2 is already set by listeners[0].ana[0]"}},
    {"ANA state of a subsystem that does not exist",
     [](json &j) {
         j["listeners"][0]["ana"] = {
             {{"subsystem", "nqn.2026-11.io.skiff:zz"}, {"group", 1}, {"state", "inaccessible"}}};
     },
     {"listeners[0].ana[0].subsystem: no subsystem named \"nqn.2026-11.io.skiff:zz\""}},
    {"ANA states on the discovery listener",
     [](json &j) { j["discovery"]["ana"] = json::array(); },
     {"discovery.ana: unknown key; expected one of trtype, addr, port, secure_channel, "
      "allow_plaintext_psk_hosts"}},
    {"referral to a host name",
     [](json &j) {
         j["referrals"] = {{{"addr", "gateway2"}, {"port", 8009}}};
     },
     {"referrals[0].addr: expected an IPv4 or IPv6 address such as \"127.0.0.1\" or \"::1\" (no brackets, "
      "no port), got \"gateway2\""}},
    {"IPv6 referral in brackets",
     [](json &j) {
         j["referrals"] = {{{"addr", "[fd00::7]"}}};
     },
     {"referrals[0].addr: expected an IPv4 or IPv6 address such as \"127.0.0.1\" or \"::1\" (no brackets, "
      "no port), got \"[fd00::7]\""}},
    {"the same IPv6 referral spelled twice",
     [](json &j) {
         j["referrals"] = {{{"addr", "fd00::7"}}, {{"addr", "FD00:0::7"}}};
     },
     {"referrals[1]: the same referral as referrals[0]"}},
    {"the same referral twice",
     [](json &j) {
         j["referrals"] = {{{"addr", "192.0.2.8"}}, {{"addr", "192.0.2.8"}, {"port", 8009}}};
     },
     {"referrals[1]: the same referral as referrals[0]"}},
    {"PTPL file that is a directory",
     [](json &j) { j["subsystems"][0]["namespaces"][0]["ptpl_file"] = "/var/lib/skiff/"; },
     {"subsystems[0].namespaces[0].ptpl_file: expected a file path, got \"/var/lib/skiff/\""}},
    {"PTPL file shared by two namespaces",
     [](json &j) {
         j["subsystems"][0]["namespaces"][0]["ptpl_file"] = "/var/lib/skiff/a.resv";
         j["subsystems"][0]["namespaces"][1]["ptpl_file"] = "/var/lib/skiff/a.resv";
     },
     {"subsystems[0].namespaces[1].ptpl_file: already used by subsystems[0].namespaces[0].ptpl_file; "
      "one file per namespace"}},
    {"unknown transport type",
     [](json &j) { j["listeners"][0]["trtype"] = "fc"; },
     {"listeners[0].trtype: expected \"tcp\" or \"rdma\", got \"fc\""}},
    {"bad address",
     [](json &j) { j["listeners"][0]["addr"] = "localhost"; },
     {"listeners[0].addr: expected an IPv4 or IPv6 address such as \"127.0.0.1\" or \"::1\" (no brackets, "
      "no port), got \"localhost\""}},
    {"bad IPv6 address",
     [](json &j) { j["listeners"][0]["addr"] = "::1::2"; },
     {"listeners[0].addr: expected an IPv4 or IPv6 address such as \"127.0.0.1\" or \"::1\" (no brackets, "
      "no port), got \"::1::2\""}},
    {"IPv6 address with its port",
     [](json &j) { j["discovery"]["addr"] = "[::1]:8009"; },
     {"discovery.addr: expected an IPv4 or IPv6 address such as \"127.0.0.1\" or \"::1\" (no brackets, "
      "no port), got \"[::1]:8009\""}},
    {"port out of range",
     [](json &j) { j["listeners"][0]["port"] = 70000; },
     {"listeners[0].port: expected an integer 0..65535, got 70000"}},
    {"listener names an unknown subsystem",
     [](json &j) { j["listeners"][0]["subsystems"] = {"nqn.2026-11.io.skiff:b"}; },
     {"listeners[0].subsystems[0]: no subsystem named \"nqn.2026-11.io.skiff:b\""}},
    {"listener address twice",
     [](json &j) { j["discovery"]["port"] = 4420; },
     {"discovery: tcp 127.0.0.1:4420 is already configured by listeners[0]"}},
    {"IPv6 listener address twice, spelled two ways",
     [](json &j) {
         j["listeners"][0]["addr"] = "::1";
         j["discovery"] = {{"addr", "0:0:0:0:0:0:0:1"}, {"port", 4420}};
     },
     {"discovery: tcp [::1]:4420 is already configured by listeners[0]"}},
    {"in-capsule size not a multiple of 16",
     [](json &j) {
         j["transports"] = {{{"trtype", "tcp"}, {"in_capsule_data_size", 1000}}};
     },
     {"transports[0].in_capsule_data_size: expected a multiple of 16 bytes, got 1000"}},
    {"in-capsule data larger than the request buffer (max_io_size)",
     [](json &j) {
         j["transports"] = {{{"trtype", "tcp"}, {"in_capsule_data_size", "1MiB"}, {"max_io_size", "8KiB"}}};
     },
     {"transports[0].in_capsule_data_size: expected at most max_io_size (8KiB): a command's in-capsule "
      "data must fit its request buffer, got \"1MiB\""}},
    {"max I/O size not a power of two",
     [](json &j) {
         j["transports"] = {{{"trtype", "tcp"}, {"max_io_size", "96KiB"}}};
     },
     {"transports[0].max_io_size: expected a power of two such as \"128KiB\", got \"96KiB\""}},
    {"shared receive queue on a tcp transport",
     [](json &j) {
         j["transports"] = {{{"trtype", "tcp"}, {"srq_depth", 1024}}};
     },
     {"transports[0].srq_depth: a shared receive queue is an rdma setting; this entry is \"tcp\""}},
    {"shared receive queue shallower than the admin queue",
     [](json &j) {
         j["transports"] = {{{"trtype", "rdma"}, {"srq_depth", 8}}};
     },
     {"transports[0].srq_depth: expected 0 (off) or 32..16384, got 8"}},
    {"shared receive queue too deep",
     [](json &j) {
         j["transports"] = {{{"trtype", "rdma"}, {"srq_depth", 100000}}};
     },
     {"transports[0].srq_depth: expected an integer 0..16384, got 100000"}},
    {"zero-copy reads on an rdma transport",
     [](json &j) {
         j["transports"] = {{{"trtype", "rdma"}, {"zero_copy_read_min", "64KiB"}}};
     },
     {"transports[0].zero_copy_read_min: sending reads from the namespace's memory is a tcp setting; this "
      "entry is \"rdma\""}},
    {"zero-copy reads below a page",
     [](json &j) {
         j["transports"] = {{{"trtype", "tcp"}, {"zero_copy_read_min", 512}}};
     },
     {"transports[0].zero_copy_read_min: expected 0 (always copy) or a size of 4KiB..8MiB, got 512"}},
    {"stall timeout shorter than the poll groups' clock",
     [](json &j) {
         j["transports"] = {{{"trtype", "tcp"}, {"stall_timeout_ms", 50}}};
     },
     {"transports[0].stall_timeout_ms: expected 0 (off) or 100..3600000 milliseconds, got 50"}},
    {"authentication timeout shorter than the poll groups' clock",
     [](json &j) {
         j["transports"] = {{{"trtype", "tcp"}, {"auth_timeout_ms", 20}}};
     },
     {"transports[0].auth_timeout_ms: expected 0 (off) or 100..3600000 milliseconds, got 20"}},
    {"transports with different authentication timeouts",
     [](json &j) {
         j["transports"] = {{{"trtype", "tcp"}, {"auth_timeout_ms", 5000}}, {{"trtype", "rdma"}}};
     },
     {"transports[1]: expected the same limits as transports[0] (the target applies one set of limits to "
      "every transport)"}},
    {"plaintext PSK hosts on a listener without optional TLS",
     [](json &j) {
         j["listeners"][0]["secure_channel"] = "required";
         j["listeners"][0]["allow_plaintext_psk_hosts"] = true;
     },
     {"listeners[0].allow_plaintext_psk_hosts: only means something with \"secure_channel\": \"optional\" "
      "(this listener's is \"required\")"}},
    {"plaintext PSK hosts not a boolean",
     [](json &j) {
         j["listeners"][0]["secure_channel"] = "optional";
         j["listeners"][0]["allow_plaintext_psk_hosts"] = "yes";
     },
     {"listeners[0].allow_plaintext_psk_hosts: expected true or false, got \"yes\""}},
    {"connection limit not a count",
     [](json &j) {
         j["transports"] = {{{"trtype", "tcp"}, {"max_connections", -1}, {"max_queues_per_host", "many"}}};
     },
     {"transports[0].max_connections: expected an integer 0..1000000, got -1",
      "transports[0].max_queues_per_host: expected an integer 0..1000000, got \"many\""}},
    {"transports with different connection limits",
     [](json &j) {
         j["transports"] = {{{"trtype", "tcp"}, {"max_connections_per_host", 8}}, {{"trtype", "rdma"}}};
     },
     {"transports[1]: expected the same limits as transports[0] (the target applies one set of limits to "
      "every transport)"}},
    {"transports that disagree",
     [](json &j) {
         j["transports"] = {{{"trtype", "tcp"}, {"max_queue_depth", 64}},
                            {{"trtype", "rdma"}, {"max_queue_depth", 128}}};
     },
     {"transports[1]: expected the same limits as transports[0] (the target applies one set of limits to "
      "every "
      "transport)"}},
    {"error backend without its base",
     [](json &j) {
         j["backends"][0] = {{"name", "ram0"}, {"kind", "error"}};
     },
     {"backends[0].base: missing; expected the backend the errors are injected into, such as {\"kind\": "
      "\"ram\", \"size\": \"64MiB\"}"}},
    {"error backend on an error backend",
     [](json &j) {
         j["backends"][0] = {{"name", "ram0"}, {"kind", "error"}, {"base", {{"kind", "error"}}}};
     },
     {"backends[0].base.kind: expected the kind of the backend underneath, one of ram, null, aio, hostmem, "
      "rbd; "
      "got \"error\""}},
    {"error backend whose base is wrong",
     [](json &j) {
         j["backends"][0] = {
             {"name", "ram0"}, {"kind", "error"}, {"base", {{"kind", "ram"}, {"size", "lots"}}}};
     },
     {"backends[0].base.size: expected a size such as \"512MiB\" or \"1TiB\" (or a byte count) from 4KiB to "
      "1TiB, got \"lots\""}},
    {"error backend with a status that is no NVMe status",
     [](json &j) {
         j["backends"][0] = {{"name", "ram0"},
                             {"kind", "error"},
                             {"base", {{"kind", "ram"}, {"size", "64MiB"}}},
                             {"inject", {{"read", {{"count", 2}, {"status", "0x1000"}}}}}};
     },
     {"backends[0].inject.read.status: expected a non-zero NVMe status, Status Code Type in bits 10:8 and "
      "Status Code in 7:0 (such as \"0x281\", \"0x280\", \"0x6\"), got \"0x1000\""}},
    {"error backend injection with neither a status nor a delay",
     [](json &j) {
         j["backends"][0] = {{"name", "ram0"},
                             {"kind", "error"},
                             {"base", {{"kind", "ram"}, {"size", "64MiB"}}},
                             {"inject", {{"flush", {{"count", 1}}}}}};
     },
     {"backends[0].inject.flush: expected a \"status\" to fail with, a \"delay_us\" to wait, or both"}},
    {"error backend injecting into an unknown operation",
     [](json &j) {
         j["backends"][0] = {{"name", "ram0"},
                             {"kind", "error"},
                             {"base", {{"kind", "ram"}, {"size", "64MiB"}}},
                             {"inject", {{"trim", {{"count", 2}, {"status", 641}}}}}};
     },
     {"backends[0].inject.trim: unknown key; expected one of read, write, flush"}},
    {"metrics endpoint without a port",
     [](json &j) {
         j["metrics"] = {{"listen", "127.0.0.1"}};
     },
     {"metrics.listen: expected ADDR:PORT with a port of 1..65535, such as \"127.0.0.1:9860\" or "
      "\"[::1]:9860\", got \"127.0.0.1\""}},
    {"metrics endpoint on port 0",
     [](json &j) {
         j["metrics"] = {{"listen", "127.0.0.1:0"}};
     },
     {"metrics.listen: expected ADDR:PORT with a port of 1..65535, such as \"127.0.0.1:9860\" or "
      "\"[::1]:9860\", got \"127.0.0.1:0\""}},
    {"metrics endpoint as a number",
     [](json &j) {
         j["metrics"] = {{"listen", 9860}};
     },
     {"metrics.listen: expected a string such as \"127.0.0.1:9860\", got 9860"}},
    {"metrics accounting as a string",
     [](json &j) {
         j["metrics"] = {{"accounting", "yes"}};
     },
     {"metrics.accounting: expected true or false, got \"yes\""}},
    {"metrics with an unknown key",
     [](json &j) {
         j["metrics"] = {{"port", 9860}};
     },
     {"metrics.port: unknown key; expected one of listen, accounting"}},
    {"mdns announcement without a discovery listener",
     [](json &j) {
         j.erase("discovery");
         j["mdns"] = {{"announce", true}};
     },
     {"mdns.announce: announces the discovery listener, and there is none: add \"discovery\" (for example "
      "{\"trtype\": \"tcp\", \"addr\": \"0.0.0.0\", \"port\": 8009})"}},
    {"mdns name longer than a DNS label",
     [](json &j) {
         j["mdns"] = {{"announce", true}, {"name", std::string(64, 'n')}};
     },
     {"mdns.name: expected 1..63 bytes (one DNS label), got 64"}},
    {"mdns with an unknown key",
     [](json &j) {
         j["mdns"] = {{"type", "_nvme-disc._tcp"}};
     },
     {"mdns.type: unknown key; expected one of announce, name"}},
    {"several mistakes at once",
     [](json &j) {
         j["target"]["cores"] = 100;
         j["backends"][0]["size"] = "lots";
         j["listeners"][0]["port"] = -1;
     },
     {"target.cores: expected an integer 1..64, got 100",
      "backends[0].size: expected a size such as \"512MiB\" or \"1TiB\" (or a byte count) from 4KiB to 1TiB, "
      "got "
      "\"lots\"",
      "listeners[0].port: expected an integer 0..65535, got -1"}},
};

TEST(BadConfig, EveryRuleGivesItsExactMessage) {
    for (const BadCase &c : kCases) {
        json doc = base();
        c.edit(doc);
        LoadResult r = parse_config(doc);
        EXPECT_FALSE(r.ok()) << c.what;
        EXPECT_FALSE(r.config.has_value()) << c.what << ": an invalid file yields no configuration";
        EXPECT_EQ(r.errors, c.errors) << c.what;
    }
}

TEST(BadConfig, TheBaseIsValid) {
    LoadResult r = parse_config(base());
    ASSERT_TRUE(r.ok()) << r.error_text();
}

TEST(BadConfig, DpaWithoutAnRdmaListenerIsValidButWarns) {
    json doc = base();
    doc["target"]["datapath"] = "dpa";
    LoadResult r = parse_config(doc);
    ASSERT_TRUE(r.ok()) << r.error_text();
    ASSERT_EQ(r.warnings.size(), 1u);
    EXPECT_EQ(r.warnings[0], "target.datapath: \"dpa\" moves NVMe/RDMA I/O queues only; no rdma listener is "
                             "configured, so every queue runs on the poll groups");
    doc["listeners"][0]["trtype"] = "rdma";
    r = parse_config(doc);
    ASSERT_TRUE(r.ok()) << r.error_text();
    EXPECT_TRUE(r.warnings.empty());
}

TEST(BadConfig, SyntaxErrorsNameThePosition) {
    LoadResult r = parse_config_text("{\"target\": {\"cores\": 1,}}");
    ASSERT_EQ(r.errors.size(), 1u);
    EXPECT_NE(r.errors[0].find("(syntax)"), std::string::npos) << r.errors[0];
    EXPECT_NE(r.errors[0].find("line 1"), std::string::npos) << r.errors[0];
}

TEST(BadConfig, MissingFileIsAnError) {
    LoadResult r = load_config_file("/nonexistent/skiff.json");
    ASSERT_EQ(r.errors, std::vector<std::string>{"/nonexistent/skiff.json: cannot be read"});
}

} // namespace
} // namespace skiff::config
