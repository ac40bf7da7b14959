#include "skiff/nvmeof/target/auth_session.hpp"

#include "skiff/nvmeof/auth/dhchap_response.hpp"
#include "skiff/nvmeof/auth/hash.hpp"
#include "skiff/nvmeof/auth/messages.hpp"
#include "skiff/nvmeof/tls/generated_psk.hpp"

#include <algorithm>
#include <cstring>
#include <iterator>

namespace skiff::nvmeof::target {

using namespace skiff::nvmeof::auth;

namespace {

template <class T>
T read_as(ByteView message) {
    T out{};
    std::memcpy(&out, message.data(), std::min(sizeof(T), message.size()));
    return out;
}

// The first id of `preferred` (all of `known` when empty) that the host offered.
std::optional<uint8_t> choose(const std::vector<uint8_t> &preferred, std::initializer_list<uint8_t> known,
                              const uint8_t *offered, size_t count) {
    auto host_has = [&](uint8_t id) { return std::find(offered, offered + count, id) != offered + count; };
    if (preferred.empty()) {
        for (uint8_t id : known)
            if (host_has(id)) return id;
        return std::nullopt;
    }
    for (uint8_t id : preferred)
        if (host_has(id)) return id;
    return std::nullopt;
}

// The ids of `from` that `keep` accepts (all of `known` when `from` is empty).
std::vector<uint8_t> only(const std::vector<uint8_t> &from, std::initializer_list<uint8_t> known,
                          bool (*keep)(uint8_t)) {
    const std::vector<uint8_t> all = from.empty() ? std::vector<uint8_t>(known) : from;
    std::vector<uint8_t> out;
    std::copy_if(all.begin(), all.end(), std::back_inserter(out), keep);
    return out;
}

bool keys_a_secure_channel(uint8_t hash) {
    return tls::concat_hash(hash).has_value();
}

bool not_null_group(uint8_t group) {
    return group != kDhNull;
}

std::string id_list(const uint8_t *ids, size_t n) {
    std::string out;
    for (size_t i = 0; i < n; ++i) out += (i ? "," : "") + std::to_string(ids[i]);
    return out.empty() ? "none" : out;
}

} // namespace

AuthSession::AuthSession(std::shared_ptr<const HostAuth> policy, std::string hostnqn, std::string subnqn)
    : policy_(std::move(policy)), hostnqn_(std::move(hostnqn)), subnqn_(std::move(subnqn)) {}

const char *AuthSession::step_name(Step step) {
    switch (step) {
    case Step::kNegotiate:
        return "AUTH_Negotiate";
    case Step::kChallenge:
        return "an Authentication Receive for the Challenge";
    case Step::kReply:
        return "DH-HMAC-CHAP_Reply";
    case Step::kSuccess1:
        return "an Authentication Receive for Success1";
    case Step::kSuccess2:
        return "DH-HMAC-CHAP_Success2";
    case Step::kFailure1:
        return "an Authentication Receive for AUTH_Failure1";
    case Step::kDone:
        return "nothing (authentication is complete)";
    }
    return "?";
}

AuthSession::Verdict AuthSession::fail(uint8_t explanation, std::string reason) {
    explanation_ = explanation;
    reason_ = std::move(reason);
    step_ = Step::kFailure1;
    dh_.reset();
    session_key_ = {};
    generated_.clear();
    return Verdict::kContinue;
}

AuthSession::Verdict AuthSession::on_send(ByteView message) {
    if (step_ == Step::kFailure1) {
        reason_ += "; then the host sent another message instead of reading AUTH_Failure1";
        return Verdict::kClose;
    }
    if (message.size() < sizeof(MessageHeader))
        return fail(kExplIncorrectPayload,
                    "a message of " + std::to_string(message.size()) + " bytes is shorter than its header");
    const auto hdr = read_as<MessageHeader>(message);
    if (hdr.auth_type == kTypeCommon && hdr.auth_id == kMsgNegotiate) return negotiate(message);
    if (hdr.auth_type == kTypeCommon && hdr.auth_id == kMsgFailure2) {
        const auto f = read_as<FailureMessage>(message);
        reason_ =
            std::string("the host rejected the controller (AUTH_Failure2: ") +
            (message.size() >= sizeof(FailureMessage) ? failure_explanation(f.rescode_exp) : "truncated") +
            ")";
        step_ = Step::kDone;
        return Verdict::kClose;
    }
    const bool reply_msg = hdr.auth_type == kTypeDhchap && hdr.auth_id == kMsgReply;
    const bool success2_msg = hdr.auth_type == kTypeDhchap && hdr.auth_id == kMsgSuccess2;
    if (!(reply_msg && step_ == Step::kReply) && !(success2_msg && step_ == Step::kSuccess2))
        return fail(kExplIncorrectMessage, "message type " + std::to_string(hdr.auth_type) + " id " +
                                               std::to_string(hdr.auth_id) + " arrived while expecting " +
                                               step_name(step_));
    if (hdr.t_id != tid_)
        return fail(kExplIncorrectPayload, "transaction id " + std::to_string(hdr.t_id) + " where " +
                                               std::to_string(tid_) + " is running");
    if (reply_msg) return reply(message);
    step_ = Step::kDone;
    return Verdict::kAuthenticated;
}

AuthSession::Verdict AuthSession::negotiate(ByteView message) {
    const auto hdr = read_as<MessageHeader>(message);
    // A host starts each transaction with a fresh id; the previous one again is a replay.
    if (last_tid_ && *last_tid_ == hdr.t_id)
        return fail(kExplIncorrectPayload,
                    "AUTH_Negotiate replays transaction id " + std::to_string(hdr.t_id));
    tid_ = hdr.t_id;
    last_tid_ = hdr.t_id;
    dh_.reset();
    session_key_ = {};
    c1_.clear();
    c2_.clear();
    bidirectional_ = false;
    generated_.clear();
    if (!policy_)
        return fail(kExplNotUsable, "the host asked to authenticate but no dhchap_key is configured for it");
    constexpr size_t kHead = offsetof(NegotiateMessage, protocols);
    if (message.size() < kHead + sizeof(ProtocolDescriptor))
        return fail(kExplIncorrectPayload, "AUTH_Negotiate of " + std::to_string(message.size()) +
                                               " bytes carries no protocol descriptor");
    const auto neg = read_as<NegotiateMessage>(message);
    if (auto why = secure_channel_mismatch(neg.sc_c); !why.empty()) return fail(kExplConcatMismatch, why);
    sc_c_ = neg.sc_c;
    const bool concat = sc_c_ != kScNone;
    if (neg.napd == 0 || message.size() < kHead + neg.napd * sizeof(ProtocolDescriptor))
        return fail(kExplIncorrectPayload, "AUTH_Negotiate announces " + std::to_string(neg.napd) +
                                               " protocol descriptors but carries fewer");
    const ProtocolDescriptor *dhchap = nullptr;
    ProtocolDescriptor desc;
    for (size_t i = 0; i < neg.napd && !dhchap; ++i) {
        std::memcpy(&desc, message.data() + kHead + i * sizeof(ProtocolDescriptor), sizeof(desc));
        if (desc.authid == kAuthIdDhchap) dhchap = &desc;
    }
    if (!dhchap) return fail(kExplNotUsable, "the host offers no DH-HMAC-CHAP protocol descriptor");
    if (desc.halen > kMaxIds || desc.dhlen > kMaxIds)
        return fail(kExplIncorrectPayload, "the descriptor lists more than 30 hash or DH group ids");
    // Concatenation keys TLS with the hash (SHA-256 or SHA-384 only) and the DH exchange's secret
    // (no NULL group): the choice is made among those.
    auto hash = concat ? choose(only(policy_->hashes, all_hashes(), keys_a_secure_channel), {}, desc.idlist,
                                desc.halen)
                       : choose(policy_->hashes, all_hashes(), desc.idlist, desc.halen);
    if (!hash)
        return fail(kExplHashUnusable, "no hash function the host offers (" +
                                           id_list(desc.idlist, desc.halen) + ") is allowed for it" +
                                           (concat ? " and keys a secure channel (sha256, sha384)" : ""));
    auto group =
        concat ? choose(only(policy_->dhgroups, all_dh_groups(), not_null_group), {},
                        desc.idlist + kDhgroupListOffset, desc.dhlen)
               : choose(policy_->dhgroups, all_dh_groups(), desc.idlist + kDhgroupListOffset, desc.dhlen);
    if (!group && concat)
        return fail(kExplConcatMismatch, "secure channel concatenation needs a DH group, and no group other "
                                         "than null that the host offers (" +
                                             id_list(desc.idlist + kDhgroupListOffset, desc.dhlen) +
                                             ") is allowed for it");
    if (!group)
        return fail(kExplDhgroupUnusable, "no DH group the host offers (" +
                                              id_list(desc.idlist + kDhgroupListOffset, desc.dhlen) +
                                              ") is allowed for it");
    hash_ = *hash;
    dhgroup_ = *group;
    step_ = Step::kChallenge;
    return Verdict::kContinue;
}

std::string AuthSession::secure_channel_mismatch(uint8_t sc_c) const {
    if (sc_c == kScNone) return {};
    const std::string asked =
        "the host asked for secure channel concatenation (SC_C " + std::to_string(sc_c) + ")";
    if (sc_c != kScNewTlsPsk && sc_c != kScReplaceTlsPsk)
        return asked + ", a value skiff does not know (2: a new TLS PSK, 3: a replacement)";
    if (!admin_queue_) return asked + " on an I/O queue (only the admin queue may)";
    if (sc_c == kScNewTlsPsk && tls_) return asked + " for a new TLS PSK on a queue that already runs TLS";
    if (sc_c == kScReplaceTlsPsk && !tls_) return asked + " to replace the TLS PSK of a queue without TLS";
    return {};
}

AuthSession::Verdict AuthSession::write_challenge(std::span<uint8_t> out) {
    const size_t hl = hash_length(hash_);
    if (dhgroup_ != kDhNull) {
        auto pair = DhKeyPair::generate(dhgroup_);
        if (!pair) return fail(kExplDhgroupUnusable, pair.error().message);
        dh_.emplace(std::move(*pair));
    }
    const size_t dhvlen = dh_ ? dh_->public_value().size() : 0;
    if (out.size() < sizeof(ChallengeMessage) + hl + dhvlen) {
        fail(kExplIncorrectPayload, "Authentication Receive allocation length " + std::to_string(out.size()) +
                                        " is too small for the Challenge");
        return write_failure1(out);
    }
    c1_ = random_bytes(hl);
    s1_ = random_nonzero_u32();
    ChallengeMessage msg{};
    msg.hdr.auth_type = kTypeDhchap;
    msg.hdr.auth_id = kMsgChallenge;
    msg.hdr.t_id = tid_;
    msg.hl = static_cast<uint8_t>(hl);
    msg.hashid = hash_;
    msg.dhgid = dhgroup_;
    msg.dhvlen = static_cast<uint16_t>(dhvlen);
    msg.seqnum = s1_;
    std::memcpy(out.data(), &msg, sizeof(msg));
    std::memcpy(out.data() + sizeof(msg), c1_.data(), hl);
    if (dh_) std::memcpy(out.data() + sizeof(msg) + hl, dh_->public_value().data(), dhvlen);
    step_ = Step::kReply;
    return Verdict::kContinue;
}

AuthSession::Verdict AuthSession::reply(ByteView message) {
    const auto msg = read_as<ReplyMessage>(message);
    const size_t hl = hash_length(hash_);
    if (message.size() < sizeof(ReplyMessage) || msg.hl != hl)
        return fail(kExplIncorrectPayload, "DH-HMAC-CHAP_Reply with hash length " + std::to_string(msg.hl) +
                                               " where " + std::string(hash_name(hash_)) + " needs " +
                                               std::to_string(hl));
    const size_t want_dhv = dh_ ? dh_->public_value().size() : 0;
    if (msg.dhvlen != want_dhv)
        return fail(kExplIncorrectPayload,
                    "DH-HMAC-CHAP_Reply carries a DH value of " + std::to_string(msg.dhvlen) + " bytes; " +
                        std::string(dh_group_name(dhgroup_)) + " needs " + std::to_string(want_dhv));
    if (message.size() < sizeof(ReplyMessage) + 2 * hl + want_dhv)
        return fail(kExplIncorrectPayload, "DH-HMAC-CHAP_Reply of " + std::to_string(message.size()) +
                                               " bytes is shorter than its fields");
    const uint8_t *rval = message.data() + sizeof(ReplyMessage);
    const uint8_t *cval = rval + hl;
    const uint8_t *dhv = cval + hl;
    if (dh_) {
        auto key = dh_->shared_secret(ByteView(dhv, want_dhv));
        if (!key) return fail(kExplDhgroupUnusable, key.error().message);
        session_key_ = std::move(*key);
    }
    const Secret host_key = transform_dhchap_key(policy_->host_key, hostnqn_);
    const Bytes challenge = effective_challenge(hash_, session_key_.view(), c1_);
    const Bytes expected =
        host_response({hash_, host_key.view(), challenge, s1_, tid_, hostnqn_, subnqn_, sc_c_});
    if (!equal_constant_time(expected, ByteView(rval, hl)))
        return fail(kExplFailed, "the host's response does not match its dhchap_key (wrong secret)");
    // Concatenation keys the new PSK with both challenges: the host's C2 must come, with
    // S2 = 0 unless it also asks the controller to authenticate.
    if (sc_c_ != kScNone && !msg.cvalid)
        return fail(kExplFailed, "secure channel concatenation without the host's challenge C2 in its Reply");
    if (msg.cvalid && msg.seqnum != 0) {
        if (!policy_->ctrl_key)
            return fail(kExplFailed, "the host asks the controller to authenticate, but no dhchap_ctrl_key "
                                     "is configured for it");
        if (msg.seqnum == last_s2_)
            return fail(kExplIncorrectPayload, "the host's sequence number " + std::to_string(msg.seqnum) +
                                                   " repeats the previous transaction's");
        s2_ = last_s2_ = msg.seqnum;
        bidirectional_ = true;
    }
    if (bidirectional_ || sc_c_ != kScNone) c2_.assign(cval, cval + hl);
    step_ = Step::kSuccess1;
    return Verdict::kContinue;
}

AuthSession::Verdict AuthSession::write_success1(std::span<uint8_t> out) {
    const size_t hl = hash_length(hash_);
    if (out.size() < sizeof(Success1Message) + (bidirectional_ ? hl : 0)) {
        fail(kExplIncorrectPayload, "Authentication Receive allocation length " + std::to_string(out.size()) +
                                        " is too small for Success1");
        return write_failure1(out);
    }
    Success1Message msg{};
    msg.hdr.auth_type = kTypeDhchap;
    msg.hdr.auth_id = kMsgSuccess1;
    msg.hdr.t_id = tid_;
    msg.hl = static_cast<uint8_t>(hl);
    if (bidirectional_) {
        const Secret ctrl_key = transform_dhchap_key(*policy_->ctrl_key, subnqn_);
        const Bytes challenge = effective_challenge(hash_, session_key_.view(), c2_);
        const Bytes r2 =
            controller_response({hash_, ctrl_key.view(), challenge, s2_, tid_, hostnqn_, subnqn_, sc_c_});
        msg.rvalid = 1;
        std::memcpy(out.data() + sizeof(msg), r2.data(), hl);
    }
    std::memcpy(out.data(), &msg, sizeof(msg));
    // The generated PSK is made now, while the session key exists; it is handed out only once
    // the whole transaction succeeded (after Success2 when bidirectional).
    if (sc_c_ != kScNone)
        generated_ = tls::generated_psk(*tls::concat_hash(hash_), session_key_.view(), c1_, c2_);
    dh_.reset();
    session_key_ = {};
    if (bidirectional_) {
        step_ = Step::kSuccess2;
        return Verdict::kContinue;
    }
    step_ = Step::kDone;
    return Verdict::kAuthenticated;
}

AuthSession::Verdict AuthSession::write_failure1(std::span<uint8_t> out) {
    if (out.size() >= sizeof(FailureMessage)) {
        const FailureMessage msg = make_failure(kMsgFailure1, tid_, explanation_);
        std::memcpy(out.data(), &msg, sizeof(msg));
    }
    step_ = Step::kDone;
    return Verdict::kClose;
}

AuthSession::Verdict AuthSession::on_receive(std::span<uint8_t> out) {
    switch (step_) {
    case Step::kChallenge: {
        Verdict v = write_challenge(out);
        // A DH key that could not be made leaves a pending failure: deliver it now.
        return step_ == Step::kFailure1 ? write_failure1(out) : v;
    }
    case Step::kSuccess1:
        return write_success1(out);
    case Step::kFailure1:
        return write_failure1(out);
    default:
        fail(kExplIncorrectMessage,
             std::string("an Authentication Receive arrived while expecting ") + step_name(step_));
        return write_failure1(out);
    }
}

} // namespace skiff::nvmeof::target
