// Shamir secret sharing over GF(2^8), byte-wise (see shamir.h).
#include "edgeadmm/secagg/shamir.h"

#include "gf256.h"
#include "mbedtls/platform_util.h"

namespace edgeadmm {

using secagg_internal::Gf256Inv;
using secagg_internal::Gf256Mul;

namespace {

void ZeroizeShares(Span<ShamirShare> shares) {
  if (!shares.empty()) {
    mbedtls_platform_zeroize(shares.data(), shares.size_bytes());
  }
}

// x^power in GF(2^8) (power < 256), square and multiply over its 8 bits.
uint8_t Gf256Pow(uint8_t x, size_t power) {
  uint8_t result = 1;
  uint8_t base = x;
  for (int bit = 0; bit < 8; ++bit) {
    const uint8_t factor = ((power >> bit) & 1u) ? base : uint8_t{1};
    result = Gf256Mul(result, factor);
    base = Gf256Mul(base, base);
  }
  return result;
}

}  // namespace

Status ShamirSplit(ConstByteSpan secret, size_t threshold, size_t share_count,
                   RandomByteSource& random, Span<ShamirShare> shares) {
  if (secret.size() != kShamirSecretBytes || threshold < 2 ||
      threshold > share_count || share_count > kShamirMaxShares ||
      shares.size() < share_count) {
    ZeroizeShares(shares);
    return Status::InvalidArgument();
  }
  // The constant term: every share starts as the secret.
  for (size_t i = 0; i < share_count; ++i) {
    shares[i].index = static_cast<uint8_t>(i + 1);
    for (size_t b = 0; b < kShamirSecretBytes; ++b) {
      shares[i].value[b] = secret[b];
    }
  }
  // One coefficient row (degree k, one byte per secret byte) at a time.
  std::byte coefficients[kShamirSecretBytes];
  for (size_t k = 1; k < threshold; ++k) {
    const Status status =
        random.Generate(ByteSpan(coefficients, kShamirSecretBytes));
    if (!status.ok()) {
      mbedtls_platform_zeroize(coefficients, sizeof(coefficients));
      ZeroizeShares(shares);
      return status;
    }
    for (size_t i = 0; i < share_count; ++i) {
      const uint8_t x_power = Gf256Pow(shares[i].index, k);
      for (size_t b = 0; b < kShamirSecretBytes; ++b) {
        const uint8_t term =
            Gf256Mul(static_cast<uint8_t>(coefficients[b]), x_power);
        shares[i].value[b] ^= static_cast<std::byte>(term);
      }
    }
  }
  mbedtls_platform_zeroize(coefficients, sizeof(coefficients));
  return Status::Ok();
}

Status ShamirReconstruct(Span<const ShamirShare> shares, size_t threshold,
                         ByteSpan secret) {
  if (!secret.empty()) {
    mbedtls_platform_zeroize(secret.data(), secret.size());
  }
  if (secret.size() != kShamirSecretBytes || threshold < 2) {
    return Status::InvalidArgument();
  }
  bool seen[kShamirMaxShares + 1] = {};
  for (const ShamirShare& share : shares) {
    if (share.index == 0 || seen[share.index]) {
      return Status::InvalidArgument();
    }
    seen[share.index] = true;
  }
  if (shares.size() < threshold) {
    return Status::FailedPrecondition();
  }
  // secret = sum_i y_i * l_i(0), l_i(0) = prod_{j != i} x_j / (x_j - x_i);
  // in characteristic 2, x_j - x_i = x_j ^ x_i.
  for (size_t i = 0; i < threshold; ++i) {
    uint8_t numerator = 1;
    uint8_t denominator = 1;
    for (size_t j = 0; j < threshold; ++j) {
      if (j == i) {
        continue;
      }
      numerator = Gf256Mul(numerator, shares[j].index);
      denominator = Gf256Mul(
          denominator, static_cast<uint8_t>(shares[j].index ^ shares[i].index));
    }
    const uint8_t basis = Gf256Mul(numerator, Gf256Inv(denominator));
    for (size_t b = 0; b < kShamirSecretBytes; ++b) {
      secret[b] ^= static_cast<std::byte>(
          Gf256Mul(static_cast<uint8_t>(shares[i].value[b]), basis));
    }
  }
  return Status::Ok();
}

}  // namespace edgeadmm
