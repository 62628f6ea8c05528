// The distributed discrete Gaussian's encoding (see ddg_encoding.h).
#include "edgeadmm/secagg/ddg_encoding.h"

#include <cmath>

#include "edgeadmm/result.h"
#include "edgeadmm/secagg/mask_prg.h"

namespace edgeadmm {
namespace {

bool PowerOfTwo(size_t n) { return n != 0 && (n & (n - 1)) == 0; }

// The in-place unnormalized Walsh-Hadamard transform (H, symmetric,
// H H = n I).
void Hadamard(Span<Real> v) {
  for (size_t half = 1; half < v.size(); half *= 2) {
    for (size_t i = 0; i < v.size(); i += 2 * half) {
      for (size_t j = i; j < i + half; ++j) {
        const Real a = v[j];
        const Real b = v[j + half];
        v[j] = a + b;
        v[j + half] = a - b;
      }
    }
  }
}

// v[j] *= +-1, the sign bit j of the public PRG stream.
Status ApplySigns(ConstByteSpan seed, uint64_t round_id, Span<Real> v,
                  Span<uint32_t> sign_words) {
  const size_t words = (v.size() + 31) / 32;
  if (!PowerOfTwo(v.size()) || sign_words.size() < words) {
    return Status::InvalidArgument();
  }
  Span<uint32_t> bits(sign_words.data(), words);
  EDGEADMM_TRY(ExpandMask(seed, {round_id, MaskPurpose::kRotation}, bits));
  for (size_t j = 0; j < v.size(); ++j) {
    if ((bits[j / 32] >> (j % 32)) & 1u) v[j] = -v[j];
  }
  return Status::Ok();
}

void Scale(Span<Real> v) {
  const Real s =
      static_cast<Real>(1.0 / std::sqrt(static_cast<double>(v.size())));
  for (Real& x : v) x *= s;
}

bool ValidBits(uint32_t bits) { return bits >= 1 && bits <= 32; }

// Uniform in [0, 1) with 53 bits.
Status Uniform(RandomByteSource& random, double& u) {
  std::byte b[8];
  EDGEADMM_TRY(random.Generate(ByteSpan(b, sizeof(b))));
  uint64_t word = 0;
  for (std::byte x : b) word = (word << 8) | static_cast<uint64_t>(x);
  u = static_cast<double>(word >> 11) * (1.0 / 9007199254740992.0);
  return Status::Ok();
}

// One rounding attempt; `fits` tells whether ||z||^2 <= limit (exact:
// 128-bit sum as two words). |scaled[j]| < 2^30 (the caller checks), so
// its floor converts through 32 bits (no 64-bit double conversion linked).
Status RoundOnce(Span<const Real> scaled, uint64_t limit,
                 RandomByteSource& random, Span<int64_t> z, bool& fits) {
  uint64_t lo = 0;
  uint64_t hi = 0;
  for (size_t j = 0; j < scaled.size(); ++j) {
    const double v = static_cast<double>(scaled[j]);
    const double down = std::floor(v);
    double u = 0;
    EDGEADMM_TRY(Uniform(random, u));
    z[j] = int64_t{static_cast<int32_t>(down)} + (u < v - down ? 1 : 0);
    const uint64_t m = static_cast<uint64_t>(z[j] < 0 ? -z[j] : z[j]);
    const uint64_t sq = m * m;  // |z| <= 2^30 + 1: no overflow
    lo += sq;
    if (lo < sq) ++hi;
  }
  fits = hi == 0 && lo <= limit;
  return Status::Ok();
}

}  // namespace

double DdgRoundedNormBound(double scaled_clip, size_t padded, double beta) {
  if (!(scaled_clip > 0) || padded == 0 || !(beta > 0 && beta < 1)) return 0;
  const double d = static_cast<double>(padded);
  const double always = scaled_clip + std::sqrt(d);
  const double likely_sq =
      scaled_clip * scaled_clip + d / 4 +
      std::sqrt(2 * std::log(1 / beta)) * (scaled_clip + std::sqrt(d) / 2);
  const double likely = std::sqrt(likely_sq);
  return likely < always ? likely : always;
}

Status DdgRotate(ConstByteSpan seed, uint64_t round_id, Span<Real> v,
                 Span<uint32_t> sign_words) {
  EDGEADMM_TRY(ApplySigns(seed, round_id, v, sign_words));
  Hadamard(v);
  Scale(v);
  return Status::Ok();
}

Status DdgUnrotate(ConstByteSpan seed, uint64_t round_id, Span<Real> v,
                   Span<uint32_t> sign_words) {
  if (!PowerOfTwo(v.size())) return Status::InvalidArgument();
  Hadamard(v);
  Scale(v);
  return ApplySigns(seed, round_id, v, sign_words);
}

Status ConditionalRandomizedRound(Span<const Real> scaled, double norm_bound,
                                  RandomByteSource& random, int max_attempts,
                                  Span<int64_t> z) {
  const double kLimit = 1073741824.0;  // 2^30
  if (scaled.size() != z.size() || !(norm_bound > 0) ||
      norm_bound >= 2 * kLimit || max_attempts < 1) {
    return Status::InvalidArgument();
  }
  for (Real v : scaled) {
    if (!std::isfinite(static_cast<double>(v)) ||
        std::fabs(static_cast<double>(v)) >= kLimit) {
      return Status::InvalidArgument();
    }
  }
  // ||z||^2 <= limit <= bound^2: the double product rounded down by more
  // than its rounding error, so an accepted z never exceeds the bound.
  const uint64_t limit =
      static_cast<uint64_t>(norm_bound * norm_bound * (1 - 0x1p-50));
  for (int attempt = 0; attempt < max_attempts; ++attempt) {
    bool fits = false;
    EDGEADMM_TRY(RoundOnce(scaled, limit, random, z, fits));
    if (fits) return Status::Ok();
  }
  for (int64_t& v : z) v = 0;
  return Status::Aborted();
}

Status WrapToModulus(Span<const int64_t> z, uint32_t bits, Span<uint32_t> out) {
  if (z.size() != out.size() || !ValidBits(bits)) {
    return Status::InvalidArgument();
  }
  const uint64_t mask = (uint64_t{1} << bits) - 1;
  for (size_t j = 0; j < z.size(); ++j) {
    out[j] = static_cast<uint32_t>(static_cast<uint64_t>(z[j]) & mask);
  }
  return Status::Ok();
}

Status CentreFromModulus(Span<const uint32_t> sum, uint32_t bits,
                         Span<int64_t> out) {
  if (sum.size() != out.size() || !ValidBits(bits)) {
    return Status::InvalidArgument();
  }
  const uint64_t modulus = uint64_t{1} << bits;
  const uint64_t mask = modulus - 1;
  for (size_t j = 0; j < sum.size(); ++j) {
    const uint64_t r = sum[j] & mask;
    out[j] = r >= modulus / 2
                 ? static_cast<int64_t>(r) - static_cast<int64_t>(modulus)
                 : static_cast<int64_t>(r);
  }
  return Status::Ok();
}

}  // namespace edgeadmm
