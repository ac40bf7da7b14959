// Errors as values for skiff's own C++ code: a doca_error_t plus a message that names what is
// wrong and what would be right.
#pragma once

#include <doca_error.h>

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace skiff {

struct Error {
    doca_error_t code = DOCA_ERROR_UNKNOWN;
    std::string message;

    std::string describe() const { return std::string(doca_error_get_name(code)) + ": " + message; }
};

// The result of an operation that yields a T or fails with an Error.
template <typename T>
class [[nodiscard]] Result {
  public:
    Result(T value) : v_(std::move(value)) {}
    Result(Error error) : v_(std::move(error)) {}

    bool ok() const { return v_.index() == 0; }
    explicit operator bool() const { return ok(); }

    T &value() & { assert(ok()); return std::get<0>(v_); }
    T &&value() && { assert(ok()); return std::get<0>(std::move(v_)); }
    const T &value() const & { assert(ok()); return std::get<0>(v_); }
    T *operator->() { return &value(); }
    T &operator*() { return value(); }

    const Error &error() const { assert(!ok()); return std::get<1>(v_); }

  private:
    std::variant<T, Error> v_;
};

// The result of an operation that yields nothing on success.
class [[nodiscard]] Status {
  public:
    Status() = default;
    Status(Error error) : error_(std::move(error)), ok_(false) {}

    static Status success() { return Status(); }

    bool ok() const { return ok_; }
    explicit operator bool() const { return ok_; }
    const Error &error() const { assert(!ok_); return error_; }

  private:
    Error error_;
    bool ok_ = true;
};

inline Error make_error(doca_error_t code, std::string message) { return Error{code, std::move(message)}; }

// Turns a C API result into a Status, with context for the message.
inline Status check(doca_error_t code, const std::string &what) {
    if (code == DOCA_SUCCESS) return Status::success();
    return Status(Error{code, what + " failed: " + doca_error_get_descr(code)});
}

} // namespace skiff
