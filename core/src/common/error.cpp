// doca_error_t names and descriptions.
#include "common/c_enum.hpp"

#include <doca_error.h>

#include <array>

namespace {

struct ErrorText {
    const char *name;
    const char *descr;
};

constexpr std::array<ErrorText, 32> kErrors = {{
    {"DOCA_SUCCESS", "Success"},
    {"DOCA_ERROR_UNKNOWN", "Unknown error"},
    {"DOCA_ERROR_NOT_PERMITTED", "Operation not permitted"},
    {"DOCA_ERROR_IN_USE", "Resource already in use"},
    {"DOCA_ERROR_NOT_SUPPORTED", "Operation not supported"},
    {"DOCA_ERROR_AGAIN", "Resource temporarily unavailable, try again"},
    {"DOCA_ERROR_INVALID_VALUE", "Invalid input"},
    {"DOCA_ERROR_NO_MEMORY", "Memory allocation failure"},
    {"DOCA_ERROR_INITIALIZATION", "Resource initialization failure"},
    {"DOCA_ERROR_TIME_OUT", "Timer expired waiting for resource"},
    {"DOCA_ERROR_SHUTDOWN", "Shut down in process or completed"},
    {"DOCA_ERROR_CONNECTION_RESET", "Connection reset by peer"},
    {"DOCA_ERROR_CONNECTION_ABORTED", "Connection aborted"},
    {"DOCA_ERROR_CONNECTION_INPROGRESS", "Connection in progress"},
    {"DOCA_ERROR_NOT_CONNECTED", "Not connected"},
    {"DOCA_ERROR_NO_LOCK", "Unable to acquire required lock"},
    {"DOCA_ERROR_NOT_FOUND", "Resource not found"},
    {"DOCA_ERROR_IO_FAILED", "Input/output operation failed"},
    {"DOCA_ERROR_BAD_STATE", "Bad state"},
    {"DOCA_ERROR_UNSUPPORTED_VERSION", "Unsupported version"},
    {"DOCA_ERROR_OPERATING_SYSTEM", "Operating system call failure"},
    {"DOCA_ERROR_DRIVER", "DOCA driver call failure"},
    {"DOCA_ERROR_UNEXPECTED", "An unexpected scenario was detected"},
    {"DOCA_ERROR_ALREADY_EXIST", "Resource already exists"},
    {"DOCA_ERROR_FULL", "No more space in resource"},
    {"DOCA_ERROR_EMPTY", "No entry is available in resource"},
    {"DOCA_ERROR_IN_PROGRESS", "Operation is in progress"},
    {"DOCA_ERROR_TOO_BIG", "Requested operation too big to be contained"},
    {"DOCA_ERROR_AUTHENTICATION", "Authentication failure"},
    {"DOCA_ERROR_BAD_CONFIG", "Configuration is not valid"},
    {"DOCA_ERROR_SKIPPED", "Result is valid, but some previous output data was dropped"},
    {"DOCA_ERROR_DEVICE_FATAL_ERROR", "Device experienced a fatal error"},
}};

constexpr const char *kUnrecognized = "unrecognized error code";

// C callers may pass any int (common/c_enum.hpp): compared as one, never loaded as the enum.
const ErrorText *lookup(const doca_error_t &error) {
    auto index = static_cast<unsigned>(skiff::core::c_enum_value(error));
    return index < kErrors.size() ? &kErrors[index] : nullptr;
}

} // namespace

extern "C" const char *doca_error_get_name(doca_error_t error) {
    const ErrorText *text = lookup(error);
    return text ? text->name : kUnrecognized;
}

extern "C" const char *doca_error_get_descr(doca_error_t error) {
    const ErrorText *text = lookup(error);
    return text ? text->descr : kUnrecognized;
}
