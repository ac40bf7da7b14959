#include "skiff/dataplane/backend_factory.hpp"

#include "skiff/dataplane/aio_device.hpp"
#include "skiff/dataplane/error_device.hpp"
#include "skiff/dataplane/hostmem_device.hpp"
#include "skiff/dataplane/null_device.hpp"
#include "skiff/dataplane/ram_device.hpp"
#if SKIFF_HAVE_RBD
#include "skiff/dataplane/rbd_device.hpp"
#endif
#include "skiff/config/units.hpp"
#include "skiff/nvmeof/wire/command.hpp"

#include <nlohmann/json.hpp>

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

// AioOptions from the validated settings (config/src/backend_kinds.cpp read_aio).
Made make_aio(const config::BackendConfig &b) {
    AioOptions o;
    o.path = b.settings.json().value("path", "");
    o.buffered = b.settings.json().value("buffered", false);
    o.queue_depth = b.settings.json().value("queue_depth", 128u);
    o.create = b.settings.json().value("create", false);
    o.size_bytes = b.size_bytes;
    auto aio = AioDevice::open(o);
    if (!aio) return aio.error();
    return std::shared_ptr<nvmeof::target::BlockDevice>(*aio);
}

// HostmemOptions from the validated settings (config/src/backend_kinds.cpp read_hostmem).
Made make_hostmem(const config::BackendConfig &b) {
    auto hm = HostmemDevice::create({b.settings.json().value("channel", ""), b.size_bytes,
                                     b.settings.json().value("dpu_pci", "03:00.0"),
                                     b.settings.json().value("host_pci", "")});
    if (!hm) return hm.error();
    return std::shared_ptr<nvmeof::target::BlockDevice>(*hm);
}

#if SKIFF_HAVE_RBD
// RbdOptions from the validated settings (config/src/backend_kinds.cpp read_rbd).
Made make_rbd(const config::BackendConfig &b) {
    RbdOptions o;
    o.pool = b.settings.json().value("pool", "");
    o.image = b.settings.json().value("image", "");
    o.rados_namespace = b.settings.json().value("namespace", "");
    o.conf_path = b.settings.json().value("ceph_conf", "/etc/ceph/ceph.conf");
    o.client_name = b.settings.json().value("client", "client.admin");
    o.keyring = b.settings.json().value("keyring", "");
    o.queue_depth = b.settings.json().value("queue_depth", 128u);
    o.connect_timeout_s = b.settings.json().value("connect_timeout_s", 10u);
    o.op_timeout_s = b.settings.json().value("op_timeout_s", 10u);
    o.size_bytes = b.size_bytes;
    auto rbd = RbdDevice::open(o);
    if (!rbd) return rbd.error();
    return std::shared_ptr<nvmeof::target::BlockDevice>(*rbd);
}
#else
// Built without librbd (cmake/dependencies.cmake: e.g. the arm64 cross build).
Made make_rbd(const config::BackendConfig &) {
    return Error{DOCA_ERROR_NOT_SUPPORTED,
                 "this skiff-target was built without librbd/librados: the rbd backend is not available"};
}
#endif

Made make_error_wrapper(const config::BackendConfig &b);

struct Factory {
    const char *kind;
    Made (*make)(const config::BackendConfig &);
};
constexpr Factory kFactories[] = {{"ram", make_ram}, {"null", make_null},
                                  {"aio", make_aio}, {"hostmem", make_hostmem},
                                  {"rbd", make_rbd}, {"error", make_error_wrapper}};

// The base backend from its validated object (config/src/backend_kinds.cpp read_error), then
// the failures armed at creation.
Made make_error_wrapper(const config::BackendConfig &b) {
    const nlohmann::json &bj = b.settings.json().at("base");
    config::BackendConfig base{b.name + ".base", bj.value("kind", ""), 0, {}};
    for (auto it = bj.begin(); it != bj.end(); ++it)
        if (it.key() == "size")
            base.size_bytes = config::parse_size(it.value().get<std::string>()).value_or(0);
        else if (it.key() != "kind")
            base.settings.json()[it.key()] = it.value();
    auto made = make_backend(base);
    if (!made) return made.error();
    auto dev = std::make_shared<ErrorDevice>(*made);
    const nlohmann::json &inject = b.settings.json().value("inject", nlohmann::json::object());
    for (auto it = inject.begin(); it != inject.end(); ++it) {
        InjectOp op;
        if (!parse_inject_op(it.key().c_str(), op)) continue;
        auto code = it.value().value("status", 0u);
        uint16_t status = code ? nvmeof::wire::Status::make(static_cast<uint8_t>(code >> 8),
                                                            static_cast<uint8_t>(code & 0xFF),
                                                            it.value().value("dnr", false))
                               : 0;
        dev->inject(op, it.value().value("count", 0u), status, it.value().value("delay_us", 0u));
    }
    return std::shared_ptr<nvmeof::target::BlockDevice>(dev);
}

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
