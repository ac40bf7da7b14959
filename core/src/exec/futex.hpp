// Thin wrappers over the futex syscall for 32-bit atomics: the sleeping half of the engines'
// "spin, then sleep" idle loops. Process-private.
#pragma once

#include <atomic>
#include <cstdint>

namespace skiff::core {

// Sleeps while *word == expected, at most timeout_us microseconds (negative: no limit). Returns on
// a wake, a timeout, a signal, or at once when *word != expected.
void futex_wait(std::atomic<uint32_t> &word, uint32_t expected, long timeout_us);
// Wakes every sleeper of word.
void futex_wake_all(std::atomic<uint32_t> &word);

} // namespace skiff::core
