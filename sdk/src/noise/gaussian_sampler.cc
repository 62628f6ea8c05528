#include "edgeadmm/gaussian_sampler.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "mbedtls/platform_util.h"

namespace edgeadmm {
namespace {

constexpr double kTwoPi = 6.283185307179586476925286766559;

static_assert(std::numeric_limits<double>::is_iec559 && sizeof(double) == 8,
              "Uniform01 builds IEEE-754 binary64 bit patterns");

// Leading zero bits of a non-zero word.
int LeadingZeros(uint64_t word) { return __builtin_clzll(word); }

}  // namespace

GaussianSampler::GaussianSampler(RandomByteSource& drbg) : drbg_(drbg) {}

GaussianSampler::~GaussianSampler() { Discard(); }

void GaussianSampler::Discard() {
  mbedtls_platform_zeroize(buffer_, sizeof(buffer_));
  mbedtls_platform_zeroize(&spare_, sizeof(spare_));
  buffer_used_ = kBufferBytes;
  has_spare_ = false;
}

Result<uint64_t> GaussianSampler::NextWord() {
  if (buffer_used_ + 8 > kBufferBytes) {
    EDGEADMM_TRY(drbg_.Generate(
        ByteSpan(reinterpret_cast<std::byte*>(buffer_), sizeof(buffer_))));
    buffer_used_ = 0;
  }
  uint64_t word = 0;
  for (size_t i = 0; i < 8; ++i) {
    word |= static_cast<uint64_t>(buffer_[buffer_used_ + i]) << (8 * i);
    buffer_[buffer_used_ + i] = 0;
  }
  buffer_used_ += 8;
  return word;
}

Result<double> GaussianSampler::Uniform01() {
  // U = 2^-(e+1)·(1 + m·2^-52): e = leading zero bits of the word stream
  // (geometric), m = the 52 bits after the first one bit (see the header).
  while (true) {
    uint32_t e = 0;
    uint64_t word = 0;
    while (word == 0 && e <= kMaxLeadingZeros) {
      EDGEADMM_TRY_ASSIGN(word, NextWord());
      if (word == 0) e += 64;
    }
    if (word == 0) continue;  // ≥ 1022 zero bits: restart (floor)
    const int zeros = LeadingZeros(word);
    e += static_cast<uint32_t>(zeros);
    if (e > kMaxLeadingZeros) continue;  // restart (floor)
    uint64_t mantissa;
    if (zeros <= 11) {  // 63 − zeros ≥ 52 bits follow the one bit
      mantissa = (word << (zeros + 1)) >> 12;
    } else {
      EDGEADMM_TRY_ASSIGN(const uint64_t fresh, NextWord());
      mantissa = fresh >> 12;
    }
    // Biased exponent of 2^-(e+1) is 1022 − e ∈ [1, 1022]: a normal double.
    const uint64_t bits = (static_cast<uint64_t>(1022 - e) << 52) | mantissa;
    double u;
    std::memcpy(&u, &bits, sizeof(u));
    return u;
  }
}

Result<double> GaussianSampler::Standard() {
  if (has_spare_) {
    has_spare_ = false;
    return spare_;
  }
  // Box–Muller: (R cos θ, R sin θ), R = sqrt(−2 ln U1), θ = 2π U2.
  EDGEADMM_TRY_ASSIGN(const double u1, Uniform01());
  EDGEADMM_TRY_ASSIGN(const double u2, Uniform01());
  const double radius = std::sqrt(-2.0 * std::log(u1));
  const double angle = kTwoPi * u2;
  spare_ = radius * std::sin(angle);
  has_spare_ = true;
  return radius * std::cos(angle);
}

Status GaussianSampler::AddNoise(Real stddev, Span<Real> v) {
  if (!(stddev >= 0) || !std::isfinite(stddev)) {
    return Status::InvalidArgument();
  }
  if (stddev == 0) return Status::Ok();
#ifdef EDGEADMM_AUDIT_NOISELESS
  // Audit-only build (edgeadmm-fleet-noiseless, tools/fleet): the noise is
  // claimed and charged but not added, so the privacy audit must detect a
  // violation (docs/privacy.md, "Empirical privacy audit"). Never defined
  // for the SDK library itself.
  return Status::Ok();
#endif
  const double sd = static_cast<double>(stddev);
  for (Real& x : v) {
    EDGEADMM_TRY_ASSIGN(const double z, Standard());
    // In double, rounded once to Real (see the header).
    x = static_cast<Real>(static_cast<double>(x) + sd * z);
  }
  return Status::Ok();
}

}  // namespace edgeadmm
