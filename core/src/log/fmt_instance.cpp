// The one compiled copy of fmt's formatting engine in a clang build (core/include/skiff/core/log.hpp
// declares it extern for every file that logs). Under GCC, libfmt.so's copy serves and this file
// is empty.
#include "skiff/core/log.hpp"

#if defined(SKIFF_FMT_EXTERN_VFORMAT_TO) && defined(__clang__)
#include <fmt/format.h>

namespace fmt {
inline namespace v9 {
namespace detail {
template void vformat_to<char>(buffer<char> &, basic_string_view<char>,
                               basic_format_args<FMT_BUFFER_CONTEXT(type_identity_t<char>)>, locale_ref);
} // namespace detail
} // namespace v9
} // namespace fmt
#endif
