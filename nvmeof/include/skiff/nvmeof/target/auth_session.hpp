// One queue's DH-HMAC-CHAP conversation, controller side: the state machine that consumes the
// host's messages (Authentication Send) and produces the controller's (Authentication
// Receive). No I/O and no NVMe status here: auth_cmd.cpp moves the bytes and closes the queue
// when this says so.
//
//   host                                   controller (step)
//   AUTH_Negotiate          ->             negotiate: pick hash and DH group
//                           <-  Challenge  challenge: C1, S1, T_ID, controller DH value
//   Reply (R1, C2?, S2, DH) ->             reply: check R1 (wrong key -> Failure1)
//                           <-  Success1   success1: R2 when the host sent C2
//   Success2                ->             success2 (bidirectional only)
//
// Secure channel concatenation (SC_C in AUTH_Negotiate; tls/generated_psk.hpp): on the admin
// queue only, NEWTLSPSK without TLS or REPLACETLSPSK on TLS, with SHA-256 or SHA-384 and a DH
// group (never NULL), and the host's challenge C2 in its Reply; once authenticated the session
// hands out the generated PSK (take_generated_psk).
//
// Any message out of order, with a wrong transaction id or a malformed payload turns the
// session into a pending AUTH_Failure1 (with the reason code), delivered on the next Receive;
// then the queue closes. An AUTH_Failure2 from the host closes it at once.
#pragma once

#include "skiff/nvmeof/auth/bytes.hpp"
#include "skiff/nvmeof/auth/dh_group.hpp"
#include "skiff/nvmeof/target/host_auth.hpp"

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>

namespace skiff::nvmeof::target {

class AuthSession {
  public:
    enum class Verdict {
        kContinue,      // the conversation goes on
        kAuthenticated, // the host (and, if asked, the controller) proved itself
        kClose,         // failed: the queue closes once this command's response is out
    };

    // policy may be null (no secret for this host): a Negotiate then fails as "not usable".
    AuthSession(std::shared_ptr<const HostAuth> policy, std::string hostnqn, std::string subnqn);

    // An Authentication Send payload.
    Verdict on_send(auth::ByteView message);
    // Fills an Authentication Receive buffer (zeroed by the caller, `out.size()` = AL).
    Verdict on_receive(std::span<uint8_t> out);

    // The queue this session runs on: concatenation is for the admin queue, NEWTLSPSK without TLS
    // and REPLACETLSPSK on it. Default: an admin queue without TLS.
    void set_queue(bool admin_queue, bool tls) {
        admin_queue_ = admin_queue;
        tls_ = tls;
    }

    // Why the session failed (for the log; never contains key material).
    const std::string &failure_reason() const { return reason_; }
    uint8_t hash() const { return hash_; }
    uint8_t dh_group() const { return dhgroup_; }
    bool bidirectional() const { return bidirectional_; }
    // The SC_C the host negotiated (auth::kScNone when it asked for no concatenation).
    uint8_t secure_channel() const { return sc_c_; }
    // After an authentication with concatenation: the generated PSK (tls/generated_psk.hpp); empty
    // otherwise, and after the first call.
    auth::KeyBytes take_generated_psk() { return std::exchange(generated_, {}); }

  private:
    enum class Step { kNegotiate, kChallenge, kReply, kSuccess1, kSuccess2, kFailure1, kDone };

    Verdict negotiate(auth::ByteView message);
    // Empty when SC_C fits this queue, else why not.
    std::string secure_channel_mismatch(uint8_t sc_c) const;
    Verdict reply(auth::ByteView message);
    Verdict write_challenge(std::span<uint8_t> out);
    Verdict write_success1(std::span<uint8_t> out);
    Verdict write_failure1(std::span<uint8_t> out);
    // Turns the session into a pending Failure1 with this explanation code and log reason.
    Verdict fail(uint8_t explanation, std::string reason);
    static const char *step_name(Step step);

    std::shared_ptr<const HostAuth> policy_;
    std::string hostnqn_, subnqn_;
    Step step_ = Step::kNegotiate;
    uint8_t explanation_ = 0;
    std::string reason_;
    uint16_t tid_ = 0;
    std::optional<uint16_t> last_tid_; // the previous transaction's id on this queue (replays)
    uint8_t hash_ = 0, dhgroup_ = 0;
    auth::Bytes c1_, c2_;
    uint32_t s1_ = 0, s2_ = 0, last_s2_ = 0;
    std::optional<auth::DhKeyPair> dh_;
    auth::Secret session_key_;
    bool admin_queue_ = true, tls_ = false;
    uint8_t sc_c_ = 0;
    bool bidirectional_ = false;
    auth::KeyBytes generated_;
};

} // namespace skiff::nvmeof::target
