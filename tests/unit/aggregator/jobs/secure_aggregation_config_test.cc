// ValidateJobConfig under privacy.policy "secure-aggregation": the plan of
// an accepted job, and every refusal naming its key.
#include <gtest/gtest.h>

#include <string>

#include "edgeadmm/jobs/job_config.h"
#include "edgeadmm/jobs/secure_aggregation_plan.h"
#include "test_database.h"

namespace edgeadmm::jobs {
namespace {

using testing::ReplaceOnce;
using testing::SecureAggregationJobToml;

TEST(SecureAggregationConfigTest, AcceptsSumAlgorithmsWithTheirPlan) {
  for (const char* algorithm : {"prox-admm", "dp-sgd"}) {
    auto c = ParseJobConfig(SecureAggregationJobToml("j", algorithm));
    ASSERT_TRUE(c.ok()) << algorithm << ": " << c.error().ToString();
    EXPECT_EQ(c->policy, privacy::Policy::kSecureAggregation);
    // No Gaussian sigma is planned: the devices' noise is the plan's.
    EXPECT_EQ(c->sigma, 0.0);
    EXPECT_EQ(c->m_min, 18);
    auto plan = PlanSecureAggregation(*c);
    ASSERT_TRUE(plan.ok()) << plan.error().ToString();
    EXPECT_EQ(plan->min_survivors, 18u);
    EXPECT_EQ(plan->ddg.honest_devices, 17u);  // m - D - t
    EXPECT_LE(plan->ddg.epsilon, 1.0);
    EXPECT_LE(plan->ddg.bits, 32u);
    EXPECT_GE(plan->ddg.sigma_grid, 0.5);
  }
}

struct Refusal {
  const char* from;
  const char* to;
  const char* expected;  // the start of the message: the key first
};

TEST(SecureAggregationConfigTest, EveryRefusalNamesItsKey) {
  const Refusal kCases[] = {
      {"target_epsilon = 1.0", "sigma = 1.0",
       "privacy.sigma: not under secure-aggregation"},
      {"target_epsilon = 1.0", "target_epsilon = 1.0\nsigma = 1.0",
       "privacy: give either sigma or target_epsilon"},
      {"target_epsilon = 1.0", "", "privacy.target_epsilon:"},
      {"clip = 1.0", "clip = 1.0\nnoise_in_state = true",
       "privacy.noise_in_state: must be false under secure-aggregation"},
      {"scheme = \"fixed\"\nm = 20\n", "scheme = \"poisson\"\nq = 0.5\n",
       "sampling.scheme: secure-aggregation needs fixed cohorts"},
      {"m_min = 18", "m_min = 17",
       "sampling.m_min: must be sampling.m - secure_aggregation.dropouts = "
       "18"},
      {"m_min = 18", "m_min = 19", "sampling.m_min: must be sampling.m - "},
      {"dropouts = 2", "dropouts = 19", "secure_aggregation.dropouts:"},
      {"dropouts = 2", "dropouts = -1", "secure_aggregation.dropouts:"},
      {"max_colluders = 1", "max_colluders = 18",
       "secure_aggregation.dropouts:"},
      {"dropouts = 2", "dropouts = 2\nmax_bits = 33",
       "secure_aggregation.max_bits:"},
      {"dropouts = 2", "dropouts = 2\nlog2_wrap = 0",
       "secure_aggregation.log2_wrap:"},
      {"dropouts = 2", "dropouts = 2\nphase_seconds = 0",
       "secure_aggregation.phase_seconds:"},
      {"dropouts = 2", "dropouts = 2\nneighbours = 3",
       "secure_aggregation.neighbours:"},
  };
  for (const Refusal& bad : kCases) {
    auto c = ParseJobConfig(ReplaceOnce(
        SecureAggregationJobToml("j", "prox-admm"), bad.from, bad.to));
    ASSERT_FALSE(c.ok()) << bad.to;
    const std::string error = c.error().message();
    EXPECT_EQ(error.rfind(bad.expected, 0), 0u)
        << "got \"" << error << "\" for " << bad.to;
  }
}

TEST(SecureAggregationConfigTest, RefusesAlgorithmsWithoutSumRounds) {
  // dp-admm's upload is its local model (docs/privacy.md,
  // "secure-aggregation").
  auto c = ParseJobConfig(
      SecureAggregationJobToml("j", "dp-admm") +
      "[dp_admm]\nd_w = 2.0\nstep_epsilon = 0.5\nmax_records = 4\n");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().message().rfind(
                "privacy.policy: secure-aggregation needs an algorithm", 0),
            0u)
      << c.error().message();
}

TEST(SecureAggregationConfigTest, BuiltConfigsAreRefusedTheSameWay) {
  JobConfig c = *ParseJobConfig(SecureAggregationJobToml("j", "prox-admm"));
  ASSERT_TRUE(ValidateJobConfig(c).ok());
  JobConfig with_sigma = c;
  with_sigma.sigma = 0.5;
  EXPECT_EQ(ValidateJobConfig(with_sigma).message().rfind("privacy.sigma", 0),
            0u);
  JobConfig low = c;
  low.m_min = 1;
  EXPECT_EQ(ValidateJobConfig(low).message().rfind("sampling.m_min", 0), 0u);
}

}  // namespace
}  // namespace edgeadmm::jobs
