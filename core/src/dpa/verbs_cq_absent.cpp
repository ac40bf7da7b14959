// Without rdma-core at build time there is no verbs CQ to attach (skiff/core/dpa_verbs_cq.hpp).
#ifndef SKIFF_HAVE_RDMA
#include <skiff/core/dpa_verbs_cq.hpp>

#include "dpa/completion.hpp"
#include "dpa/dpa_context.hpp"

namespace skiff::core::dpa {

bool default_verbs_classifier(void *, const ibv_wc &, VerbsCompletionFields &) {
    return false;
}

doca_error_t attach_verbs_cq(doca_dpa_completion *, const VerbsCqConfig &, VerbsCqAttachment **) {
    dpa_logger().error("attach_verbs_cq: skiff was built without rdma-core (libibverbs)");
    return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t detach_verbs_cq(VerbsCqAttachment *) {
    return DOCA_ERROR_INVALID_VALUE;
}

bool drain_verbs_cq_inline(VerbsCqAttachment *, Eu *) {
    return false;
}

} // namespace skiff::core::dpa

#endif // SKIFF_HAVE_RDMA
