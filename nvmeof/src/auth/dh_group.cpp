#include "skiff/nvmeof/auth/dh_group.hpp"

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/dh.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>

#include <algorithm>
#include <cctype>
#include <string>

namespace skiff::nvmeof::auth {
namespace {

template <class T, void (*Free)(T *)>
struct Deleter {
    void operator()(T *p) const { Free(p); }
};
using PkeyCtx = std::unique_ptr<EVP_PKEY_CTX, Deleter<EVP_PKEY_CTX, EVP_PKEY_CTX_free>>;
using Pkey = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY, EVP_PKEY_free>>;
using Bignum = std::unique_ptr<BIGNUM, Deleter<BIGNUM, BN_clear_free>>;
using ParamBld = std::unique_ptr<OSSL_PARAM_BLD, Deleter<OSSL_PARAM_BLD, OSSL_PARAM_BLD_free>>;
using Params = std::unique_ptr<OSSL_PARAM, Deleter<OSSL_PARAM, OSSL_PARAM_free>>;

Error openssl_error(const std::string &what) {
    return make_error(DOCA_ERROR_DRIVER, "OpenSSL: " + what + " failed");
}

} // namespace

bool dh_group_known(uint8_t id) {
    return id <= kDhFfdhe8192;
}

size_t dh_value_length(uint8_t id) {
    switch (id) {
    case kDhFfdhe2048:
        return 256;
    case kDhFfdhe3072:
        return 384;
    case kDhFfdhe4096:
        return 512;
    case kDhFfdhe6144:
        return 768;
    case kDhFfdhe8192:
        return 1024;
    default:
        return 0;
    }
}

std::string_view dh_group_name(uint8_t id) {
    switch (id) {
    case kDhNull:
        return "null";
    case kDhFfdhe2048:
        return "ffdhe2048";
    case kDhFfdhe3072:
        return "ffdhe3072";
    case kDhFfdhe4096:
        return "ffdhe4096";
    case kDhFfdhe6144:
        return "ffdhe6144";
    case kDhFfdhe8192:
        return "ffdhe8192";
    default:
        return "";
    }
}

std::optional<uint8_t> dh_group_from_name(std::string_view name) {
    // nvmet prints "null" but the kernel's tables say "NULL": compare without case.
    auto same = [](std::string_view a, std::string_view b) {
        return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
                   return std::tolower(static_cast<unsigned char>(x)) ==
                          std::tolower(static_cast<unsigned char>(y));
               });
    };
    for (uint8_t id : all_dh_groups())
        if (same(name, dh_group_name(id))) return id;
    return std::nullopt;
}

std::initializer_list<uint8_t> all_dh_groups() {
    static constexpr std::initializer_list<uint8_t> kAll = {kDhNull,      kDhFfdhe2048, kDhFfdhe3072,
                                                            kDhFfdhe4096, kDhFfdhe6144, kDhFfdhe8192};
    return kAll;
}

Result<DhKeyPair> DhKeyPair::generate(uint8_t group) {
    if (group == kDhNull || !dh_group_known(group))
        return make_error(DOCA_ERROR_INVALID_VALUE, "no key pair in DH group " + std::to_string(group));
    PkeyCtx ctx(EVP_PKEY_CTX_new_from_name(nullptr, "DH", nullptr));
    if (!ctx || EVP_PKEY_keygen_init(ctx.get()) != 1) return openssl_error("DH keygen init");
    std::string name(dh_group_name(group));
    OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, name.data(), 0),
                           OSSL_PARAM_construct_end()};
    if (EVP_PKEY_CTX_set_params(ctx.get(), params) != 1) return openssl_error("DH group " + name);
    EVP_PKEY *raw = nullptr;
    if (EVP_PKEY_generate(ctx.get(), &raw) != 1) return openssl_error("DH key generation");
    DhKeyPair pair;
    pair.group_ = group;
    pair.key_ = raw;
    BIGNUM *pub = nullptr;
    if (EVP_PKEY_get_bn_param(raw, OSSL_PKEY_PARAM_PUB_KEY, &pub) != 1) return openssl_error("DH public key");
    Bignum owned(pub);
    pair.public_.resize(dh_value_length(group));
    if (BN_bn2binpad(pub, pair.public_.data(), static_cast<int>(pair.public_.size())) < 0)
        return openssl_error("DH public key encoding");
    return pair;
}

DhKeyPair::DhKeyPair(DhKeyPair &&other) noexcept
    : group_(other.group_), key_(std::exchange(other.key_, nullptr)), public_(std::move(other.public_)) {}

DhKeyPair &DhKeyPair::operator=(DhKeyPair &&other) noexcept {
    if (this != &other) {
        EVP_PKEY_free(key_);
        group_ = other.group_;
        key_ = std::exchange(other.key_, nullptr);
        public_ = std::move(other.public_);
    }
    return *this;
}

DhKeyPair::~DhKeyPair() {
    EVP_PKEY_free(key_);
}

Result<Secret> DhKeyPair::shared_secret(ByteView peer_public) const {
    const size_t len = dh_value_length(group_);
    if (peer_public.size() != len)
        return make_error(DOCA_ERROR_INVALID_VALUE, "DH value of " + std::to_string(peer_public.size()) +
                                                        " bytes; " + std::string(dh_group_name(group_)) +
                                                        " needs " + std::to_string(len));
    // The peer's public value as a key of the same group.
    Bignum pub(BN_bin2bn(peer_public.data(), static_cast<int>(peer_public.size()), nullptr));
    ParamBld bld(OSSL_PARAM_BLD_new());
    std::string name(dh_group_name(group_));
    if (!pub || !bld ||
        OSSL_PARAM_BLD_push_utf8_string(bld.get(), OSSL_PKEY_PARAM_GROUP_NAME, name.c_str(), 0) != 1 ||
        OSSL_PARAM_BLD_push_BN(bld.get(), OSSL_PKEY_PARAM_PUB_KEY, pub.get()) != 1)
        return openssl_error("DH peer parameters");
    Params params(OSSL_PARAM_BLD_to_param(bld.get()));
    PkeyCtx from(EVP_PKEY_CTX_new_from_name(nullptr, "DH", nullptr));
    EVP_PKEY *peer_raw = nullptr;
    if (!params || !from || EVP_PKEY_fromdata_init(from.get()) != 1 ||
        EVP_PKEY_fromdata(from.get(), &peer_raw, EVP_PKEY_PUBLIC_KEY, params.get()) != 1)
        return openssl_error("DH peer key");
    Pkey peer(peer_raw);
    PkeyCtx derive(EVP_PKEY_CTX_new_from_pkey(nullptr, key_, nullptr));
    if (!derive || EVP_PKEY_derive_init(derive.get()) != 1) return openssl_error("DH derive init");
    // The kernel's shared secret is the full width of the prime, leading zeros kept.
    if (EVP_PKEY_CTX_set_dh_pad(derive.get(), 1) != 1) return openssl_error("DH padding");
    // set_peer checks the public value (range and subgroup): a hostile 1 or p-1 is refused.
    if (EVP_PKEY_derive_set_peer_ex(derive.get(), peer.get(), 1) != 1)
        return make_error(DOCA_ERROR_INVALID_VALUE,
                          "the peer's DH value is not a valid " + name + " public value");
    size_t out_len = len;
    Bytes out(len);
    if (EVP_PKEY_derive(derive.get(), out.data(), &out_len) != 1 || out_len != len)
        return openssl_error("DH shared secret");
    return Secret(std::move(out));
}

} // namespace skiff::nvmeof::auth
