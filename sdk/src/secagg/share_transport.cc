// AES-256-CCM sealing of Shamir shares (see share_transport.h).
#include "edgeadmm/secagg/share_transport.h"

#include <cstring>

#include "edgeadmm/byte_order.h"
#include "mbedtls/ccm.h"
#include "mbedtls/platform_util.h"

namespace edgeadmm {
namespace {

constexpr size_t kKeyBytes = 32;
constexpr size_t kNonceBytes = 13;
constexpr size_t kAdBytes = 16;
constexpr unsigned char kNonceTag = 0x01;

void Label(const ShareAddress& a, unsigned char* nonce, unsigned char* ad) {
  StoreBigEndian(nonce, a.round_id, 8);
  StoreBigEndian(nonce + 8, a.sender, 4);
  nonce[12] = kNonceTag;
  StoreBigEndian(ad, a.round_id, 8);
  StoreBigEndian(ad + 8, a.sender, 4);
  StoreBigEndian(ad + 12, a.receiver, 4);
}

Status CcmStatus(int rc) {
  if (rc == 0) return Status::Ok();
  if (rc == MBEDTLS_ERR_CCM_AUTH_FAILED) return Status::DataLoss();
  if (rc == MBEDTLS_ERR_CIPHER_ALLOC_FAILED) return Status::ResourceExhausted();
  return Status::Internal();
}

// Seals (encrypt) or opens the 66-byte plaintext under `key` for `a`:
// the nonce and associated data, the CCM context's set-up and release.
int RunCcm(ConstByteSpan key, const ShareAddress& a, bool encrypt,
           const unsigned char* in, unsigned char* out, unsigned char* tag) {
  unsigned char nonce[kNonceBytes];
  unsigned char ad[kAdBytes];
  Label(a, nonce, ad);
  mbedtls_ccm_context ccm;
  mbedtls_ccm_init(&ccm);
  int rc = mbedtls_ccm_setkey(
      &ccm, MBEDTLS_CIPHER_ID_AES,
      reinterpret_cast<const unsigned char*>(key.data()), 8 * kKeyBytes);
  if (rc == 0 && encrypt) {
    rc = mbedtls_ccm_encrypt_and_tag(&ccm, kSharePlaintextBytes, nonce,
                                     kNonceBytes, ad, kAdBytes, in, out, tag,
                                     kShareTagBytes);
  } else if (rc == 0) {
    rc =
        mbedtls_ccm_auth_decrypt(&ccm, kSharePlaintextBytes, nonce, kNonceBytes,
                                 ad, kAdBytes, in, out, tag, kShareTagBytes);
  }
  mbedtls_ccm_free(&ccm);
  return rc;
}

bool ValidIndices(const SharePair& s) {
  return s.self_seed.index != 0 && s.self_seed.index == s.mask_key.index;
}

void Wipe(void* p, size_t n) { mbedtls_platform_zeroize(p, n); }

}  // namespace

Status SealShares(ConstByteSpan key, const ShareAddress& address,
                  const SharePair& shares, ByteSpan out) {
  if (key.size() != kKeyBytes || out.size() != kSealedSharesBytes ||
      address.sender == address.receiver || !ValidIndices(shares)) {
    if (out.size() > 0) Wipe(out.data(), out.size());
    return Status::InvalidArgument();
  }
  unsigned char plain[kSharePlaintextBytes];
  plain[0] = shares.self_seed.index;
  std::memcpy(plain + 1, shares.self_seed.value, kShamirSecretBytes);
  plain[1 + kShamirSecretBytes] = shares.mask_key.index;
  std::memcpy(plain + 2 + kShamirSecretBytes, shares.mask_key.value,
              kShamirSecretBytes);
  unsigned char* sealed = reinterpret_cast<unsigned char*>(out.data());
  const int rc =
      RunCcm(key, address, true, plain, sealed, sealed + kSharePlaintextBytes);
  Wipe(plain, sizeof(plain));
  if (rc != 0) Wipe(out.data(), out.size());
  return CcmStatus(rc);
}

Status OpenShares(ConstByteSpan key, const ShareAddress& address,
                  ConstByteSpan sealed, SharePair& shares) {
  shares = SharePair{};
  if (key.size() != kKeyBytes || sealed.size() != kSealedSharesBytes ||
      address.sender == address.receiver) {
    return Status::InvalidArgument();
  }
  const unsigned char* in =
      reinterpret_cast<const unsigned char*>(sealed.data());
  unsigned char plain[kSharePlaintextBytes];
  // The tag is only read when opening.
  int rc = RunCcm(key, address, false, in, plain,
                  const_cast<unsigned char*>(in + kSharePlaintextBytes));
  if (rc == 0) {
    shares.self_seed.index = plain[0];
    std::memcpy(shares.self_seed.value, plain + 1, kShamirSecretBytes);
    shares.mask_key.index = plain[1 + kShamirSecretBytes];
    std::memcpy(shares.mask_key.value, plain + 2 + kShamirSecretBytes,
                kShamirSecretBytes);
    if (!ValidIndices(shares)) rc = MBEDTLS_ERR_CCM_AUTH_FAILED;
  }
  Wipe(plain, sizeof(plain));
  if (rc != 0) {
    Wipe(&shares, sizeof(shares));
  }
  return CcmStatus(rc);
}

}  // namespace edgeadmm
