// Small deterministic data sets for portable step tests (no heap, no files).
// The generator is a plain LCG: test data only, never privacy noise.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "edgeadmm/dataset_view.h"
#include "edgeadmm/real.h"

namespace edgeadmm::testing {

class Lcg {
 public:
  explicit Lcg(uint64_t seed) : state_(seed * 2862933555777941757ULL + 1) {}
  // Uniform in [-1, 1).
  Real Next() {
    state_ = state_ * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<Real>(state_ >> 11) * 0x1.0p-52 - 1.0;
  }

 private:
  uint64_t state_;
};

// kSamples × kDim features in [-1, 1) with rows scaled to norm ≤ 1, and
// labels ±1 from a fixed linear rule with some noise (or real targets for
// the squared loss when `regression` is set).
template <size_t kSamples, size_t kDim>
struct SyntheticData {
  Real features[kSamples * kDim];
  Real labels[kSamples];

  explicit SyntheticData(uint64_t seed, bool regression = false) {
    Lcg rng(seed);
    for (size_t j = 0; j < kSamples; ++j) {
      Real norm2 = 0;
      for (size_t i = 0; i < kDim; ++i) {
        features[j * kDim + i] = rng.Next();
        norm2 += features[j * kDim + i] * features[j * kDim + i];
      }
      const Real scale = 1 / std::sqrt(norm2 > 1 ? norm2 : 1);
      Real score = 0;
      for (size_t i = 0; i < kDim; ++i) {
        features[j * kDim + i] *= scale;
        score += features[j * kDim + i] * ((i % 3) - 1.0);
      }
      score += 0.3 * rng.Next();
      labels[j] = regression ? score : (score >= 0 ? 1.0 : -1.0);
    }
  }

  DatasetView View() const {
    return DatasetView::Create(Span<const Real>(features, kSamples * kDim),
                               Span<const Real>(labels, kSamples), kSamples,
                               kDim)
        .value();
  }
};

}  // namespace edgeadmm::testing
