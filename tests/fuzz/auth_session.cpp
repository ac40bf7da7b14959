// Fuzz harness: the controller side of DH-HMAC-CHAP (AuthSession) fed arbitrary Authentication
// Send payloads and Receive allocation lengths, on an admin or I/O queue, with or without TLS:
// the messages of a peer that has not authenticated, secure channel concatenation's SC_C among
// them.
//
// Input: [queue flags][policy flags] then steps, each [kind][...]: kind bit 0 = 0 an
// Authentication Send of a chunk (the first bytes patched into a Negotiate, Reply or Success2
// header when kind bits 1-2 ask, so the fuzzer reaches past the type check), 1 an
// Authentication Receive of (u16 % 4097) bytes.
// Properties: no crash and no sanitizer report (a Receive writes inside its buffer only: it is
// an exact-size heap allocation); a session that reports kAuthenticated with concatenation
// hands out a PSK of the chosen hash's length, and none without. kClose ends the run, as it
// ends the queue.
#include "fuzz_input.hpp"
#include "fuzz_target.hpp"

#include "skiff/nvmeof/auth/dh_group.hpp"
#include "skiff/nvmeof/auth/dhchap_key.hpp"
#include "skiff/nvmeof/auth/hash.hpp"
#include "skiff/nvmeof/auth/messages.hpp"
#include "skiff/nvmeof/target/auth_session.hpp"

#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

using namespace skiff::nvmeof;
using target::AuthSession;

namespace {

std::shared_ptr<const target::HostAuth> policy(uint8_t flags) {
    static const auth::DhchapKey host = [] {
        auto k = auth::parse_dhchap_key("DHHC-1:01:WulleCBkG4oCs0iIC3Cit9gBDCLWiZ9PNXuhqytWkBIZkvGy:");
        if (!k) std::abort();
        return std::move(*k);
    }();
    if (flags & 1) return nullptr; // a host without a secret
    auto p = std::make_shared<target::HostAuth>();
    p->host_key = host;
    if (flags & 2) p->ctrl_key = host;
    if (flags & 4) p->hashes = {auth::kHashSha512}; // cannot key a secure channel
    if (flags & 8) p->dhgroups = {auth::kDhNull};   // cannot either
    return p;
}

// Patches a message header over the first bytes so the type and id checks let it through.
void patch_header(std::vector<uint8_t> &msg, uint8_t which) {
    if (msg.size() < sizeof(auth::MessageHeader)) return;
    static constexpr uint8_t kTypes[4][2] = {{0, 0},
                                             {auth::kTypeCommon, auth::kMsgNegotiate},
                                             {auth::kTypeDhchap, auth::kMsgReply},
                                             {auth::kTypeDhchap, auth::kMsgSuccess2}};
    if (which == 0) return;
    msg[0] = kTypes[which][0];
    msg[1] = kTypes[which][1];
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const bool quiet = (skiff::fuzz::quiet_logs(), true);
    (void)quiet;
    skiff::fuzz::Input in(data, size);
    const uint8_t queue = in.u8();
    AuthSession s(policy(in.u8()), "nqn.2014-08.org.nvmexpress:uuid:00000000-0000-4000-8000-000000000001",
                  "nqn.2026-11.io.skiff:fuzz");
    s.set_queue((queue & 1) == 0, (queue & 2) != 0);
    for (int step = 0; step < 16 && !in.empty(); ++step) {
        const uint8_t kind = in.u8();
        AuthSession::Verdict v;
        if ((kind & 1) == 0) {
            auto chunk = in.chunk();
            std::vector<uint8_t> msg(chunk.begin(), chunk.end());
            patch_header(msg, (kind >> 1) & 3);
            v = s.on_send(auth::ByteView(msg.data(), msg.size()));
        } else {
            std::vector<uint8_t> out(in.u16() % 4097);
            v = s.on_receive(out);
        }
        if (v == AuthSession::Verdict::kClose) break;
        if (v == AuthSession::Verdict::kAuthenticated) {
            const auth::KeyBytes psk = s.take_generated_psk();
            const size_t want = s.secure_channel() == auth::kScNone ? 0 : auth::hash_length(s.hash());
            if (psk.size() != want) std::abort();
        }
    }
    return 0;
}
