#include "edgeadmm/privacy/policy.h"

#include <cmath>

#include "gtest/gtest.h"
#include "test_rounds.h"

namespace edgeadmm::privacy {
namespace {

RoundDescriptor Round(std::vector<std::string> participants) {
  return test_support::MakeRound(0, 0.5, 2.0, 3.0, 0.1,
                                 std::move(participants));
}

TEST(PolicyTest, ParticipationChargesGaussianWithAggregatedNoise) {
  const auto m =
      ChargedMechanism(Policy::kParticipation, Round({"a", "b", "c", "d"}));
  ASSERT_TRUE(m.ok()) << m.error().ToString();
  EXPECT_EQ(m->kind, MechanismKind::kGaussian);
  EXPECT_EQ(m->neighbouring, Neighbouring::kZeroOut);
  EXPECT_DOUBLE_EQ(m->sensitivity, 2.0 * 0.5 * 2.0);  // 2 lambda C
  EXPECT_DOUBLE_EQ(m->noise_std,
                   0.5 * 3.0 * std::sqrt(4.0));  // lambda sigma sqrt(m)
}

TEST(PolicyTest, TrustedAggregatorChargesPoissonSubsampledGaussian) {
  const auto m = ChargedMechanism(Policy::kTrustedAggregator, Round({}));
  ASSERT_TRUE(m.ok()) << m.error().ToString();
  EXPECT_EQ(m->kind, MechanismKind::kPoissonSubsampledGaussian);
  EXPECT_EQ(m->neighbouring, Neighbouring::kAddRemove);
  EXPECT_DOUBLE_EQ(m->sensitivity, 2.0);
  EXPECT_DOUBLE_EQ(m->noise_std, 1.5);
  EXPECT_DOUBLE_EQ(m->sampling_rate, 0.1);
}

TEST(PolicyTest, LocalDpChargesReplaceOneGaussian) {
  const auto m = ChargedMechanism(Policy::kLocalDp, Round({"a"}));
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->neighbouring, Neighbouring::kReplaceOne);
  EXPECT_DOUBLE_EQ(m->sensitivity, 4.0 * 0.5 * 2.0);  // 4 lambda C
  EXPECT_DOUBLE_EQ(m->noise_std, 1.5);                // lambda sigma
}

TEST(PolicyTest, ParticipationOwnNoiseCountsOnlyTheDevicesNoise) {
  const auto m =
      ChargedMechanism(Policy::kParticipationOwnNoise, Round({"a", "b", "c"}));
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->kind, MechanismKind::kGaussian);
  EXPECT_EQ(m->neighbouring, Neighbouring::kZeroOut);
  EXPECT_DOUBLE_EQ(m->sensitivity, 2.0);  // 2 lambda C
  EXPECT_DOUBLE_EQ(m->noise_std, 1.5);    // lambda sigma, no sqrt(m)
  EXPECT_EQ(ParsePolicy("participation-own-noise").value(),
            Policy::kParticipationOwnNoise);
}

TEST(PolicyTest, TrustedAggregatorWithFullCohortIsThePlainGaussian) {
  RoundDescriptor round = Round({});
  round.sampling_rate = 1.0;
  const auto m = ChargedMechanism(Policy::kTrustedAggregator, round);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->kind, MechanismKind::kGaussian);
  EXPECT_EQ(m->neighbouring, Neighbouring::kAddRemove);
}

TEST(PolicyTest, SigmaForNoiseMultiplierInvertsTheCharge) {
  for (Policy policy : {Policy::kParticipation, Policy::kTrustedAggregator,
                        Policy::kLocalDp, Policy::kParticipationOwnNoise}) {
    RoundDescriptor round = Round({"a", "b", "c"});
    round.sigma = SigmaForNoiseMultiplier(policy, 1.7, round.clip, 3).value();
    EXPECT_NEAR(ChargedMechanism(policy, round)->NoiseMultiplier(), 1.7, 1e-12)
        << PolicyName(policy);
  }
}

TEST(PolicyTest, RefusesInconsistentRounds) {
  RoundDescriptor round = Round({"a", "b"});
  round.accepted_uploads = 3;
  EXPECT_EQ(ValidateRound(Policy::kParticipation, round).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(ValidateRound(Policy::kParticipation, Round({"a", "a"})).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(ValidateRound(Policy::kParticipation, Round({})).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(ValidateRound(Policy::kLocalDp, Round({"has space"})).code(),
            StatusCode::kInvalidArgument);
  RoundDescriptor bad_q = Round({});
  bad_q.sampling_rate = 1.5;
  EXPECT_EQ(ValidateRound(Policy::kTrustedAggregator, bad_q).code(),
            StatusCode::kInvalidArgument);
  RoundDescriptor nan_sigma = Round({"a"});
  nan_sigma.sigma = NAN;
  EXPECT_EQ(ChargedMechanism(Policy::kLocalDp, nan_sigma).error().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(ParsePolicy("trusted-aggregator").value(),
            Policy::kTrustedAggregator);
  EXPECT_FALSE(ParsePolicy("trusted").ok());
}

}  // namespace
}  // namespace edgeadmm::privacy
