// Synchronous I/O commands on a controller's I/O queues (tests and tools; the perf path submits
// and polls on the TcpQueue directly).
#include "skiff/nvmeof/host/controller.hpp"

#include "skiff/nvmeof/host/commands.hpp"

namespace skiff::nvmeof::host {

Status Controller::io(size_t q, const wire::Sqe &sqe, DataDir dir, void *buf, uint32_t len,
                      const char *what) {
    if (q >= io_queues_.size())
        return make_error(DOCA_ERROR_INVALID_VALUE, std::string(what) + " on I/O queue index " +
                                                        std::to_string(q) + ": the controller has " +
                                                        std::to_string(io_queues_.size()) + " I/O queues");
    Result<Completion> c = io_queues_[q]->execute(sqe, dir, buf, len, options_.timeout);
    if (!c) return c.error();
    return to_status(*c, what);
}

Status Controller::read(size_t q, uint32_t nsid, uint64_t slba, uint32_t nlb, void *buf, uint32_t len) {
    return io(q, cmd::read(nsid, slba, nlb), DataDir::kControllerToHost, buf, len, "Read");
}

Status Controller::write(size_t q, uint32_t nsid, uint64_t slba, uint32_t nlb, const void *buf,
                         uint32_t len) {
    return io(q, cmd::write(nsid, slba, nlb), DataDir::kHostToController, const_cast<void *>(buf), len,
              "Write");
}

Status Controller::flush(size_t q, uint32_t nsid) {
    return io(q, cmd::flush(nsid), DataDir::kNone, nullptr, 0, "Flush");
}

Status Controller::write_zeroes(size_t q, uint32_t nsid, uint64_t slba, uint32_t nlb) {
    return io(q, cmd::write_zeroes(nsid, slba, nlb), DataDir::kNone, nullptr, 0, "Write Zeroes");
}

Status Controller::deallocate(size_t q, uint32_t nsid, const std::vector<nvme_dsm_range> &ranges) {
    if (ranges.empty() || ranges.size() > 256)
        return make_error(DOCA_ERROR_INVALID_VALUE,
                          "Dataset Management takes 1..256 ranges, got " + std::to_string(ranges.size()));
    auto bytes = static_cast<uint32_t>(ranges.size() * sizeof(nvme_dsm_range));
    return io(q, cmd::dsm(nsid, static_cast<uint32_t>(ranges.size()), NVME_DSMGMT_AD),
              DataDir::kHostToController, const_cast<nvme_dsm_range *>(ranges.data()), bytes,
              "Dataset Management (deallocate)");
}

Status Controller::verify(size_t q, uint32_t nsid, uint64_t slba, uint32_t nlb) {
    return io(q, cmd::verify(nsid, slba, nlb), DataDir::kNone, nullptr, 0, "Verify");
}

Status Controller::copy(size_t q, uint32_t nsid, uint64_t sdlba, const std::vector<CopyRange> &ranges) {
    if (ranges.empty() || ranges.size() > 256)
        return make_error(DOCA_ERROR_INVALID_VALUE,
                          "Copy takes 1..256 source ranges, got " + std::to_string(ranges.size()));
    std::vector<nvme_copy_range> entries(ranges.size());
    for (size_t i = 0; i < ranges.size(); ++i) {
        if (ranges[i].nlb == 0 || ranges[i].nlb > 65536)
            return make_error(DOCA_ERROR_INVALID_VALUE,
                              "Copy source range " + std::to_string(i) + " must have 1..65536 blocks");
        entries[i].slba = ranges[i].slba;
        entries[i].nlb = static_cast<uint16_t>(ranges[i].nlb - 1); // 0's based
    }
    auto bytes = static_cast<uint32_t>(entries.size() * sizeof(nvme_copy_range));
    return io(q, cmd::copy(nsid, sdlba, static_cast<uint32_t>(entries.size())), DataDir::kHostToController,
              entries.data(), bytes, "Copy");
}

} // namespace skiff::nvmeof::host
