// Key material is wiped before its memory is freed: the WipingAllocator behind KeyBytes (TLS
// PSKs and everything derived from them) clears each buffer it releases, also the old buffer a
// growing vector leaves behind. An inspecting allocator underneath looks at the bytes as they are
// freed.
#include "skiff/nvmeof/auth/bytes.hpp"
#include "skiff/nvmeof/tls/psk.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <type_traits>

namespace skiff::nvmeof::auth {
namespace {

struct FreeLog {
    static inline size_t frees = 0;
    static inline size_t frees_with_data = 0; // buffers released with a non-zero byte in them
};

template <typename T>
struct InspectingAllocator {
    using value_type = T;
    T *allocate(size_t n) { return std::allocator<T>().allocate(n); }
    void deallocate(T *p, size_t n) {
        const auto *bytes = reinterpret_cast<const uint8_t *>(p);
        ++FreeLog::frees;
        if (std::any_of(bytes, bytes + n * sizeof(T), [](uint8_t b) { return b != 0; }))
            ++FreeLog::frees_with_data;
        std::allocator<T>().deallocate(p, n);
    }
};

TEST(KeyBytes, EveryBufferIsWipedBeforeItIsFreed) {
    // The inspector itself sees key bytes in a buffer freed without wiping.
    FreeLog::frees = FreeLog::frees_with_data = 0;
    { std::vector<uint8_t, InspectingAllocator<uint8_t>> plain(48, 0xA5); }
    ASSERT_EQ(FreeLog::frees, 1u);
    ASSERT_EQ(FreeLog::frees_with_data, 1u);

    FreeLog::frees = FreeLog::frees_with_data = 0;
    {
        std::vector<uint8_t, WipingAllocator<uint8_t, InspectingAllocator>> key(48, 0xA5);
        for (int i = 0; i < 100; ++i) key.push_back(uint8_t(i | 1)); // grows: old buffers freed
        auto copy = key;
    }
    EXPECT_GE(FreeLog::frees, 3u);
    EXPECT_EQ(FreeLog::frees_with_data, 0u);
}

TEST(KeyBytes, TlsKeysLiveInWipedMemory) {
    static_assert(std::is_same_v<decltype(tls::ConfiguredPsk::key), KeyBytes>);
    static_assert(std::is_same_v<decltype(tls::SessionPsk::key), KeyBytes>);
    static_assert(std::is_same_v<decltype(tls::retained_psk(tls::ConfiguredPsk{}, "")), KeyBytes>);
    tls::ConfiguredPsk psk;
    psk.hash = tls::PskHash::kSha256;
    psk.key.assign(32, 0x42);
    auto session = tls::session_psk(psk, "nqn.2014-08.org.nvmexpress:uuid:a", "nqn.2026-11.io.skiff:s");
    EXPECT_EQ(session.key.size(), 32u);
}

} // namespace
} // namespace skiff::nvmeof::auth
