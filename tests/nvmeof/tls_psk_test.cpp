// NVMe/TCP TLS keys: the interchange format (`nvme gen-tls-key` output), the PSK identity and
// the derivations, checked against published values and against each other's rules.
#include "skiff/nvmeof/tls/generated_psk.hpp"
#include "skiff/nvmeof/tls/psk.hpp"

#include <gtest/gtest.h>

#include <openssl/evp.h>

#include <sys/wait.h>

#include <cstdio>

using namespace skiff::nvmeof::tls;

namespace {

// libnvme's own test vector (test/psk.c): these 32 bytes export as this string.
const KeyBytes kKey = {0x55, 0x12, 0xDB, 0xB6, 0x73, 0x7D, 0x01, 0x06, 0xF6, 0x59, 0x75,
                       0xB7, 0x73, 0xDF, 0xB0, 0x11, 0xFF, 0xC3, 0x44, 0xBC, 0xF4, 0x42,
                       0xE2, 0xDD, 0x6D, 0x8B, 0xC4, 0x87, 0x0B, 0x5D, 0x5B, 0x03};
constexpr const char *kKeyText = "NVMeTLSkey-1:01:VRLbtnN9AQb2WXW3c9+wEf/DRLz0QuLdbYvEhwtdWwNf9LrZ:";
constexpr const char *kHost = "nqn.2014-08.org.nvmexpress:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6";
constexpr const char *kSub = "nqn.2026-11.io.skiff:tls";

} // namespace

TEST(tls_psk, ParsesTheInterchangeFormatAsNvmeCliWritesIt) {
    auto psk = parse_interchange(kKeyText);
    ASSERT_TRUE(psk.ok()) << psk.error().message;
    EXPECT_EQ(psk->hash, PskHash::kSha256);
    EXPECT_EQ(psk->key, kKey);
    EXPECT_EQ(format_interchange(*psk), kKeyText);
    // A trailing newline (a key file) is fine.
    EXPECT_TRUE(parse_interchange(std::string(kKeyText) + "\n").ok());
}

TEST(tls_psk, RejectsCorruptKeysWithoutQuotingThem) {
    std::string bad_crc = kKeyText;
    bad_crc[20] = bad_crc[20] == 'A' ? 'B' : 'A';
    auto r = parse_interchange(bad_crc);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("CRC-32"), std::string::npos) << r.error().message;
    EXPECT_EQ(r.error().message.find(bad_crc.substr(16, 20)), std::string::npos) << "the key leaked";

    EXPECT_FALSE(parse_interchange("NVMeTLSkey-1:03:VRLbtnN9AQb2WXW3c9+wEf/DRLz0QuLdbYvEhwtdWwNf9LrZ:").ok());
    EXPECT_FALSE(parse_interchange("NVMeTLSkey-1:02:VRLbtnN9AQb2WXW3c9+wEf/DRLz0QuLdbYvEhwtdWwNf9LrZ:").ok())
        << "a 32-byte key under the SHA-384 indicator";
    EXPECT_FALSE(parse_interchange("DHHC-1:01:VRLbtnN9AQb2WXW3c9+wEf/DRLz0QuLdbYvEhwtdWwNf9LrZ:").ok());
    EXPECT_FALSE(parse_interchange("NVMeTLSkey-1:01:VRLbtnN9AQb2WXW3c9+wEf/DRLz0QuLdbYvEhwtdWwNf9LrZ").ok());
    EXPECT_FALSE(parse_interchange("NVMeTLSkey-1:01:!!!!:").ok());
}

TEST(tls_psk, RoundTripsSha384Keys) {
    ConfiguredPsk p;
    p.hash = PskHash::kSha384;
    for (int i = 0; i < 48; ++i) p.key.push_back(static_cast<uint8_t>(i * 7 + 3));
    auto back = parse_interchange(format_interchange(p));
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(back->key, p.key);
    EXPECT_EQ(back->cipher_hash(), PskHash::kSha384);
}

TEST(tls_psk, IdentityNamesHashHostAndSubsystem) {
    EXPECT_EQ(psk_identity(PskHash::kSha256, kHost, kSub), std::string("NVMe0R01 ") + kHost + " " + kSub);
    EXPECT_EQ(psk_identity(PskHash::kSha384, "h", "s"), "NVMe0R02 h s");
    auto id = parse_identity(std::string("NVMe0R01 ") + kHost + " " + kSub);
    ASSERT_TRUE(id.has_value());
    EXPECT_EQ(id->version, 0);
    EXPECT_EQ(id->hash, PskHash::kSha256);
    EXPECT_EQ(id->hostnqn, kHost);
    EXPECT_EQ(id->subnqn, kSub);
    auto v1 = parse_identity("NVMe1R02 host sub ZGlnZXN0");
    ASSERT_TRUE(v1.has_value());
    EXPECT_EQ(v1->version, 1);
    EXPECT_EQ(v1->digest, "ZGlnZXN0");
    EXPECT_FALSE(parse_identity("NVMe0R03 host sub").has_value());
    EXPECT_FALSE(parse_identity("NVMe0R01 host").has_value());
    EXPECT_FALSE(parse_identity("Client_identity").has_value());
}

// Secure channel concatenation's identity: "NVMe1G<hh> <hostnqn> <subnqn> <digest>", version 1
// only (a generated PSK is found by its digest).
TEST(tls_psk, GeneratedIdentitiesAreVersionOneWithTheirDigest) {
    EXPECT_EQ(generated_identity(PskHash::kSha384, "h", "s", "ZGln"), "NVMe1G02 h s ZGln");
    EXPECT_EQ(identity_context(PskHash::kSha256, "ZGln"), "01 ZGln");
    auto g = parse_identity(generated_identity(PskHash::kSha256, kHost, kSub, "ZGlnZXN0"));
    ASSERT_TRUE(g.has_value());
    EXPECT_TRUE(g->generated);
    EXPECT_EQ(g->version, 1);
    EXPECT_EQ(g->hash, PskHash::kSha256);
    EXPECT_EQ(g->hostnqn, kHost);
    EXPECT_EQ(g->subnqn, kSub);
    EXPECT_EQ(g->digest, "ZGlnZXN0");
    EXPECT_FALSE(parse_identity("NVMe1R01 h s d")->generated);
    EXPECT_FALSE(parse_identity("NVMe0G01 h s").has_value()) << "a generated PSK needs its digest";
    EXPECT_FALSE(parse_identity("NVMe1X01 h s d").has_value());
}

// The generated PSK is HMAC-H(session key, C1 || C2), computed here with OpenSSL directly. Keyed
// with g^xy (the Linux host and target) or with H(g^xy) (the specification's KS) it is the same
// PSK: HMAC hashes a key longer than its block first, and a DH value of ffdhe2048 (256 bytes) is
// longer than SHA-256's 64-byte and SHA-384's 128-byte blocks. A key of one block or less is
// not hashed: the two forms then differ, which shows the comparison can fail.
TEST(tls_psk, GeneratedPskIsTheHmacOfBothChallengesUnderEitherSessionKeyForm) {
    std::vector<uint8_t> shared(256), c1(48), c2(48);
    for (size_t i = 0; i < shared.size(); ++i) shared[i] = uint8_t(i * 7 + 1);
    for (size_t i = 0; i < c1.size(); ++i) c1[i] = uint8_t(0xA0 + i), c2[i] = uint8_t(0x10 + 3 * i);
    for (PskHash hash : {PskHash::kSha256, PskHash::kSha384}) {
        const size_t hl = hash == PskHash::kSha384 ? 48 : 32;
        const char *md = hash == PskHash::kSha384 ? "SHA384" : "SHA256";
        auto mac = [&](const std::vector<uint8_t> &k) {
            std::vector<uint8_t> msg(c1.begin(), c1.begin() + hl);
            msg.insert(msg.end(), c2.begin(), c2.begin() + hl);
            unsigned char out[64];
            size_t n = 0;
            EXPECT_NE(EVP_Q_mac(nullptr, "HMAC", nullptr, md, nullptr, k.data(), k.size(), msg.data(),
                                msg.size(), out, sizeof(out), &n),
                      nullptr);
            return KeyBytes(out, out + n);
        };
        std::vector<uint8_t> ks(hl);
        unsigned int kl = 0;
        EVP_Digest(shared.data(), shared.size(), ks.data(), &kl,
                   hash == PskHash::kSha384 ? EVP_sha384() : EVP_sha256(), nullptr);
        const skiff::nvmeof::auth::ByteView h1(c1.data(), hl), h2(c2.data(), hl);
        KeyBytes psk = generated_psk(hash, shared, h1, h2);
        EXPECT_EQ(psk.size(), hl);
        EXPECT_EQ(psk, mac(shared));
        EXPECT_EQ(psk, mac(ks)) << "HMAC(g^xy, m) and HMAC(H(g^xy), m) differ";
        EXPECT_EQ(generated_psk(hash, ks, h1, h2), psk);
        std::vector<uint8_t> short_key(shared.begin(), shared.begin() + 16);
        std::vector<uint8_t> short_hashed(hl);
        EVP_Digest(short_key.data(), short_key.size(), short_hashed.data(), &kl,
                   hash == PskHash::kSha384 ? EVP_sha384() : EVP_sha256(), nullptr);
        EXPECT_NE(mac(short_key), mac(short_hashed));
    }
    EXPECT_EQ(concat_hash(1), PskHash::kSha256);
    EXPECT_EQ(concat_hash(2), PskHash::kSha384);
    EXPECT_FALSE(concat_hash(3).has_value()) << "SHA-512 keys no NVMe/TCP cipher suite";
}

TEST(tls_psk, DerivationsDependOnEveryInput) {
    ConfiguredPsk p = *parse_interchange(kKeyText);
    auto retained = retained_psk(p, kHost);
    ASSERT_EQ(retained.size(), 32u);
    EXPECT_NE(retained, p.key);
    EXPECT_NE(retained_psk(p, "nqn.2014-08.org.nvmexpress:uuid:other"), retained);
    SessionPsk s = session_psk(p, kHost, kSub);
    EXPECT_EQ(s.identity, psk_identity(PskHash::kSha256, kHost, kSub));
    ASSERT_EQ(s.key.size(), 32u);
    EXPECT_EQ(s.key, tls_psk(PskHash::kSha256, retained, s.identity));
    EXPECT_NE(session_psk(p, kHost, "nqn.2026-11.io.skiff:other").key, s.key);
    // "00": the configured key is the retained key.
    ConfiguredPsk none = p;
    none.hash = PskHash::kNone;
    EXPECT_EQ(retained_psk(none, kHost), p.key);
    EXPECT_EQ(none.cipher_hash(), PskHash::kSha256);
}

namespace {

// Runs a shell command; its stdout and exit code (-1 when it could not run).
std::pair<int, std::string> run(const std::string &cmd) {
    std::string out;
    FILE *p = ::popen(cmd.c_str(), "r");
    if (!p) return {-1, out};
    char buf[256];
    while (std::fgets(buf, sizeof(buf), p)) out += buf;
    int st = ::pclose(p);
    return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, out};
}

bool have_nvme_cli() {
    return run("command -v nvme >/dev/null 2>&1").first == 0;
}

} // namespace

// nvme-cli (Debian's, as a Linux host administrator runs it) writes keys we read, and accepts
// the keys we write.
TEST(tls_psk, AcceptsNvmeGenTlsKeyOutputAndNvmeCheckTlsKeyAcceptsOurs) {
    if (!have_nvme_cli()) GTEST_SKIP() << "nvme-cli not installed (scripts/install-deps.sh installs it)";
    for (int hmac : {1, 2}) {
        auto [rc, text] = run("nvme gen-tls-key --hmac=" + std::to_string(hmac) + " 2>/dev/null");
        ASSERT_EQ(rc, 0) << "nvme gen-tls-key --hmac=" << hmac;
        auto psk = parse_interchange(text);
        ASSERT_TRUE(psk.ok()) << psk.error().message << " for " << hmac;
        EXPECT_EQ(psk->key.size(), hmac == 1 ? 32u : 48u);
        EXPECT_EQ(psk->hash, hmac == 1 ? PskHash::kSha256 : PskHash::kSha384);

        ConfiguredPsk mine;
        mine.hash = psk->hash;
        for (size_t i = 0; i < psk->key.size(); ++i) mine.key.push_back(uint8_t(0xA5 ^ i));
        auto [crc, out] = run("nvme check-tls-key --key=" + format_interchange(mine) + " 2>&1");
        EXPECT_EQ(crc, 0) << out;
        EXPECT_NE(out.find("Key is valid"), std::string::npos) << out;
    }
}

// libnvme's published version-1 identities (its test/psk.c) for these keys, host
// "nqn.psk-test-host" and subsystem "nqn.psk-test-subsys". The digest is an HMAC keyed with
// the retained PSK, so each pins one HkdfLabel layout of the retained PSK: RFC 8446's
// (libnvme 1.16 and later) and the legacy one (libnvme up to 1.15, its "compat" since; nvme-cli
// 2.13 in the trixie lab guest inserts "NVMe1R01 ... 66GuqV08..." for the 32-byte key).
TEST(tls_psk, BothRetainedPskLayoutsGiveLibnvmesIdentityDigests) {
    constexpr const char *host = "nqn.psk-test-host", *sub = "nqn.psk-test-subsys";
    ConfiguredPsk k256{PskHash::kSha256, kKey};
    ConfiguredPsk k384{PskHash::kSha384, kKey};
    k384.key.insert(k384.key.end(), kKey.begin() + 16, kKey.end()); // libnvme's 48-byte key
    struct Case {
        const ConfiguredPsk &key;
        PskDerivation layout;
        const char *digest;
    } cases[] = {
        {k256, PskDerivation::kRfc8446, "iSbjiStwJ/1TrTvDlt2fjFmzvsytOJelidNnA+X5lEU="},
        {k256, PskDerivation::kNvmeCliLegacy, "66GuqV08TsAGII39teWUfwQwizjv06Jy8jOcX3NAAzM="},
        {k384, PskDerivation::kRfc8446, "QhW2+Rp6RzHlNtCslyRxMnwJ11tKKhz8JCAQpQ+XUD8f9td1VeH5h53yz2wKJG1a"},
        {k384, PskDerivation::kNvmeCliLegacy,
         "RsKmYJ3nAn1ApjjMloJFbAkLPivONDAX/xW327YBUsn2eGShXSjCZvBaOxscLqmz"},
    };
    for (const Case &c : cases)
        EXPECT_EQ(identity_digest(c.key.hash, retained_psk(c.key, host, c.layout), host, sub), c.digest)
            << derivation_name(c.layout) << ", " << c.key.key.size() << "-byte key";
    // The two layouts give different TLS PSKs for the same identity (what the binder tells apart).
    EXPECT_NE(session_psk(k256, host, sub, PskDerivation::kRfc8446).key,
              session_psk(k256, host, sub, PskDerivation::kNvmeCliLegacy).key);
}
