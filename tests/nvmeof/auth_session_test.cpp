// The controller side of DH-HMAC-CHAP (AuthSession) driven message by message, the host's part
// computed here from the specification's formulas: every hash x DH group both ways, and each
// refusal with its AUTH_Failure1 explanation and log reason. (tests/integration/dhchap_test.cpp
// runs the same over NVMe/TCP against skiff-target with the initiator library.)
#include "skiff/nvmeof/auth/dh_group.hpp"
#include "skiff/nvmeof/auth/dhchap_key.hpp"
#include "skiff/nvmeof/auth/dhchap_response.hpp"
#include "skiff/nvmeof/auth/hash.hpp"
#include "skiff/nvmeof/auth/messages.hpp"
#include "skiff/nvmeof/target/auth_session.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <optional>

using namespace skiff::nvmeof;
using namespace skiff::nvmeof::auth;
using target::AuthSession;
using Verdict = AuthSession::Verdict;

namespace {

const std::string kHost = "nqn.2014-08.org.nvmexpress:uuid:7a6b1b0e-3c7e-4d5f-9c0a-00000000000a";
const std::string kSub = "nqn.2026-11.io.skiff:auth";
const std::string kKey = "DHHC-1:01:WulleCBkG4oCs0iIC3Cit9gBDCLWiZ9PNXuhqytWkBIZkvGy:";
const std::string kOtherKey = "DHHC-1:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR:";
const std::string kCtrlKey =
    "DHHC-1:03:8P2FavzGkeLRnJ4Xa+SxthFNNlhKJN8Fo62gUQZ01n41cGBy/zw00Nf3zLbyz914w2TB7971zZZwo0CTZ0XC/KReLMQ=:";

DhchapKey key(const std::string &text) {
    auto k = parse_dhchap_key(text);
    EXPECT_TRUE(k.ok());
    return std::move(*k);
}

std::shared_ptr<const target::HostAuth> policy(bool ctrl_key = true, std::vector<uint8_t> hashes = {},
                                               std::vector<uint8_t> groups = {}) {
    auto p = std::make_shared<target::HostAuth>();
    p->host_key = key(kKey);
    if (ctrl_key) p->ctrl_key = key(kCtrlKey);
    p->hashes = std::move(hashes);
    p->dhgroups = std::move(groups);
    return p;
}

template <class T>
Bytes bytes_of(const T &v) {
    Bytes b(sizeof(T));
    std::memcpy(b.data(), &v, sizeof(T));
    return b;
}

template <class T>
T read_as(const Bytes &b) {
    T out{};
    std::memcpy(&out, b.data(), std::min(sizeof(T), b.size()));
    return out;
}

Bytes negotiate(uint16_t tid, std::vector<uint8_t> hashes, std::vector<uint8_t> groups,
                uint8_t sc_c = kScNone) {
    NegotiateMessage m{};
    m.hdr.auth_type = kTypeCommon;
    m.hdr.auth_id = kMsgNegotiate;
    m.hdr.t_id = tid;
    m.sc_c = sc_c;
    m.napd = 1;
    m.protocols[0].authid = kAuthIdDhchap;
    m.protocols[0].halen = static_cast<uint8_t>(hashes.size());
    m.protocols[0].dhlen = static_cast<uint8_t>(groups.size());
    std::copy(hashes.begin(), hashes.end(), m.protocols[0].idlist);
    std::copy(groups.begin(), groups.end(), m.protocols[0].idlist + kDhgroupListOffset);
    return bytes_of(m);
}

// The host's side of one transaction against a session, as the Linux host computes it.
struct Host {
    explicit Host(AuthSession &session) : s(session) {}
    AuthSession &s;
    std::string host_key = kKey;
    std::optional<std::string> ctrl_key;
    uint16_t tid = 1;
    // Secure channel concatenation: the SC_C to ask for; C2 then goes with S2 = 0 unless ctrl_key
    // (omit_c2: a host that breaks that rule). What the host saw, for the generated PSK.
    uint8_t sc_c = kScNone;
    bool omit_c2 = false;
    Secret skey_seen;
    Bytes c1_seen, c2_seen;

    Bytes receive(size_t al = 4096) {
        Bytes out(al);
        last = s.on_receive(out);
        return out;
    }
    Verdict last = Verdict::kContinue;

    // Returns the verdict of the last step; fills `failure` with a Failure1 explanation.
    Verdict run(uint8_t hash, uint8_t group, uint8_t *failure = nullptr) {
        EXPECT_EQ(s.on_send(negotiate(tid, {hash}, {group}, sc_c)), Verdict::kContinue);
        Bytes ch = receive();
        const auto c = read_as<ChallengeMessage>(ch);
        if (c.hdr.auth_id == kMsgFailure1) {
            if (failure) *failure = read_as<FailureMessage>(ch).rescode_exp;
            return last;
        }
        EXPECT_EQ(c.hdr.auth_type, kTypeDhchap);
        EXPECT_EQ(c.hdr.auth_id, kMsgChallenge);
        EXPECT_EQ(c.hdr.t_id, tid);
        EXPECT_EQ(c.hashid, hash);
        EXPECT_EQ(c.dhgid, group);
        const size_t hl = hash_length(hash);
        EXPECT_EQ(c.hl, hl);
        EXPECT_EQ(c.dhvlen, dh_value_length(group));
        EXPECT_NE(c.seqnum, 0u);
        Bytes c1(ch.begin() + 16, ch.begin() + 16 + hl);
        std::optional<DhKeyPair> dh;
        Secret skey;
        if (group != kDhNull) {
            auto pair = DhKeyPair::generate(group);
            EXPECT_TRUE(pair.ok());
            dh.emplace(std::move(*pair));
            auto k = dh->shared_secret(ByteView(ch.data() + 16 + hl, c.dhvlen));
            EXPECT_TRUE(k.ok());
            skey = std::move(*k);
        }
        const Secret hk = transform_dhchap_key(key(host_key), kHost);
        const Bytes r1 = host_response(
            {hash, hk.view(), effective_challenge(hash, skey.view(), c1), c.seqnum, tid, kHost, kSub, sc_c});
        Bytes c2 = random_bytes(hl);
        const uint32_t s2 = 0x12345678u + tid;
        ReplyMessage rm{};
        rm.hdr.auth_type = kTypeDhchap;
        rm.hdr.auth_id = kMsgReply;
        rm.hdr.t_id = tid;
        rm.hl = static_cast<uint8_t>(hl);
        rm.cvalid = (ctrl_key || sc_c != kScNone) && !omit_c2 ? 1 : 0;
        rm.seqnum = ctrl_key ? s2 : 0;
        skey_seen = skey;
        c1_seen = c1;
        c2_seen = c2;
        rm.dhvlen = static_cast<uint16_t>(dh ? dh->public_value().size() : 0);
        Bytes reply = bytes_of(rm);
        reply.insert(reply.end(), r1.begin(), r1.end());
        reply.insert(reply.end(), c2.begin(), c2.end());
        if (dh) reply.insert(reply.end(), dh->public_value().begin(), dh->public_value().end());
        EXPECT_EQ(s.on_send(reply), Verdict::kContinue);
        Bytes s1 = receive();
        const auto sm = read_as<Success1Message>(s1);
        if (sm.hdr.auth_id == kMsgFailure1) {
            if (failure) *failure = read_as<FailureMessage>(s1).rescode_exp;
            return last;
        }
        EXPECT_EQ(sm.hdr.auth_id, kMsgSuccess1);
        EXPECT_EQ(sm.hl, hl);
        if (!ctrl_key) {
            EXPECT_EQ(sm.rvalid, 0);
            return last;
        }
        EXPECT_EQ(last, Verdict::kContinue);
        EXPECT_EQ(sm.rvalid, 1);
        const Secret ck = transform_dhchap_key(key(*ctrl_key), kSub);
        const Bytes r2 = controller_response(
            {hash, ck.view(), effective_challenge(hash, skey.view(), c2), s2, tid, kHost, kSub, sc_c});
        EXPECT_EQ(Bytes(s1.begin() + 16, s1.begin() + 16 + hl), r2) << "the controller's R2";
        Success2Message s2m{};
        s2m.hdr.auth_type = kTypeDhchap;
        s2m.hdr.auth_id = kMsgSuccess2;
        s2m.hdr.t_id = tid;
        return s.on_send(bytes_of(s2m));
    }
};

uint8_t failure1(AuthSession &s) {
    Bytes out(64);
    EXPECT_EQ(s.on_receive(out), Verdict::kClose);
    const auto f = read_as<FailureMessage>(out);
    EXPECT_EQ(f.hdr.auth_type, kTypeCommon);
    EXPECT_EQ(f.hdr.auth_id, kMsgFailure1);
    EXPECT_EQ(f.rescode, kReasonFailed);
    return f.rescode_exp;
}

TEST(AuthSession, EveryHashAndDhGroupInBothDirections) {
    auto check = [](uint8_t hash, uint8_t group, bool bidi) {
        SCOPED_TRACE(std::string(hash_name(hash)) + " " + std::string(dh_group_name(group)) +
                     (bidi ? " bidirectional" : ""));
        AuthSession s(policy(), kHost, kSub);
        Host h(s);
        if (bidi) h.ctrl_key = kCtrlKey;
        EXPECT_EQ(h.run(hash, group), Verdict::kAuthenticated);
        EXPECT_EQ(s.hash(), hash);
        EXPECT_EQ(s.dh_group(), group);
        EXPECT_EQ(s.bidirectional(), bidi);
    };
    // Every hash both ways with null and ffdhe2048; each larger group once (bidirectional, the
    // hashes in turn): their key generation is the slow part, ffdhe8192 above all.
    for (uint8_t hash : all_hashes())
        for (uint8_t group : {kDhNull, kDhFfdhe2048})
            for (bool bidi : {false, true}) check(hash, group, bidi);
    const uint8_t big[] = {kDhFfdhe3072, kDhFfdhe4096, kDhFfdhe6144, kDhFfdhe8192};
    const std::vector<uint8_t> hashes(all_hashes());
    for (size_t i = 0; i < std::size(big); ++i) check(hashes[i % hashes.size()], big[i], true);
}

TEST(AuthSession, ControllerPicksItsPreferredAllowedChoice) {
    AuthSession s(policy(false, {kHashSha384, kHashSha256}, {kDhFfdhe3072, kDhNull}), kHost, kSub);
    ASSERT_EQ(s.on_send(negotiate(1, {kHashSha256, kHashSha384, kHashSha512},
                                  {kDhNull, kDhFfdhe2048, kDhFfdhe3072})),
              Verdict::kContinue);
    Bytes ch(4096);
    ASSERT_EQ(s.on_receive(ch), Verdict::kContinue);
    EXPECT_EQ(read_as<ChallengeMessage>(ch).hashid, kHashSha384);
    EXPECT_EQ(read_as<ChallengeMessage>(ch).dhgid, kDhFfdhe3072);
}

TEST(AuthSession, ReauthenticationWorksAndAReplayedTransactionIdIsRefused) {
    AuthSession s(policy(), kHost, kSub);
    Host h(s);
    ASSERT_EQ(h.run(kHashSha256, kDhNull), Verdict::kAuthenticated);
    h.tid = 2;
    ASSERT_EQ(h.run(kHashSha512, kDhFfdhe2048), Verdict::kAuthenticated);
    // Transaction 2 again.
    EXPECT_EQ(s.on_send(negotiate(2, {kHashSha256}, {kDhNull})), Verdict::kContinue);
    EXPECT_EQ(failure1(s), kExplIncorrectPayload);
    EXPECT_NE(s.failure_reason().find("replays transaction id 2"), std::string::npos) << s.failure_reason();
}

TEST(AuthSession, WrongKeyIsFailure1AuthenticationFailed) {
    AuthSession s(policy(), kHost, kSub);
    Host h(s);
    h.host_key = kOtherKey;
    uint8_t why = 0;
    EXPECT_EQ(h.run(kHashSha256, kDhFfdhe2048, &why), Verdict::kClose);
    EXPECT_EQ(why, kExplFailed);
    EXPECT_NE(s.failure_reason().find("wrong secret"), std::string::npos) << s.failure_reason();
}

TEST(AuthSession, UnknownHashAndGroupAreRefused) {
    {
        AuthSession s(policy(), kHost, kSub);
        EXPECT_EQ(s.on_send(negotiate(1, {0x07}, {kDhNull})), Verdict::kContinue);
        EXPECT_EQ(failure1(s), kExplHashUnusable);
        EXPECT_NE(s.failure_reason().find("no hash function the host offers (7)"), std::string::npos);
    }
    {
        AuthSession s(policy(true, {}, {kDhFfdhe4096}), kHost, kSub);
        EXPECT_EQ(s.on_send(negotiate(1, {kHashSha256}, {kDhNull, kDhFfdhe2048})), Verdict::kContinue);
        EXPECT_EQ(failure1(s), kExplDhgroupUnusable);
    }
}

TEST(AuthSession, SkippedStepsAndStrayMessagesAreIncorrectMessages) {
    {
        AuthSession s(policy(), kHost, kSub);
        Success2Message m{};
        m.hdr.auth_type = kTypeDhchap;
        m.hdr.auth_id = kMsgSuccess2;
        EXPECT_EQ(s.on_send(bytes_of(m)), Verdict::kContinue);
        EXPECT_EQ(failure1(s), kExplIncorrectMessage);
        EXPECT_NE(s.failure_reason().find("while expecting AUTH_Negotiate"), std::string::npos);
    }
    {
        // A Receive before anything was sent.
        AuthSession s(policy(), kHost, kSub);
        EXPECT_EQ(failure1(s), kExplIncorrectMessage);
    }
    {
        // A second Negotiate's Challenge skipped: the Reply comes before the Challenge was read.
        AuthSession s(policy(), kHost, kSub);
        EXPECT_EQ(s.on_send(negotiate(1, {kHashSha256}, {kDhNull})), Verdict::kContinue);
        ReplyMessage r{};
        r.hdr.auth_type = kTypeDhchap;
        r.hdr.auth_id = kMsgReply;
        r.hdr.t_id = 1;
        EXPECT_EQ(s.on_send(bytes_of(r)), Verdict::kContinue);
        EXPECT_EQ(failure1(s), kExplIncorrectMessage);
    }
}

TEST(AuthSession, MalformedMessagesAreIncorrectPayloads) {
    const Bytes stub = {0, 0, 0};
    AuthSession a(policy(), kHost, kSub);
    EXPECT_EQ(a.on_send(stub), Verdict::kContinue);
    EXPECT_EQ(failure1(a), kExplIncorrectPayload);
    EXPECT_NE(a.failure_reason().find("shorter than its header"), std::string::npos);

    // A Negotiate announcing 3 descriptors but carrying 1.
    AuthSession b(policy(), kHost, kSub);
    Bytes n = negotiate(1, {kHashSha256}, {kDhNull});
    n[7] = 3;
    EXPECT_EQ(b.on_send(n), Verdict::kContinue);
    EXPECT_EQ(failure1(b), kExplIncorrectPayload);

    // A Reply with a wrong transaction id.
    AuthSession c(policy(), kHost, kSub);
    EXPECT_EQ(c.on_send(negotiate(5, {kHashSha256}, {kDhNull})), Verdict::kContinue);
    Bytes ch(4096);
    EXPECT_EQ(c.on_receive(ch), Verdict::kContinue);
    ReplyMessage r{};
    r.hdr.auth_type = kTypeDhchap;
    r.hdr.auth_id = kMsgReply;
    r.hdr.t_id = 6;
    r.hl = 32;
    Bytes reply = bytes_of(r);
    reply.resize(reply.size() + 64);
    EXPECT_EQ(c.on_send(reply), Verdict::kContinue);
    EXPECT_EQ(failure1(c), kExplIncorrectPayload);
    EXPECT_NE(c.failure_reason().find("transaction id 6 where 5 is running"), std::string::npos);

    // A DH value of the wrong size, and a hostile one (1).
    for (bool hostile : {false, true}) {
        AuthSession d(policy(), kHost, kSub);
        EXPECT_EQ(d.on_send(negotiate(1, {kHashSha256}, {kDhFfdhe2048})), Verdict::kContinue);
        EXPECT_EQ(d.on_receive(ch), Verdict::kContinue);
        ReplyMessage rm{};
        rm.hdr.auth_type = kTypeDhchap;
        rm.hdr.auth_id = kMsgReply;
        rm.hdr.t_id = 1;
        rm.hl = 32;
        rm.dhvlen = hostile ? 256 : 100;
        Bytes m = bytes_of(rm);
        m.resize(m.size() + 64 + rm.dhvlen);
        if (hostile) m.back() = 1;
        EXPECT_EQ(d.on_send(m), Verdict::kContinue);
        EXPECT_EQ(failure1(d), hostile ? kExplDhgroupUnusable : kExplIncorrectPayload);
    }
}

TEST(AuthSession, Failure2FromTheHostClosesAtOnce) {
    AuthSession s(policy(), kHost, kSub);
    FailureMessage f{};
    f.hdr.auth_type = kTypeCommon;
    f.hdr.auth_id = kMsgFailure2;
    f.rescode = kReasonFailed;
    f.rescode_exp = kExplFailed;
    EXPECT_EQ(s.on_send(bytes_of(f)), Verdict::kClose);
    EXPECT_NE(s.failure_reason().find("AUTH_Failure2: authentication failed"), std::string::npos);
}

TEST(AuthSession, BidirectionalWithoutControllerKeyAndNoPolicyAreRefused) {
    {
        AuthSession s(policy(false), kHost, kSub);
        Host h(s);
        h.ctrl_key = kCtrlKey;
        uint8_t why = 0;
        EXPECT_EQ(h.run(kHashSha256, kDhNull, &why), Verdict::kClose);
        EXPECT_EQ(why, kExplFailed);
        EXPECT_NE(s.failure_reason().find("no dhchap_ctrl_key"), std::string::npos);
    }
    {
        AuthSession s(nullptr, kHost, kSub);
        EXPECT_EQ(s.on_send(negotiate(1, {kHashSha256}, {kDhNull})), Verdict::kContinue);
        EXPECT_EQ(failure1(s), kExplNotUsable);
    }
}

// Secure channel concatenation: after NEWTLSPSK (admin queue, no TLS) or REPLACETLSPSK (on TLS)
// the session hands out the generated PSK, HMAC(g^xy, C1 || C2) computed here from the host's
// view of the transaction (keyed with H(g^xy) it is the same); once, and only after the
// transaction succeeded.
TEST(AuthSession, ConcatenationHandsOutThePskTheHostGenerates) {
    for (uint8_t hash : {kHashSha256, kHashSha384}) {
        for (bool bidi : {false, true}) {
            for (bool replace : {false, true}) {
                SCOPED_TRACE(std::string(hash_name(hash)) + (bidi ? " bidirectional" : "") +
                             (replace ? " REPLACETLSPSK" : " NEWTLSPSK"));
                AuthSession s(policy(), kHost, kSub);
                s.set_queue(true, replace);
                Host h(s);
                h.sc_c = replace ? kScReplaceTlsPsk : kScNewTlsPsk;
                if (bidi) h.ctrl_key = kCtrlKey;
                ASSERT_EQ(h.run(hash, kDhFfdhe2048), Verdict::kAuthenticated);
                EXPECT_EQ(s.secure_channel(), h.sc_c);
                EXPECT_EQ(s.bidirectional(), bidi);
                auto psk = s.take_generated_psk();
                const Bytes raw = hmac(hash, h.skey_seen.view(), {h.c1_seen, h.c2_seen});
                const Bytes hashed = hmac(hash, digest(hash, h.skey_seen.view()), {h.c1_seen, h.c2_seen});
                EXPECT_EQ(Bytes(psk.begin(), psk.end()), raw) << "HMAC(g^xy, C1 || C2)";
                EXPECT_EQ(Bytes(psk.begin(), psk.end()), hashed) << "HMAC(H(g^xy), C1 || C2)";
                EXPECT_TRUE(s.take_generated_psk().empty()) << "handed out once";
            }
        }
    }
    // Without concatenation nothing is generated.
    AuthSession plain(policy(), kHost, kSub);
    Host h(plain);
    ASSERT_EQ(h.run(kHashSha256, kDhFfdhe2048), Verdict::kAuthenticated);
    EXPECT_EQ(plain.secure_channel(), kScNone);
    EXPECT_TRUE(plain.take_generated_psk().empty());
}

// Concatenation outside its rules: AUTH_Failure1 "concatenation mismatch" (hash not usable for a
// policy that allows only SHA-512), and a Reply without C2 fails.
TEST(AuthSession, ConcatenationOutsideItsRulesIsRefused) {
    struct Case {
        bool admin, tls;
        uint8_t sc_c;
        std::vector<uint8_t> groups;
        uint8_t expl;
        const char *reason;
    };
    const Case cases[] = {
        {false, false, kScNewTlsPsk, {kDhFfdhe2048}, kExplConcatMismatch, "I/O queue"},
        {true, true, kScNewTlsPsk, {kDhFfdhe2048}, kExplConcatMismatch, "already runs TLS"},
        {true, false, kScReplaceTlsPsk, {kDhFfdhe2048}, kExplConcatMismatch, "without TLS"},
        {true, false, 0x01, {kDhFfdhe2048}, kExplConcatMismatch, "does not know"},
        {true, false, 0x07, {kDhFfdhe2048}, kExplConcatMismatch, "does not know"},
        {true, false, kScNewTlsPsk, {kDhNull}, kExplConcatMismatch, "needs a DH group"},
    };
    for (const Case &c : cases) {
        SCOPED_TRACE(c.reason);
        AuthSession s(policy(), kHost, kSub);
        s.set_queue(c.admin, c.tls);
        EXPECT_EQ(s.on_send(negotiate(1, {kHashSha256}, c.groups, c.sc_c)), Verdict::kContinue);
        EXPECT_EQ(failure1(s), c.expl);
        EXPECT_NE(s.failure_reason().find(c.reason), std::string::npos) << s.failure_reason();
    }
    {
        // SHA-512 authenticates but cannot key TLS: with concatenation the controller picks
        // among the others, and refuses when the policy leaves none.
        AuthSession s(policy(true, {kHashSha512, kHashSha384}), kHost, kSub);
        ASSERT_EQ(s.on_send(negotiate(1, {kHashSha512, kHashSha384}, {kDhFfdhe2048}, kScNewTlsPsk)),
                  Verdict::kContinue);
        Bytes ch(4096);
        ASSERT_EQ(s.on_receive(ch), Verdict::kContinue);
        EXPECT_EQ(read_as<ChallengeMessage>(ch).hashid, kHashSha384);
        AuthSession only512(policy(true, {kHashSha512}), kHost, kSub);
        EXPECT_EQ(only512.on_send(negotiate(1, {kHashSha512}, {kDhFfdhe2048}, kScNewTlsPsk)),
                  Verdict::kContinue);
        EXPECT_EQ(failure1(only512), kExplHashUnusable);
        EXPECT_NE(only512.failure_reason().find("keys a secure channel"), std::string::npos);
    }
    {
        AuthSession s(policy(), kHost, kSub);
        Host h(s);
        h.sc_c = kScNewTlsPsk;
        h.omit_c2 = true;
        uint8_t why = 0;
        EXPECT_EQ(h.run(kHashSha256, kDhFfdhe2048, &why), Verdict::kClose);
        EXPECT_EQ(why, kExplFailed);
        EXPECT_NE(s.failure_reason().find("without the host's challenge C2"), std::string::npos);
        EXPECT_TRUE(s.take_generated_psk().empty());
    }
}

TEST(AuthSession, TooSmallAllocationLengthIsRefused) {
    AuthSession s(policy(), kHost, kSub);
    EXPECT_EQ(s.on_send(negotiate(1, {kHashSha512}, {kDhNull})), Verdict::kContinue);
    Bytes small(40); // a Challenge with SHA-512 needs 80
    EXPECT_EQ(s.on_receive(small), Verdict::kClose);
    EXPECT_EQ(read_as<FailureMessage>(small).hdr.auth_id, kMsgFailure1);
    EXPECT_EQ(read_as<FailureMessage>(small).rescode_exp, kExplIncorrectPayload);
}

} // namespace
