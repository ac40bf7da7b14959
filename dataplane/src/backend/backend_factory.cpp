#include "skiff/dataplane/backend_factory.hpp"

#include "skiff/dataplane/null_device.hpp"
#include "skiff/dataplane/ram_device.hpp"

// The aio backend is built by another branch (engineer i5a); make_aio() uses it as soon as its
// header is in the tree, and says so clearly until then.
#if __has_include("skiff/dataplane/aio_device.hpp")
#include "skiff/dataplane/aio_device.hpp"
#define SKIFF_HAVE_AIO_DEVICE 1
#endif

namespace skiff::dataplane {
namespace {

using Made = Result<std::shared_ptr<nvmeof::target::BlockDevice>>;

Made make_ram(const config::BackendConfig &b) {
    auto ram = RamDevice::create(b.size_bytes);
    if (!ram) return ram.error();
    return std::shared_ptr<nvmeof::target::BlockDevice>(*ram);
}

Made make_null(const config::BackendConfig &b) {
    return std::shared_ptr<nvmeof::target::BlockDevice>(std::make_shared<NullDevice>(b.size_bytes));
}

// The aio backend (engineer i5a's AioDevice) plugs in here: AioOptions from b.settings
// (path, buffered, queue_depth, create) and b.size_bytes.
Made make_aio(const config::BackendConfig &b) {
    return make_error(DOCA_ERROR_NOT_SUPPORTED, "the aio backend is not part of this build yet (file " +
                                                    b.settings.value("path", "") + ")");
}

struct Factory {
    const char *kind;
    Made (*make)(const config::BackendConfig &);
};
constexpr Factory kFactories[] = {{"ram", make_ram}, {"null", make_null}, {"aio", make_aio}};

} // namespace

Made make_backend(const config::BackendConfig &backend) {
    for (const Factory &f : kFactories) {
        if (backend.kind != f.kind) continue;
        auto made = f.make(backend);
        if (!made)
            return make_error(made.error().code, "backend \"" + backend.name + "\": " + made.error().message);
        return made;
    }
    return make_error(DOCA_ERROR_NOT_SUPPORTED,
                      "backend \"" + backend.name + "\": kind \"" + backend.kind + "\" has no factory");
}

} // namespace skiff::dataplane
