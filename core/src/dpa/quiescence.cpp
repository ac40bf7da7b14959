#include "skiff/core/dpa_quiescence.hpp"

#include "dpa/dpa_context.hpp"

namespace skiff::core::dpa {

void append_eu_run_sequences(const doca_dpa *dpa, std::vector<uint64_t> &out) {
    if (!dpa || !dpa->root().engine) return;
    const Engine &eus = *dpa->root().engine;
    for (unsigned i = 0; i < eus.size(); ++i) out.push_back(eus.eu(i).run_seq());
}

} // namespace skiff::core::dpa
