#include "skiff/nvmeof/auth/messages.hpp"

namespace skiff::nvmeof::auth {

const char *failure_explanation(uint8_t code) {
    switch (code) {
    case kExplFailed:
        return "authentication failed";
    case kExplNotUsable:
        return "authentication protocol not usable";
    case kExplConcatMismatch:
        return "secure channel concatenation mismatch";
    case kExplHashUnusable:
        return "hash function not usable";
    case kExplDhgroupUnusable:
        return "DH group not usable";
    case kExplIncorrectPayload:
        return "incorrect payload";
    case kExplIncorrectMessage:
        return "incorrect protocol message";
    default:
        return "unknown reason";
    }
}

} // namespace skiff::nvmeof::auth
