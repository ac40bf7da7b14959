// What every fuzz harness shares: a reader that takes typed values off the front of the fuzzer's
// bytes (zero once they run out, so every input is valid to the harness), and a check that
// aborts, so a broken property is a crash the fuzzer saves like any other.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>
#include <string>

namespace skiff::fuzz {

class Input {
  public:
    Input(const uint8_t *data, size_t size) : data_(data), size_(size) {}

    bool empty() const { return pos_ >= size_; }
    size_t remaining() const { return size_ - pos_; }

    uint8_t u8() { return empty() ? 0 : data_[pos_++]; }
    uint16_t u16() { return static_cast<uint16_t>(u8() | (u8() << 8)); }
    uint32_t u32() { return u16() | (static_cast<uint32_t>(u16()) << 16); }
    bool flag() { return (u8() & 1) != 0; }
    // Up to n bytes (fewer at the end).
    std::span<const uint8_t> bytes(size_t n) {
        n = n < remaining() ? n : remaining();
        std::span<const uint8_t> s(data_ + pos_, n);
        pos_ += n;
        return s;
    }
    // A length-prefixed chunk: one byte of length, then that many bytes.
    std::span<const uint8_t> chunk() { return bytes(u8()); }
    std::span<const uint8_t> rest() { return bytes(remaining()); }
    std::string string(size_t n) {
        auto b = bytes(n);
        return std::string(reinterpret_cast<const char *>(b.data()), b.size());
    }

  private:
    const uint8_t *data_;
    size_t size_;
    size_t pos_ = 0;
};

[[noreturn]] inline void check_failed(const char *expr, const char *file, int line) {
    std::fprintf(stderr, "fuzz property broken: %s at %s:%d\n", expr, file, line);
    std::abort();
}

} // namespace skiff::fuzz

// A property the code under test must keep for every input; abort (a crash to the fuzzer) if not.
#define SKIFF_FUZZ_CHECK(expr) ((expr) ? (void)0 : ::skiff::fuzz::check_failed(#expr, __FILE__, __LINE__))
