// Policy names and the planner's σ. What each policy charges is the
// daemon's LedgerBook (tests/unit/aggregator/rounds/ledger_book_test.cc,
// which also checks SigmaForNoiseMultiplier against it).
#include "edgeadmm/privacy/policy.h"

#include <cmath>
#include <string>

#include "edgeadmm/privacy/ledger_meaning.h"
#include "gtest/gtest.h"

namespace edgeadmm::privacy {
namespace {

TEST(PolicyTest, NamesRoundTrip) {
  for (Policy p : {Policy::kParticipation, Policy::kTrustedAggregator,
                   Policy::kLocalDp, Policy::kParticipationOwnNoise}) {
    EXPECT_EQ(ParsePolicy(PolicyName(p)).value(), p);
  }
  const auto unknown = ParsePolicy("trusted");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().message().find("unknown policy 'trusted'"),
            std::string::npos);
}

TEST(PolicyTest, SigmaForNoiseMultiplierPerPolicy) {
  EXPECT_DOUBLE_EQ(
      SigmaForNoiseMultiplier(Policy::kParticipation, 1.5, 2.0, 4, 0).value(),
      2.0 * 2.0 * 1.5 / 2.0);  // 2Cz/√m
  // t = 1 colluder: 2Cz/√(m − t).
  EXPECT_DOUBLE_EQ(
      SigmaForNoiseMultiplier(Policy::kParticipation, 1.5, 2.0, 4, 1).value(),
      2.0 * 2.0 * 1.5 / std::sqrt(3.0));
  EXPECT_DOUBLE_EQ(SigmaForNoiseMultiplier(Policy::kTrustedAggregator, 1.5,
                                           2.0, 4, 1)
                       .value(),
                   6.0);  // 2Cz
  EXPECT_DOUBLE_EQ(SigmaForNoiseMultiplier(Policy::kParticipationOwnNoise, 1.5,
                                           2.0, 4, 1)
                       .value(),
                   6.0);
  EXPECT_DOUBLE_EQ(
      SigmaForNoiseMultiplier(Policy::kLocalDp, 1.5, 2.0, 4, 1).value(),
      12.0);  // 4Cz
}

TEST(PolicyTest, ParticipationNoiseMultiplierNeverBelowTheOwnNoise) {
  EXPECT_DOUBLE_EQ(ParticipationNoiseMultiplier(0.5, 10, 0), 0.5 * std::sqrt(10.0));
  EXPECT_DOUBLE_EQ(ParticipationNoiseMultiplier(0.5, 10, 3), 0.5 * std::sqrt(7.0));
  EXPECT_DOUBLE_EQ(ParticipationNoiseMultiplier(0.5, 3, 3), 0.5);
  EXPECT_DOUBLE_EQ(ParticipationNoiseMultiplier(0.5, 1, 7), 0.5);
}

// The labels say what the charge assumes: the central one names t, the
// trusted-aggregator local one says there is no guarantee.
TEST(PolicyTest, LedgerLabelsNameTheColludersAndTheUnprotectedGateway) {
  const LedgerMeaning central = CentralLedgerMeaning(Policy::kParticipation, 3);
  EXPECT_NE(central.mechanism.find("sqrt(max(m_k - 3, 1))"), std::string::npos)
      << central.mechanism;
  EXPECT_NE(central.observer.find("up to 3 colluding devices"),
            std::string::npos)
      << central.observer;
  const LedgerMeaning trusted = LocalLedgerMeaning(Policy::kTrustedAggregator);
  EXPECT_NE(trusted.mechanism.find("epsilon +inf"), std::string::npos)
      << trusted.mechanism;
  EXPECT_EQ(LocalLedgerMeaning(Policy::kParticipation).mechanism.find("+inf"),
            std::string::npos);
}

TEST(PolicyTest, SigmaForNoiseMultiplierRefusesBadInput) {
  EXPECT_EQ(SigmaForNoiseMultiplier(Policy::kParticipation, 1.0, 1.0, 0, 0)
                .error()
                .code(),
            StatusCode::kInvalidArgument);
  // No more uploads than colluders: nothing hides a device but its own noise.
  const auto few = SigmaForNoiseMultiplier(Policy::kParticipation, 1.0, 1.0, 2, 2);
  ASSERT_FALSE(few.ok());
  EXPECT_NE(few.error().message().find("t = 2"), std::string::npos);
  EXPECT_EQ(SigmaForNoiseMultiplier(Policy::kLocalDp, NAN, 1.0, 1, 0)
                .error()
                .code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(SigmaForNoiseMultiplier(Policy::kLocalDp, 1.0, -1.0, 1, 0)
                .error()
                .code(),
            StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace edgeadmm::privacy
