#include "edgeadmm/rounds/cohort_sampler.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

namespace edgeadmm::rounds {
namespace {

jobs::JobConfig Fixed(int64_t m) {
  jobs::JobConfig c;
  c.sampling = jobs::SamplingScheme::kFixed;
  c.m = m;
  return c;
}

jobs::JobConfig Poisson(double q) {
  jobs::JobConfig c;
  c.sampling = jobs::SamplingScheme::kPoisson;
  c.q = q;
  return c;
}

std::unique_ptr<SamplingRng> Rng(uint64_t seed) {
  auto rng = SamplingRng::Create(seed);
  EXPECT_TRUE(rng.ok());
  return std::move(rng).value();
}

TEST(CohortSamplerTest, FixedDrawsExactlyMDistinctSortedIndices) {
  auto rng = Rng(0);  // kernel entropy
  for (int trial = 0; trial < 50; ++trial) {
    auto cohort = SampleCohort(Fixed(7), 20, *rng);
    ASSERT_TRUE(cohort.ok());
    ASSERT_EQ(cohort->size(), 7u);
    EXPECT_TRUE(std::is_sorted(cohort->begin(), cohort->end()));
    EXPECT_EQ(std::set<size_t>(cohort->begin(), cohort->end()).size(), 7u);
    EXPECT_LT(cohort->back(), 20u);
  }
  EXPECT_EQ(SampleCohort(Fixed(21), 20, *rng).status(),
            Status::InvalidArgument());
}

TEST(CohortSamplerTest, FixedIsUniformOverDevices) {
  auto rng = Rng(11);
  std::vector<int> hits(10, 0);
  const int trials = 4000;
  for (int t = 0; t < trials; ++t) {
    auto cohort = SampleCohort(Fixed(3), 10, *rng);
    ASSERT_TRUE(cohort.ok());
    for (size_t i : *cohort) ++hits[i];
  }
  // Each device is in a cohort with probability 3/10: binomial sd ≈ 29.
  for (int h : hits) EXPECT_NEAR(h, 1200, 6 * 29);
}

TEST(CohortSamplerTest, PoissonRateMatchesQ) {
  auto rng = Rng(12);
  auto cohort = SampleCohort(Poisson(0.1), 20000, *rng);
  ASSERT_TRUE(cohort.ok());
  // Mean 2000, sd sqrt(20000·0.1·0.9) ≈ 42.
  EXPECT_NEAR(static_cast<double>(cohort->size()), 2000.0, 6 * 42.4);
}

TEST(CohortSamplerTest, SeedMakesCohortsReproducible) {
  auto a = Rng(5);
  auto b = Rng(5);
  auto c = Rng(6);
  auto ca = SampleCohort(Fixed(10), 100, *a);
  auto cb = SampleCohort(Fixed(10), 100, *b);
  auto cc = SampleCohort(Fixed(10), 100, *c);
  ASSERT_TRUE(ca.ok() && cb.ok() && cc.ok());
  EXPECT_EQ(*ca, *cb);
  EXPECT_NE(*ca, *cc);
}

}  // namespace
}  // namespace edgeadmm::rounds
