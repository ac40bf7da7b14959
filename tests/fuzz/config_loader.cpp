// Fuzz harness: the JSON configuration loader and the nvmetcli importer (files an operator, or a
// tool, hands to skiff-target --config / skiff-ctl import).
//
// Input: [selector][file text]. Selector bit 0: 0 the skiff loader (parse_config_text), 1 the
// nvmetcli importer (the text parsed as JSON, then import_nvmetcli).
// Properties: a refused file has at least one error, each naming where ("<path>: ..."); an
// accepted one saves (to_json) to a document the loader accepts again and that saves to the same
// document (save/load is stable, so skiff-ctl save never writes a file the target refuses).
#include "fuzz_input.hpp"
#include "fuzz_target.hpp"
#include "skiff/config/load.hpp"
#include "skiff/config/nvmetcli.hpp"
#include "skiff/config/save.hpp"

#include <nlohmann/json.hpp>

using namespace skiff;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static bool quiet = (fuzz::quiet_logs(), true);
    (void)quiet;
    fuzz::Input in(data, size);
    bool nvmetcli = in.u8() & 1;
    std::string text = in.string(in.remaining());
    config::LoadResult r;
    if (nvmetcli) {
        auto doc = nlohmann::json::parse(text, nullptr, false);
        if (doc.is_discarded()) return 0;
        r = config::import_nvmetcli(doc);
    } else {
        r = config::parse_config_text(text);
    }
    if (!r.ok()) {
        SKIFF_FUZZ_CHECK(!r.errors.empty());
        for (auto &e : r.errors) SKIFF_FUZZ_CHECK(!e.empty());
        return 0;
    }
    SKIFF_FUZZ_CHECK(r.errors.empty());
    nlohmann::json saved = config::to_json(*r.config);
    auto again = config::parse_config(saved);
    if (!again.ok()) {
        std::fprintf(stderr, "saved config refused:\n%s\n%s\n", saved.dump(2).c_str(),
                     again.error_text().c_str());
        SKIFF_FUZZ_CHECK(again.ok());
    }
    SKIFF_FUZZ_CHECK(config::to_json(*again.config) == saved);
    (void)config::summarize(*r.config);
    return 0;
}
