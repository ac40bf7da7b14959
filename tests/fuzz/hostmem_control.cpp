// Fuzz harness: the hostmem control channel as the target receives it from skiff-host (a process
// on the host, so untrusted): comch messages of any length and content, reassembled into lines
// (LineAssembler), EXPORT lines parsed into records, and each record's descriptor imported with
// doca_mmap_create_from_export on the DPU port, as the hostmem backend does.
//
// Input: messages, each [length: 2 bytes][bytes].
// Properties: no line exceeds LineAssembler::kMaxLine; a parsed record is not empty and prints
// back (export_line) to a line that parses to the same record; an arbitrary descriptor never
// imports (it would need the live exporter's segment and token); no crash, no sanitizer report.
#include "doca_devices.hpp"
#include "fuzz_input.hpp"
#include "fuzz_target.hpp"
#include "skiff/dataplane/hostmem/control_channel.hpp"

#include <doca_mmap.h>

using namespace skiff;
namespace hm = dataplane::hostmem;

namespace {

doca_dev *dpu_port() {
    static doca_dev *dev = (fuzz::quiet_logs(), fuzz::open_device("dpu", "p0"));
    return dev;
}

void take_line(const std::string &line) {
    SKIFF_FUZZ_CHECK(line.size() <= hm::LineAssembler::kMaxLine);
    if (line.rfind("EXPORT ", 0) != 0) return;
    auto rec = hm::parse_export_line(line);
    if (!rec) return;
    SKIFF_FUZZ_CHECK(!rec->descriptor.empty());
    auto again = hm::parse_export_line(hm::export_line(*rec));
    SKIFF_FUZZ_CHECK(again.ok());
    SKIFF_FUZZ_CHECK(again->descriptor == rec->descriptor && again->host_addr == rec->host_addr &&
                     again->length == rec->length && again->generation == rec->generation);
    // Round trip through the fragments a sender makes.
    hm::LineAssembler a;
    std::string out;
    int lines = 0;
    for (auto &m : hm::split_line(line, 4080))
        lines += a.add(reinterpret_cast<const uint8_t *>(m.data()), m.size(), out);
    SKIFF_FUZZ_CHECK(lines == 1 && out == line);
    doca_mmap *imported = nullptr;
    doca_error_t r = doca_mmap_create_from_export(nullptr, rec->descriptor.data(), rec->descriptor.size(),
                                                  dpu_port(), &imported);
    if (r == DOCA_SUCCESS) {
        // Only an RDMA-shaped descriptor (addr + rkey, checked by the NIC on use) imports without
        // a live exporter; whatever imported must destroy cleanly.
        SKIFF_FUZZ_CHECK(doca_mmap_destroy(imported) == DOCA_SUCCESS);
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    (void)dpu_port();
    fuzz::Input in(data, size);
    hm::LineAssembler assembler;
    while (!in.empty()) {
        uint16_t len = in.u16();
        auto msg = in.bytes(len);
        std::string line;
        if (assembler.add(msg.data(), msg.size(), line)) take_line(line);
    }
    return 0;
}
