#include "dma/dma_engine.hpp"

#include <skiff/core/log.hpp>

#include <cstdlib>
#include <cstring>

namespace skiff::core::dma {

skiff_dma_engine_kind default_engine_kind() {
    const char *text = std::getenv("SKIFF_DMA_ENGINE");
    if (!text || !*text || std::strcmp(text, "inline") == 0) return SKIFF_DMA_ENGINE_INLINE;
    if (std::strcmp(text, "thread") == 0) return SKIFF_DMA_ENGINE_THREAD;
    static bool warned = false; // one line, not one per context
    if (!warned) {
        warned = true;
        skiff::log::get("dma")->error("SKIFF_DMA_ENGINE={} is not an engine: use inline or thread; "
                                      "using inline",
                                      text);
    }
    return SKIFF_DMA_ENGINE_INLINE;
}

const char *engine_kind_name(skiff_dma_engine_kind kind) {
    return kind == SKIFF_DMA_ENGINE_THREAD ? "thread" : "inline";
}

} // namespace skiff::core::dma
