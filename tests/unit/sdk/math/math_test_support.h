// Test helpers for the SDK math tests: a deterministic generator (no
// <random>, so the same tests run on a Cortex-M), synthetic data sets in
// static storage, and a KKT residual computed from scratch (no SDK code).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "edgeadmm/dataset_view.h"
#include "edgeadmm/loss.h"
#include "edgeadmm/real.h"

namespace edgeadmm {
namespace math_testing {

// SplitMix64: a small, well-mixed deterministic sequence.
class TestRng {
 public:
  explicit TestRng(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, 1).
  Real Uniform() { return static_cast<Real>(Next() >> 11) * 0x1.0p-53; }
  // Uniform in [lo, hi).
  Real Uniform(Real lo, Real hi) { return lo + (hi - lo) * Uniform(); }
  Real Sign() { return (Next() & 1) ? Real{1} : Real{-1}; }

 private:
  uint64_t state_;
};

// v_i uniform in [-scale, scale), i < n, from `seed`.
inline void FillVector(uint64_t seed, Real scale, Real* v, size_t n) {
  TestRng rng(seed);
  for (size_t i = 0; i < n; ++i) v[i] = scale * rng.Uniform(-1, 1);
}

// Synthetic records: features uniform in [-1, 1] (a fraction zeroed to look
// sparse), labels ±1 from a noisy linear rule (or real-valued for squared).
template <size_t kMaxSamples, size_t kMaxDim>
struct SyntheticData {
  Real features[kMaxSamples * kMaxDim];
  Real labels[kMaxSamples];
  size_t samples = 0;
  size_t dim = 0;

  DatasetView Fill(uint64_t seed, size_t m, size_t p, bool real_labels) {
    TestRng rng(seed);
    samples = m;
    dim = p;
    for (size_t j = 0; j < m; ++j) {
      Real score = 0;
      for (size_t i = 0; i < p; ++i) {
        const Real a = (rng.Uniform() < 0.3) ? 0 : rng.Uniform(-1, 1);
        features[j * p + i] = a;
        score += a * ((i % 3) == 0 ? 1.0 : -0.5);
      }
      score += rng.Uniform(-0.5, 0.5);
      labels[j] = real_labels ? score : (score >= 0 ? 1.0 : -1.0);
    }
    auto view = DatasetView::Create(Span<const Real>(features, m * p),
                                    Span<const Real>(labels, m), m, p);
    return view.value();
  }
};

// ∂ℓ/∂t written out again, independently of Loss::Derivative.
template <typename T>
T ReferenceDerivative(LossKind kind, T h, T t, T b) {
  switch (kind) {
    case LossKind::kLogistic:
      return -b / (1 + std::exp(b * t));
    case LossKind::kSquared:
      return t - b;
    case LossKind::kSmoothedHinge: {
      const T z = b * t;
      if (z >= 1) return 0;
      if (z <= 1 - h) return -b;
      return -b * (1 - z) / h;
    }
  }
  return 0;
}

// ||∇f(x) + (x − v)/s||₂ with f(x) = (1/m) Σ_j ℓ(a_jᵀx; b_j), from plain
// loops over the raw arrays, accumulated in T (Real, or double to evaluate a
// float32 solution's residual without float32's rounding). `scratch` holds p
// values.
template <typename T = Real>
T ReferenceKktResidual(const Real* a, const Real* b, size_t m, size_t p,
                       const Loss& loss, const Real* v, Real s, const Real* x,
                       T* scratch) {
  for (size_t i = 0; i < p; ++i) scratch[i] = (T{x[i]} - T{v[i]}) / T{s};
  for (size_t j = 0; j < m; ++j) {
    T t = 0;
    for (size_t i = 0; i < p; ++i) t += T{a[j * p + i]} * T{x[i]};
    const T d =
        ReferenceDerivative<T>(loss.kind, T{loss.smoothing}, t, T{b[j]}) /
        static_cast<T>(m);
    for (size_t i = 0; i < p; ++i) scratch[i] += d * T{a[j * p + i]};
  }
  T sum = 0;
  for (size_t i = 0; i < p; ++i) sum += scratch[i] * scratch[i];
  return std::sqrt(sum);
}

inline Real Norm(const Real* x, size_t n) {
  Real sum = 0;
  for (size_t i = 0; i < n; ++i) sum += x[i] * x[i];
  return std::sqrt(sum);
}

inline Real MaxAbsDiff(const Real* x, const Real* y, size_t n) {
  Real largest = 0;
  for (size_t i = 0; i < n; ++i) {
    largest = std::fmax(largest, std::fabs(x[i] - y[i]));
  }
  return largest;
}

// a·x in the order of the SDK's Dot (vector_ops.cc): four partial sums by
// i mod 4, combined as (s0 + s1) + (s2 + s3), then the tail in order.
inline Real DotInOrder(const Real* a, const Real* x, size_t n) {
  const size_t blocks = n - n % 4;
  Real s[4] = {0, 0, 0, 0};
  for (size_t i = 0; i < blocks; i += 4) {
    for (size_t k = 0; k < 4; ++k) s[k] += a[i + k] * x[i + k];
  }
  Real sum = (s[0] + s[1]) + (s[2] + s[3]);
  for (size_t i = blocks; i < n; ++i) sum += a[i] * x[i];
  return sum;
}

}  // namespace math_testing
}  // namespace edgeadmm
