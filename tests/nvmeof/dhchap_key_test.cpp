// The DHHC-1 secret representation and the key transformation, checked against what
// `nvme gen-dhchap-key` (nvme-cli 2.3 / libnvme 1.3) printed for a known secret, and the DH
// groups' shared secrets agreeing between two key pairs.
#include "skiff/nvmeof/auth/dh_group.hpp"
#include "skiff/nvmeof/auth/dhchap_key.hpp"
#include "skiff/nvmeof/auth/dhchap_response.hpp"
#include "skiff/nvmeof/auth/hash.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <memory>

using namespace skiff::nvmeof::auth;

namespace {

// The secret 00 01 02 .. 1f.
Bytes counting_secret() {
    Bytes b(32);
    for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<uint8_t>(i);
    return b;
}

const char *kNqn = "nqn.2014-08.org.nvmexpress:uuid:test";
// nvme gen-dhchap-key -s 000102..1f -m 0
const char *kPlain = "DHHC-1:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR:";
// nvme gen-dhchap-key -s 000102..1f -m 1 -n nqn.2014-08.org.nvmexpress:uuid:test: libnvme prints
// the secret already transformed once with the NQN.
const char *kSha256 = "DHHC-1:01:WulleCBkG4oCs0iIC3Cit9gBDCLWiZ9PNXuhqytWkBIZkvGy:";

TEST(DhchapKey, FormatMatchesNvmeCli) {
    DhchapKey k{0, Secret(counting_secret())};
    EXPECT_EQ(format_dhchap_key(k), kPlain);
    auto parsed = parse_dhchap_key(kPlain);
    ASSERT_TRUE(parsed.ok()) << parsed.error().message;
    EXPECT_EQ(parsed->transform, 0);
    EXPECT_EQ(Bytes(parsed->key.view().begin(), parsed->key.view().end()), counting_secret());
}

TEST(DhchapKey, TransformationIsHmacOverNqnAndLabel) {
    // What libnvme printed is HMAC-SHA-256(secret, NQN || "NVMe-over-Fabrics").
    DhchapKey k{kHashSha256, Secret(counting_secret())};
    Secret t = transform_dhchap_key(k, kNqn);
    EXPECT_EQ(format_dhchap_key(DhchapKey{kHashSha256, t}), kSha256);
    // Untransformed keys are used as they are.
    EXPECT_EQ(transform_dhchap_key(DhchapKey{0, Secret(counting_secret())}, kNqn), Secret(counting_secret()));
}

TEST(DhchapKey, LiveNvmeCliOutputParses) {
    // When nvme-cli is installed, keys it generates now parse, for each transformation.
    for (int hmac = 0; hmac <= 3; ++hmac) {
        std::string cmd = "nvme gen-dhchap-key -m " + std::to_string(hmac) + " -n " + kNqn + " 2>/dev/null";
        std::unique_ptr<FILE, int (*)(FILE *)> p(popen(cmd.c_str(), "r"), pclose);
        char line[256] = {};
        if (!p || !fgets(line, sizeof(line), p.get())) GTEST_SKIP() << "nvme-cli not installed";
        std::string key(line);
        while (!key.empty() && (key.back() == '\n' || key.back() == '\r')) key.pop_back();
        auto parsed = parse_dhchap_key(key);
        ASSERT_TRUE(parsed.ok()) << key << ": " << parsed.error().message;
        EXPECT_EQ(parsed->transform, hmac);
        EXPECT_EQ(format_dhchap_key(*parsed), key);
    }
}

TEST(DhchapKey, BadKeysAreRefusedWithoutEchoingThem) {
    std::string crc_broken = kPlain;
    crc_broken[12] = crc_broken[12] == 'A' ? 'B' : 'A';
    struct Case {
        std::string text, expect;
    } cases[] = {
        {"DHHC-2:00:AAAA:", "does not start with"},
        {"DHHC-1:05:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR:", "is not 00, 01, 02 or 03"},
        {"DHHC-1:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR", "does not end with"},
        {"DHHC-1:00:AAECAwQFBgcICQoL:", "the key is 8 bytes"},
        {crc_broken, "CRC-32 does not match"},
        {"DHHC-1:02:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR:", "must be 48 bytes"},
        {"DHHC-1:00:!!!!AwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR:", "does not decode"},
    };
    for (const Case &c : cases) {
        auto r = parse_dhchap_key(c.text);
        ASSERT_FALSE(r.ok()) << c.text;
        EXPECT_NE(r.error().message.find(c.expect), std::string::npos) << r.error().message;
        EXPECT_EQ(r.error().message.find("AwQFBgcICQoL"), std::string::npos) << r.error().message;
    }
}

TEST(DhGroup, BothSidesDeriveTheSameSecret) {
    for (uint8_t g : {kDhFfdhe2048, kDhFfdhe3072}) {
        auto a = DhKeyPair::generate(g), b = DhKeyPair::generate(g);
        ASSERT_TRUE(a.ok() && b.ok());
        EXPECT_EQ(a->public_value().size(), dh_value_length(g));
        auto sa = a->shared_secret(b->public_value()), sb = b->shared_secret(a->public_value());
        ASSERT_TRUE(sa.ok() && sb.ok());
        EXPECT_EQ(sa->size(), dh_value_length(g));
        EXPECT_EQ(*sa, *sb);
    }
}

TEST(DhGroup, HostileValuesAreRefused) {
    auto a = DhKeyPair::generate(kDhFfdhe2048);
    ASSERT_TRUE(a.ok());
    Bytes one(256, 0);
    one.back() = 1;
    EXPECT_FALSE(a->shared_secret(one).ok());
    EXPECT_FALSE(a->shared_secret(Bytes(256, 0xFF)).ok()); // above p
    EXPECT_FALSE(a->shared_secret(Bytes(100, 7)).ok());    // wrong length
}

TEST(DhchapResponse, HostAndControllerResponsesDiffer) {
    Bytes key(32, 1), c(32, 2);
    ResponseInputs in{kHashSha256, key, c, 7, 1, "nqn.host", "nqn.sub"};
    EXPECT_NE(host_response(in), controller_response(in));
    EXPECT_EQ(host_response(in).size(), 32u);
    // The augmented challenge depends on the session key.
    EXPECT_NE(effective_challenge(kHashSha256, Bytes(256, 3), c),
              effective_challenge(kHashSha256, Bytes(256, 4), c));
    EXPECT_EQ(effective_challenge(kHashSha256, {}, c), c);
}

// The byte after T_ID is the transaction's SC_C (the Linux host and nvmet sign it; a response
// computed with 00h there does not verify a concatenating transaction): the message laid out by
// hand, byte by byte.
TEST(DhchapResponse, TheSecureChannelByteIsSigned) {
    Bytes key(32, 1), c(32, 2);
    for (uint8_t sc_c : {uint8_t{0}, uint8_t{2}, uint8_t{3}}) {
        ResponseInputs in{kHashSha256, key, c, 0x01020304, 0x0506, "nqn.host", "nqn.sub", sc_c};
        Bytes msg(c.begin(), c.end());
        for (uint8_t b : {0x04, 0x03, 0x02, 0x01, 0x06, 0x05}) msg.push_back(b); // S1, T_ID little endian
        msg.push_back(sc_c);
        for (char ch : std::string("HostHostnqn.host")) msg.push_back(static_cast<uint8_t>(ch));
        msg.push_back(0);
        for (char ch : std::string("nqn.sub")) msg.push_back(static_cast<uint8_t>(ch));
        EXPECT_EQ(host_response(in), hmac(kHashSha256, key, {msg})) << "SC_C " << int(sc_c);
    }
    ResponseInputs plain{kHashSha256, key, c, 7, 1, "nqn.host", "nqn.sub"};
    ResponseInputs concat = plain;
    concat.sc_c = 2;
    EXPECT_NE(host_response(plain), host_response(concat));
    EXPECT_NE(controller_response(plain), controller_response(concat));
}

} // namespace
