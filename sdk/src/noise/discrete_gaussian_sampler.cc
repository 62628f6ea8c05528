#include "edgeadmm/discrete_gaussian_sampler.h"

#include <cmath>

#include "mbedtls/platform_util.h"
#include "wide_uint.h"

namespace edgeadmm {
namespace {

constexpr uint64_t kInt64Max = 0x7fffffffffffffffu;

uint64_t Gcd(uint64_t a, uint64_t b) {
  while (b != 0) {
    const uint64_t r = a % b;
    a = b;
    b = r;
  }
  return a;
}

// ⌊sqrt(n)⌋ by bisection (integer only).
uint64_t IntegerSqrt(uint64_t n) {
  uint64_t lo = 0, hi = 0xffffffffu;  // ⌊sqrt(2^64 − 1)⌋ = 2^32 − 1
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo + 1) / 2;
    if (mid * mid <= n) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return lo;
}

// Bits needed for values 0..n−1 (n ≥ 2).
int BitsBelow(uint64_t n) { return 64 - __builtin_clzll(n - 1); }

}  // namespace

Result<DiscreteGaussian> DiscreteGaussian::Create(uint64_t num, uint64_t den) {
  if (num == 0 || den == 0) return Status::InvalidArgument();
  const uint64_t g = Gcd(num, den);
  DiscreteGaussian p;
  p.num_ = num / g;
  p.den_ = den / g;
  // t = ⌊σ⌋ + 1 (CKS Alg. 3); ⌊sqrt(num/den)⌋ = ⌊sqrt(⌊num/den⌋)⌋.
  p.t_ = IntegerSqrt(p.num_ / p.den_) + 1;
  uint64_t t2, num_den, half;
  if (__builtin_mul_overflow(p.den_, p.t_, &p.den_t_) ||
      __builtin_mul_overflow(p.t_, p.t_, &t2) ||
      __builtin_mul_overflow(p.num_, p.den_, &num_den) ||
      __builtin_mul_overflow(num_den, t2, &half) ||
      __builtin_mul_overflow(half, uint64_t{2}, &p.gamma_den_)) {
    return Status::OutOfRange();
  }
  // |k|·den·t ≤ 2^63 − 1 and num < 2^63 (2·num ≤ gamma_den), so the γ
  // numerator |k·den·t − num| is below 2^63 and its square below 2^126.
  p.max_magnitude_ = kInt64Max / p.den_t_;
  return p;
}

Result<DiscreteGaussian> DiscreteGaussian::FromStddev(uint64_t p, uint64_t q) {
  if (p == 0 || q == 0) return Status::InvalidArgument();
  if (p > 0xffffffffu || q > 0xffffffffu) return Status::OutOfRange();
  return Create(p * p, q * q);
}

DiscreteGaussianSampler::DiscreteGaussianSampler(RandomByteSource& source)
    : source_(source) {}

DiscreteGaussianSampler::~DiscreteGaussianSampler() { Discard(); }

void DiscreteGaussianSampler::Discard() {
  mbedtls_platform_zeroize(buffer_, sizeof(buffer_));
  buffer_used_ = kBufferBytes;
}

Result<uint64_t> DiscreteGaussianSampler::NextBytes(size_t count) {
  uint64_t value = 0;
  for (size_t i = 0; i < count; ++i) {
    if (buffer_used_ == kBufferBytes) {
      EDGEADMM_TRY(source_.Generate(
          ByteSpan(reinterpret_cast<std::byte*>(buffer_), sizeof(buffer_))));
      buffer_used_ = 0;
    }
    value |= static_cast<uint64_t>(buffer_[buffer_used_]) << (8 * i);
    buffer_[buffer_used_++] = 0;
  }
  return value;
}

Result<uint64_t> DiscreteGaussianSampler::UniformBelow(uint64_t n) {
  if (n == 0) return Status::InvalidArgument();
  if (n == 1) return uint64_t{0};
  const int bits = BitsBelow(n);
  const uint64_t mask = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  while (true) {  // rejection: accepts with probability n / 2^bits > 1/2
    EDGEADMM_TRY_ASSIGN(uint64_t w, NextBytes((bits + 7) / 8));
    w &= mask;
    if (w < n) return w;
  }
}

Result<bool> DiscreteGaussianSampler::Bernoulli(uint64_t n, uint64_t d) {
  if (d == 0 || n > d) return Status::InvalidArgument();
  if (n == 0) return false;
  if (n == d) return true;
  EDGEADMM_TRY_ASSIGN(uint64_t u, UniformBelow(d));
  return u < n;
}

Result<bool> DiscreteGaussianSampler::BernoulliExpAtMostOne(uint64_t r,
                                                            uint64_t d) {
  // CKS Alg. 1 for γ = r/d ∈ [0, 1]: P(K > k) = γ^k/k!, so
  // P(K odd) = Σ_k (−γ)^k/k! = exp(−γ).
  uint64_t k = 1;
  while (true) {
    EDGEADMM_TRY_ASSIGN(const bool a, Bernoulli(r, d));
    if (!a) break;
    EDGEADMM_TRY_ASSIGN(const uint64_t u, UniformBelow(k));  // Bern(1/K)
    if (u != 0) break;
    ++k;
  }
  return (k & 1u) == 1u;
}

Result<bool> DiscreteGaussianSampler::BernoulliExpSplit(uint64_t q_hi,
                                                        uint64_t q_lo,
                                                        uint64_t r,
                                                        uint64_t d) {
  // CKS Alg. 1, γ > 1: exp(−γ) = exp(−1)^⌊γ⌋ · exp(−(γ − ⌊γ⌋)).
  while (q_hi != 0 || q_lo != 0) {
    EDGEADMM_TRY_ASSIGN(const bool b, BernoulliExpAtMostOne(1, 1));
    if (!b) return false;
    if (q_lo-- == 0) --q_hi;
  }
  return BernoulliExpAtMostOne(r, d);
}

Result<bool> DiscreteGaussianSampler::BernoulliExp(uint64_t n, uint64_t d) {
  if (d == 0) return Status::InvalidArgument();
  return BernoulliExpSplit(0, n / d, n % d, d);
}

Result<int64_t> DiscreteGaussianSampler::Laplace(uint64_t s, uint64_t t,
                                                 uint64_t x_max) {
  // CKS Alg. 2. W = U + t·V must stay ≤ w_max = s·x_max + s − 1 (so that
  // ⌊W/s⌋ ≤ x_max); callers keep w_max below 2^64.
  const uint64_t w_max = s * x_max + (s - 1);
  while (true) {
    EDGEADMM_TRY_ASSIGN(const uint64_t u, UniformBelow(t));
    EDGEADMM_TRY_ASSIGN(const bool d, BernoulliExp(u, t));
    if (!d) continue;
    // V ~ Geometric: the number of Bernoulli(exp(−1)) successes.
    uint64_t w = u;
    bool too_large = false;
    while (true) {
      EDGEADMM_TRY_ASSIGN(const bool a, BernoulliExpAtMostOne(1, 1));
      if (!a) break;
      if (w_max - w < t) {  // W + t would pass w_max: restart
        too_large = true;
        break;
      }
      w += t;
    }
    if (too_large) continue;
    const uint64_t x = w / s;
    EDGEADMM_TRY_ASSIGN(const uint64_t sign, UniformBelow(2));
    if (sign == 1 && x == 0) continue;  // −0 would count 0 twice
    return sign == 1 ? -static_cast<int64_t>(x) : static_cast<int64_t>(x);
  }
}

Result<int64_t> DiscreteGaussianSampler::DiscreteLaplace(uint64_t s,
                                                         uint64_t t) {
  if (s == 0 || t == 0 || t > kInt64Max) return Status::InvalidArgument();
  // Largest x_max ≤ 2^63 − 1 with s·x_max + s − 1 < 2^64.
  uint64_t x_max = (~uint64_t{0} - (s - 1)) / s;
  if (x_max > kInt64Max) x_max = kInt64Max;
  return Laplace(s, t, x_max);
}

Result<int64_t> DiscreteGaussianSampler::Sample(const DiscreteGaussian& noise) {
  while (true) {
    // CKS Alg. 3: Y ~ Lap_Z(t), accepted with probability
    // exp(−(|Y| − σ²/t)²/(2σ²)) = exp(−(|Y|·den·t − num)²/(2·num·den·t²)).
    EDGEADMM_TRY_ASSIGN(const int64_t y,
                        Laplace(1, noise.t(), noise.max_magnitude()));
    const uint64_t x =
        y < 0 ? static_cast<uint64_t>(-y) : static_cast<uint64_t>(y);
    const uint64_t xt = x * noise.den_t();  // ≤ 2^63 − 1 (max_magnitude)
    const uint64_t a = xt >= noise.num() ? xt - noise.num() : noise.num() - xt;
    wide::Uint128 q;
    uint64_t r;
    wide::DivMod(wide::Multiply(a, a), noise.gamma_den(), &q, &r);
    EDGEADMM_TRY_ASSIGN(const bool c,
                        BernoulliExpSplit(q.hi, q.lo, r, noise.gamma_den()));
    if (c) return y;
  }
}

Status DiscreteGaussianSampler::Sample(const DiscreteGaussian& noise,
                                       Span<int64_t> out) {
  for (size_t i = 0; i < out.size(); ++i) {
    EDGEADMM_TRY_ASSIGN(out[i], Sample(noise));
  }
  return Status::Ok();
}

Status DiscreteGaussianSampler::SampleOnGrid(const DiscreteGaussian& noise,
                                             Real step, Span<Real> out) {
  if (!(step > 0) || !std::isfinite(step)) return Status::InvalidArgument();
  for (size_t i = 0; i < out.size(); ++i) {
    EDGEADMM_TRY_ASSIGN(const int64_t k, Sample(noise));
    out[i] = step * static_cast<Real>(k);
  }
  return Status::Ok();
}

}  // namespace edgeadmm
