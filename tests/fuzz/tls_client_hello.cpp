// Fuzz harness: the PSK binder lookup in a TLS 1.3 ClientHello (nvmeof/src/tls/psk_binder.cpp),
// which the target runs on the ClientHello of every TLS connection, before it knows the host.
// Input: [identity index][hash: bit 0][ClientHello handshake message, 4-byte header first...]
// Property: a binder found is 32..255 bytes long (RFC 8446's PskBinderEntry) and lies inside
// the message after the bytes it covers and the binders list's length; checking it against a key
// reads nothing outside the message (the sanitizers watch).
#include "fuzz_input.hpp"

#include "skiff/nvmeof/tls/psk_binder.hpp"

using namespace skiff::nvmeof::tls;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    skiff::fuzz::Input in(data, size);
    size_t index = in.u8() & 3;
    PskHash hash = in.flag() ? PskHash::kSha384 : PskHash::kSha256;
    auto rest = in.rest();
    std::vector<uint8_t> ch(rest.begin(), rest.end());
    auto b = client_hello_binder(ch, index);
    if (!b) return 0;
    SKIFF_FUZZ_CHECK(b->binder.size() >= 32 && b->binder.size() <= 255); // PskBinderEntry<32..255>
    // covered, the binders list's 2-byte length, then the binders: all inside the message.
    SKIFF_FUZZ_CHECK(b->covered >= 4 + 2 + 32 && b->covered + 2 + 1 + b->binder.size() <= ch.size());
    KeyBytes key(hash == PskHash::kSha384 ? 48 : 32, 0x5A);
    (void)binder_matches(hash, key, ch, *b);
    return 0;
}
