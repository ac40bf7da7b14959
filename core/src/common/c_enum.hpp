// An enum argument of the C API, read as the integer a C caller passed.
//
// In C an enum object may hold any value of its integer type, and the C API documents answers for
// unknown values (doca_error_get_name: "unrecognized error code"; skiff_dma_set_engine:
// DOCA_ERROR_INVALID_VALUE). In C++ an enum without a fixed underlying type only has the values
// its enumerators' bits span: loading doca_error_t 32 as a doca_error_t is undefined, and clang's
// -fsanitize=enum reports it. So the C API's entry points copy the argument's bytes into its
// underlying integer type and check that, never loading an unknown value as the enum.
#pragma once

#include <cstring>
#include <type_traits>

namespace skiff::core {

template <typename E>
std::underlying_type_t<E> c_enum_value(const E &value) {
    static_assert(std::is_enum_v<E>);
    std::underlying_type_t<E> raw;
    std::memcpy(&raw, &value, sizeof(raw));
    return raw;
}

} // namespace skiff::core
