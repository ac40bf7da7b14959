// The FlexIO resources-file calls of libflexio/flexio.h: skiff cannot read NVIDIA's resources
// files, so creation fails with a log naming what to use instead; the getters answer "nothing".
#include <libflexio/flexio.h>

#include <skiff/core/log.hpp>

extern "C" {

flexio_status flexio_resources_create(const char *app_key, char *, size_t buf_size, flexio_resource **res) {
    if (res != nullptr) *res = nullptr;
    skiff::log::get("dpa")->warn("flexio_resources_create (app key '{}', {} bytes): skiff does not read DPA "
                                 "resources files; set EU affinity with doca_dpa_eu_affinity_* instead",
                                 app_key != nullptr ? app_key : "", buf_size);
    return FLEXIO_STATUS_FAILED;
}

int flexio_resources_get_eugs_num(flexio_resource *) {
    return 0;
}

uint32_t flexio_resources_get_eus_num(flexio_resource *) {
    return 0;
}

uint32_t *flexio_resources_get_eus(flexio_resource *) {
    return nullptr;
}

void flexio_resources_destroy(flexio_resource *) {}

} // extern "C"
