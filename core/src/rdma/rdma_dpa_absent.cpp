// Without rdma-core at build time: no doca_rdma reaches the DPA data path, so no DPA RDMA handle
// exists; a device call with one is a device fault (the DPA's fatal error).
#ifndef SKIFF_HAVE_RDMA
#include "dpa/device_call.hpp"

#include <doca_dpa_dev_rdma.h>
#include <doca_rdma.h>

namespace {

void no_rdma(const char *api) {
    if (skiff::core::dpa::DeviceCall *call = skiff::core::dpa::device_call(api))
        skiff::core::dpa::device_fault(*call, std::string(api) + ": skiff was built without rdma-core");
}

} // namespace

extern "C" {

doca_error_t doca_rdma_dpa_completion_attach(struct doca_rdma *, struct doca_dpa_completion *) {
    return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_rdma_get_dpa_handle(struct doca_rdma *, doca_dpa_dev_rdma_t *) {
    return DOCA_ERROR_NOT_SUPPORTED;
}

void doca_dpa_dev_rdma_post_read(doca_dpa_dev_rdma_t, uint32_t, doca_dpa_dev_mmap_t, uint64_t,
                                 doca_dpa_dev_mmap_t, uint64_t, size_t, uint32_t) {
    no_rdma("doca_dpa_dev_rdma_post_read");
}
void doca_dpa_dev_rdma_post_buf_read(doca_dpa_dev_rdma_t, uint32_t, doca_dpa_dev_buf_t, doca_dpa_dev_buf_t,
                                     uint32_t) {
    no_rdma("doca_dpa_dev_rdma_post_buf_read");
}
void doca_dpa_dev_rdma_post_write(doca_dpa_dev_rdma_t, uint32_t, doca_dpa_dev_mmap_t, uint64_t,
                                  doca_dpa_dev_mmap_t, uint64_t, size_t, uint32_t) {
    no_rdma("doca_dpa_dev_rdma_post_write");
}
void doca_dpa_dev_rdma_post_buf_write(doca_dpa_dev_rdma_t, uint32_t, doca_dpa_dev_buf_t, doca_dpa_dev_buf_t,
                                      uint32_t) {
    no_rdma("doca_dpa_dev_rdma_post_buf_write");
}
void doca_dpa_dev_rdma_post_write_imm(doca_dpa_dev_rdma_t, uint32_t, doca_dpa_dev_mmap_t, uint64_t,
                                      doca_dpa_dev_mmap_t, uint64_t, size_t, uint32_t, uint32_t) {
    no_rdma("doca_dpa_dev_rdma_post_write_imm");
}
void doca_dpa_dev_rdma_post_buf_write_imm(doca_dpa_dev_rdma_t, uint32_t, doca_dpa_dev_buf_t,
                                          doca_dpa_dev_buf_t, uint32_t, uint32_t) {
    no_rdma("doca_dpa_dev_rdma_post_buf_write_imm");
}
void doca_dpa_dev_rdma_post_send(doca_dpa_dev_rdma_t, uint32_t, doca_dpa_dev_mmap_t, uint64_t, size_t,
                                 uint32_t) {
    no_rdma("doca_dpa_dev_rdma_post_send");
}
void doca_dpa_dev_rdma_post_buf_send(doca_dpa_dev_rdma_t, uint32_t, doca_dpa_dev_buf_t, uint32_t) {
    no_rdma("doca_dpa_dev_rdma_post_buf_send");
}
void doca_dpa_dev_rdma_post_send_imm(doca_dpa_dev_rdma_t, uint32_t, doca_dpa_dev_mmap_t, uint64_t, size_t,
                                     uint32_t, uint32_t) {
    no_rdma("doca_dpa_dev_rdma_post_send_imm");
}
void doca_dpa_dev_rdma_post_buf_send_imm(doca_dpa_dev_rdma_t, uint32_t, doca_dpa_dev_buf_t, uint32_t,
                                         uint32_t) {
    no_rdma("doca_dpa_dev_rdma_post_buf_send_imm");
}
void doca_dpa_dev_rdma_post_receive(doca_dpa_dev_rdma_t, doca_dpa_dev_mmap_t, uint64_t, size_t) {
    no_rdma("doca_dpa_dev_rdma_post_receive");
}
void doca_dpa_dev_rdma_post_buf_receive(doca_dpa_dev_rdma_t, doca_dpa_dev_buf_t) {
    no_rdma("doca_dpa_dev_rdma_post_buf_receive");
}
void doca_dpa_dev_rdma_receive_ack(doca_dpa_dev_rdma_t, uint32_t) {
    no_rdma("doca_dpa_dev_rdma_receive_ack");
}
uint32_t doca_dpa_dev_rdma_completion_get_wr_index(doca_dpa_dev_completion_element_t) {
    return 0;
}
void doca_dpa_dev_rdma_post_atomic_fetch_add(doca_dpa_dev_rdma_t, uint32_t, doca_dpa_dev_mmap_t, uint64_t,
                                             uint64_t, uint32_t) {
    no_rdma("doca_dpa_dev_rdma_post_atomic_fetch_add");
}
void doca_dpa_dev_rdma_post_buf_atomic_fetch_add(doca_dpa_dev_rdma_t, uint32_t, doca_dpa_dev_buf_t, uint64_t,
                                                 uint32_t) {
    no_rdma("doca_dpa_dev_rdma_post_buf_atomic_fetch_add");
}
void doca_dpa_dev_rdma_signal_set(doca_dpa_dev_rdma_t, uint32_t, doca_dpa_dev_sync_event_remote_net_t,
                                  uint64_t) {
    no_rdma("doca_dpa_dev_rdma_signal_set");
}
void doca_dpa_dev_rdma_signal_add(doca_dpa_dev_rdma_t, uint32_t, doca_dpa_dev_sync_event_remote_net_t,
                                  uint64_t) {
    no_rdma("doca_dpa_dev_rdma_signal_add");
}

} // extern "C"

#endif // SKIFF_HAVE_RDMA
