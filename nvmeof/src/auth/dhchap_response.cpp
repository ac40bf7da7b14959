#include "skiff/nvmeof/auth/dhchap_response.hpp"

#include "skiff/nvmeof/auth/hash.hpp"

#include <array>

namespace skiff::nvmeof::auth {
namespace {

ByteView text(std::string_view s) {
    return ByteView(reinterpret_cast<const uint8_t *>(s.data()), s.size());
}

Bytes response(const ResponseInputs &in, std::string_view label, std::string_view first_nqn,
               std::string_view second_nqn) {
    const std::array<uint8_t, 4> seq = {static_cast<uint8_t>(in.seqnum), static_cast<uint8_t>(in.seqnum >> 8),
                                        static_cast<uint8_t>(in.seqnum >> 16),
                                        static_cast<uint8_t>(in.seqnum >> 24)};
    const std::array<uint8_t, 2> tid = {static_cast<uint8_t>(in.transaction),
                                        static_cast<uint8_t>(in.transaction >> 8)};
    const std::array<uint8_t, 1> sc_c = {in.sc_c};
    const std::array<uint8_t, 1> zero = {0}; // the separator of the two NQNs
    return hmac(in.hash, in.key,
                {in.challenge, seq, tid, sc_c, text(label), text(first_nqn), zero, text(second_nqn)});
}

} // namespace

Bytes effective_challenge(uint8_t hash, ByteView session_key, ByteView challenge) {
    if (session_key.empty()) return Bytes(challenge.begin(), challenge.end());
    Secret hashed_key(digest(hash, session_key));
    return hmac(hash, hashed_key.view(), {challenge});
}

Bytes host_response(const ResponseInputs &in) {
    return response(in, "HostHost", in.hostnqn, in.subnqn);
}

Bytes controller_response(const ResponseInputs &in) {
    return response(in, "Controller", in.subnqn, in.hostnqn);
}

} // namespace skiff::nvmeof::auth
