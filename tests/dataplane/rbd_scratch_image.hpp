// A scratch image of the dev cluster for one test, made through librbd itself and removed
// afterwards, so that tests never leave their bytes on the shared image (skiff-perf --verify
// through the target, bench/run and scripts/ceph-monitor-loss.sh use that one). Its image-meta
// may set librbd options for it ("conf_<option>").
#pragma once

#include <rados/librados.h>
#include <rbd/librbd.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace skiff::test {

class ScratchImage {
  public:
    ScratchImage(const std::string &conf, const std::string &pool, std::string name, uint64_t size,
                 const std::vector<std::pair<std::string, std::string>> &meta = {})
        : name_(std::move(name)) {
        ok_ = rados_create(&cluster_, nullptr) == 0 && rados_conf_read_file(cluster_, conf.c_str()) == 0 &&
              rados_connect(cluster_) == 0 && rados_ioctx_create(cluster_, pool.c_str(), &io_) == 0;
        if (!ok_) return;
        rbd_remove(io_, name_.c_str()); // a leftover of an interrupted run
        int order = 0;
        ok_ = rbd_create2(io_, name_.c_str(), size, RBD_FEATURE_LAYERING | RBD_FEATURE_EXCLUSIVE_LOCK,
                          &order) == 0;
        rbd_image_t img = nullptr;
        if (!ok_ || rbd_open(io_, name_.c_str(), &img, nullptr) != 0) {
            ok_ = false;
            return;
        }
        for (const auto &[k, v] : meta) ok_ = ok_ && rbd_metadata_set(img, k.c_str(), v.c_str()) == 0;
        rbd_close(img);
    }
    ~ScratchImage() {
        if (io_) {
            rbd_remove(io_, name_.c_str());
            rados_ioctx_destroy(io_);
        }
        if (cluster_) rados_shutdown(cluster_);
    }
    bool ok() const { return ok_; }
    const std::string &name() const { return name_; }

  private:
    std::string name_;
    rados_t cluster_ = nullptr;
    rados_ioctx_t io_ = nullptr;
    bool ok_ = false;
};

} // namespace skiff::test
