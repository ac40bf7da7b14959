#include "skiff/nvmeof/host/dhchap.hpp"

#include "skiff/nvmeof/auth/dh_group.hpp"
#include "skiff/nvmeof/auth/dhchap_key.hpp"
#include "skiff/nvmeof/auth/dhchap_response.hpp"
#include "skiff/nvmeof/auth/hash.hpp"
#include "skiff/nvmeof/auth/messages.hpp"
#include "skiff/nvmeof/host/commands.hpp"
#include "skiff/nvmeof/tls/generated_psk.hpp"

#include <algorithm>
#include <cstring>
#include <optional>

namespace skiff::nvmeof::host {

using namespace skiff::nvmeof::auth;

namespace {

// Room for the largest controller message: a Challenge with SHA-512 and an ffdhe8192 value.
constexpr uint32_t kReceiveSize = 4096;

Error auth_error(uint16_t qid, const std::string &why) {
    return make_error(DOCA_ERROR_NOT_PERMITTED, "DH-HMAC-CHAP on queue " + std::to_string(qid) + ": " + why);
}

template <class T>
T read_as(const Bytes &b) {
    T out{};
    std::memcpy(&out, b.data(), std::min(sizeof(T), b.size()));
    return out;
}

Bytes negotiate_message(uint16_t tid, const DhchapOptions &o, uint8_t sc_c) {
    NegotiateMessage m{};
    m.hdr.auth_type = kTypeCommon;
    m.hdr.auth_id = kMsgNegotiate;
    m.hdr.t_id = tid;
    m.sc_c = sc_c;
    m.napd = 1;
    ProtocolDescriptor &d = m.protocols[0];
    d.authid = kAuthIdDhchap;
    std::vector<uint8_t> hashes = o.hashes.empty() ? std::vector<uint8_t>(all_hashes()) : o.hashes;
    std::vector<uint8_t> groups = o.dhgroups.empty() ? std::vector<uint8_t>(all_dh_groups()) : o.dhgroups;
    d.halen = static_cast<uint8_t>(std::min(hashes.size(), kMaxIds));
    d.dhlen = static_cast<uint8_t>(std::min(groups.size(), kMaxIds));
    std::copy_n(hashes.begin(), d.halen, d.idlist);
    std::copy_n(groups.begin(), d.dhlen, d.idlist + kDhgroupListOffset);
    Bytes out(sizeof(m));
    std::memcpy(out.data(), &m, sizeof(m));
    return out;
}

// The controller's answer must be `id` of this transaction, or its AUTH_Failure1.
Status expect_message(uint16_t qid, const Bytes &msg, uint8_t type, uint8_t id, uint16_t tid,
                      const char *name) {
    const auto hdr = read_as<MessageHeader>(msg);
    if (hdr.auth_type == kTypeCommon && hdr.auth_id == kMsgFailure1) {
        const auto f = read_as<FailureMessage>(msg);
        return auth_error(qid, std::string("the controller refused (AUTH_Failure1: ") +
                                   failure_explanation(f.rescode_exp) + ")");
    }
    if (hdr.auth_type != type || hdr.auth_id != id)
        return auth_error(qid, std::string("expected ") + name + ", got message type " +
                                   std::to_string(hdr.auth_type) + " id " + std::to_string(hdr.auth_id));
    if (hdr.t_id != tid)
        return auth_error(qid, std::string(name) + " carries transaction id " + std::to_string(hdr.t_id) +
                                   ", expected " + std::to_string(tid));
    return Status::success();
}

// The TLS PSK a concatenating authentication generated, as the next connection offers it.
Result<tls::SessionPsk> generated_session_psk(uint16_t qid, uint8_t hash_id, const Secret &session_key,
                                              const Bytes &c1, const Bytes &c2, const HostIdentity &host,
                                              const std::string &subnqn) {
    auto hash = tls::concat_hash(hash_id);
    if (!hash || session_key.view().empty())
        return auth_error(qid, "the controller chose hash " + std::string(hash_name(hash_id)) +
                                   (session_key.view().empty() ? " and no DH group" : "") +
                                   ", which cannot key a secure channel (concatenation)");
    tls::KeyBytes generated = tls::generated_psk(*hash, session_key.view(), c1, c2);
    const std::string digest = tls::identity_digest(*hash, generated, host.hostnqn, subnqn);
    tls::SessionPsk out;
    out.hash = *hash;
    out.identity = tls::generated_identity(*hash, host.hostnqn, subnqn, digest);
    out.key = tls::tls_psk(*hash, generated, tls::identity_context(*hash, digest));
    return out;
}

Status send_failure2(TcpQueue &q, uint16_t tid, uint8_t explanation) {
    const FailureMessage f = make_failure(kMsgFailure2, tid, explanation);
    auto c = auth_send(q, ByteView(reinterpret_cast<const uint8_t *>(&f), sizeof(f)));
    return c ? Status::success() : Status(c.error());
}

} // namespace

Result<Completion> auth_send(TcpQueue &queue, ByteView message) {
    Bytes copy(message.begin(), message.end());
    return queue.execute(cmd::auth_send(static_cast<uint32_t>(copy.size())), DataDir::kHostToController,
                         copy.data(), static_cast<uint32_t>(copy.size()));
}

Result<Bytes> auth_receive(TcpQueue &queue, uint32_t al) {
    Bytes buf(al);
    auto c = queue.execute(cmd::auth_receive(al), DataDir::kControllerToHost, buf.data(), al);
    if (!c) return c.error();
    if (Status st = to_status(*c, "Authentication Receive", true); !st) return st.error();
    return buf;
}

Result<DhchapResult> dhchap_authenticate(TcpQueue &q, const HostIdentity &host, const std::string &subnqn,
                                         const DhchapOptions &o, uint16_t tid, bool tls) {
    const uint16_t qid = q.qid();
    // Concatenation is the admin queue's; the I/O queues of such a controller run on its PSK.
    const bool concat = o.concat && qid == 0;
    const uint8_t sc_c = !concat ? kScNone : tls ? kScReplaceTlsPsk : kScNewTlsPsk;
    auto host_key = parse_dhchap_key(o.secret);
    if (!host_key) return auth_error(qid, "--dhchap-secret: " + host_key.error().message);
    std::optional<DhchapKey> ctrl_key;
    if (!o.ctrl_secret.empty()) {
        auto k = parse_dhchap_key(o.ctrl_secret);
        if (!k) return auth_error(qid, "--dhchap-ctrl-secret: " + k.error().message);
        ctrl_key = std::move(*k);
    }

    // 1. AUTH_Negotiate.
    auto sent = auth_send(q, negotiate_message(tid, o, sc_c));
    if (!sent) return sent.error();
    if (Status st = to_status(*sent, "Authentication Send (AUTH_Negotiate)", true); !st) return st.error();

    // 2. The Challenge.
    auto challenge = auth_receive(q, kReceiveSize);
    if (!challenge) return challenge.error();
    if (Status st =
            expect_message(qid, *challenge, kTypeDhchap, kMsgChallenge, tid, "DH-HMAC-CHAP_Challenge");
        !st)
        return st.error();
    const auto ch = read_as<ChallengeMessage>(*challenge);
    const size_t hl = hash_length(ch.hashid);
    if (!hl || ch.hl != hl)
        return auth_error(qid, "the Challenge names hash " + std::to_string(ch.hashid) + " with length " +
                                   std::to_string(ch.hl));
    if (!dh_group_known(ch.dhgid) || ch.dhvlen != dh_value_length(ch.dhgid) ||
        sizeof(ChallengeMessage) + hl + ch.dhvlen > challenge->size())
        return auth_error(qid, "the Challenge's DH group " + std::to_string(ch.dhgid) + " or value length " +
                                   std::to_string(ch.dhvlen) + " is wrong");
    const Bytes c1(challenge->begin() + sizeof(ChallengeMessage),
                   challenge->begin() + sizeof(ChallengeMessage) + hl);

    // 3. The Reply: our DH value and session key, R1, and C2/S2 when we check the controller.
    std::optional<DhKeyPair> dh;
    Secret session_key;
    if (ch.dhgid != kDhNull) {
        auto pair = DhKeyPair::generate(ch.dhgid);
        if (!pair) return pair.error();
        dh.emplace(std::move(*pair));
        const uint8_t *ctrl_value = challenge->data() + sizeof(ChallengeMessage) + hl;
        auto key = dh->shared_secret(ByteView(ctrl_value, ch.dhvlen));
        if (!key) {
            (void)send_failure2(q, tid, kExplDhgroupUnusable);
            return auth_error(qid, key.error().message);
        }
        session_key = std::move(*key);
    }
    const Secret hkey = transform_dhchap_key(*host_key, host.hostnqn);
    const Bytes r1 =
        host_response({ch.hashid, hkey.view(), effective_challenge(ch.hashid, session_key.view(), c1),
                       ch.seqnum, tid, host.hostnqn, subnqn, sc_c});
    // C2 goes with S2 when we check the controller; concatenation needs C2 for the new PSK
    // in any case, with S2 = 0 when the controller is not checked.
    Bytes c2;
    uint32_t s2 = 0;
    if (ctrl_key || concat) c2 = random_bytes(hl);
    if (ctrl_key) s2 = random_nonzero_u32();
    const size_t dhvlen = dh ? dh->public_value().size() : 0;
    Bytes reply(sizeof(ReplyMessage) + 2 * hl + dhvlen);
    ReplyMessage rm{};
    rm.hdr.auth_type = kTypeDhchap;
    rm.hdr.auth_id = kMsgReply;
    rm.hdr.t_id = tid;
    rm.hl = static_cast<uint8_t>(hl);
    rm.cvalid = c2.empty() ? 0 : 1;
    rm.dhvlen = static_cast<uint16_t>(dhvlen);
    rm.seqnum = s2;
    std::memcpy(reply.data(), &rm, sizeof(rm));
    std::memcpy(reply.data() + sizeof(rm), r1.data(), hl);
    if (!c2.empty()) std::memcpy(reply.data() + sizeof(rm) + hl, c2.data(), hl);
    if (dh) std::memcpy(reply.data() + sizeof(rm) + 2 * hl, dh->public_value().data(), dhvlen);
    sent = auth_send(q, reply);
    if (!sent) return sent.error();
    if (Status st = to_status(*sent, "Authentication Send (DH-HMAC-CHAP_Reply)", true); !st)
        return st.error();

    // 4. Success1 (or Failure1: our key was wrong).
    auto success1 = auth_receive(q, kReceiveSize);
    if (!success1) return success1.error();
    if (Status st = expect_message(qid, *success1, kTypeDhchap, kMsgSuccess1, tid, "DH-HMAC-CHAP_Success1");
        !st)
        return st.error();
    DhchapResult result{ch.hashid, ch.dhgid, bool(ctrl_key), std::nullopt};
    if (concat) {
        auto generated = generated_session_psk(qid, ch.hashid, session_key, c1, c2, host, subnqn);
        if (!generated) return generated.error();
        result.generated_tls = std::move(*generated);
    }
    if (!ctrl_key) return result;

    // 5. Check the controller's R2; Success2, or Failure2 when it does not hold the secret.
    const auto s1m = read_as<Success1Message>(*success1);
    const Secret ckey = transform_dhchap_key(*ctrl_key, subnqn);
    const Bytes r2 =
        controller_response({ch.hashid, ckey.view(), effective_challenge(ch.hashid, session_key.view(), c2),
                             s2, tid, host.hostnqn, subnqn, sc_c});
    if (!s1m.rvalid || s1m.hl != hl ||
        !equal_constant_time(r2, ByteView(success1->data() + sizeof(Success1Message), hl))) {
        (void)send_failure2(q, tid, kExplFailed);
        return auth_error(qid, "the controller's response does not match the controller secret "
                               "(sent AUTH_Failure2)");
    }
    Success2Message s2m{};
    s2m.hdr.auth_type = kTypeDhchap;
    s2m.hdr.auth_id = kMsgSuccess2;
    s2m.hdr.t_id = tid;
    sent = auth_send(q, ByteView(reinterpret_cast<const uint8_t *>(&s2m), sizeof(s2m)));
    if (!sent) return sent.error();
    if (Status st = to_status(*sent, "Authentication Send (DH-HMAC-CHAP_Success2)", true); !st)
        return st.error();
    return result;
}

} // namespace skiff::nvmeof::host
