// Entropy sources for the aggregator's DRBGs (cohort sampling, central noise).
#pragma once

#include <cstdint>

#include "edgeadmm/entropy_source.h"

namespace edgeadmm::rounds {

// The kernel CSPRNG (getrandom(2)). The production source: cohorts stay
// secret because nobody can predict the DRBG.
class KernelEntropy final : public EntropySource {
 public:
  // UNAVAILABLE if getrandom fails.
  Status Read(ByteSpan out) override;
};

// A deterministic stream SHA-256(seed ‖ counter) for reproducible runs
// (tests and the reference comparison with the in-process SDK run). Cohorts
// drawn from it are predictable by anyone who knows the seed: never use it
// in production (jobs only use it when `sampling.seed` is set).
class SeededEntropy final : public EntropySource {
 public:
  explicit SeededEntropy(uint64_t seed) : seed_(seed) {}
  // Always OK.
  Status Read(ByteSpan out) override;

 private:
  uint64_t seed_;
  uint64_t counter_ = 0;
};

}  // namespace edgeadmm::rounds
