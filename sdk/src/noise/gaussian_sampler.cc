#include "edgeadmm/gaussian_sampler.h"

#include <cmath>

#include "mbedtls/platform_util.h"

namespace edgeadmm {
namespace {

constexpr Real kTwoPi = 6.283185307179586476925286766559;
constexpr Real kTwoToMinus53 = 1.0 / 9007199254740992.0;  // 2^-53

}  // namespace

GaussianSampler::GaussianSampler(RandomByteSource& drbg) : drbg_(drbg) {}

GaussianSampler::~GaussianSampler() {
  mbedtls_platform_zeroize(buffer_, sizeof(buffer_));
  mbedtls_platform_zeroize(&spare_, sizeof(spare_));
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

Result<Real> GaussianSampler::Uniform01() {
  uint64_t k = 0;
  while (k == 0) {
    EDGEADMM_TRY_ASSIGN(const uint64_t word, NextWord());
    k = word >> 11;  // top 53 bits
  }
  return static_cast<Real>(k) * kTwoToMinus53;
}

Result<Real> GaussianSampler::Standard() {
  if (has_spare_) {
    has_spare_ = false;
    return spare_;
  }
  // Box–Muller: (R cos θ, R sin θ), R = sqrt(−2 ln U1), θ = 2π U2.
  EDGEADMM_TRY_ASSIGN(const Real u1, Uniform01());
  EDGEADMM_TRY_ASSIGN(const Real u2, Uniform01());
  const Real radius = std::sqrt(-2.0 * std::log(u1));
  const Real angle = kTwoPi * u2;
  spare_ = radius * std::sin(angle);
  has_spare_ = true;
  return radius * std::cos(angle);
}

Status GaussianSampler::AddNoise(Real stddev, Span<Real> v) {
  if (!(stddev >= 0) || !std::isfinite(stddev)) {
    return Status::InvalidArgument();
  }
  if (stddev == 0) return Status::Ok();
  for (Real& x : v) {
    EDGEADMM_TRY_ASSIGN(const Real z, Standard());
    x += stddev * z;
  }
  return Status::Ok();
}

}  // namespace edgeadmm
