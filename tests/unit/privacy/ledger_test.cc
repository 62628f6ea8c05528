#include "edgeadmm/privacy/ledger.h"

#include <cmath>

#include "gtest/gtest.h"
#include "test_rounds.h"

namespace edgeadmm::privacy {
namespace {

RoundDescriptor Round(uint64_t id, std::vector<std::string> participants) {
  return test_support::MakeRound(id, 0.5, 1.0, 2.0, 0.05,
                                 std::move(participants));
}

CentralLedger MakeLedger(Policy policy, double epsilon = 10.0) {
  auto ledger = CentralLedger::Create(policy, Budget{epsilon, 1e-5});
  EXPECT_TRUE(ledger.ok());
  return std::move(ledger).value();
}

TEST(LedgerTest, ParticipationChargesOnlyContributorsWithTheirRoundsNoise) {
  CentralLedger ledger = MakeLedger(Policy::kParticipation);
  ASSERT_TRUE(ledger.Charge(Round(1, {"a", "b", "c", "d"})).ok());
  ASSERT_TRUE(
      ledger.Charge(Round(2, {"a", "e", "f", "g", "h", "i", "j", "k", "l"}))
          .ok());
  ASSERT_TRUE(ledger.Charge(Round(3, {"b", "c"})).ok());

  // Device a: Gaussian noise multipliers sigma sqrt(m) / (2 C) with m = 4, 9.
  Accountant expected_a;
  Mechanism m;
  m.neighbouring = Neighbouring::kZeroOut;
  m.sensitivity = 1.0;
  m.noise_std = 2.0 * 2.0 / 2.0;
  ASSERT_TRUE(expected_a.Compose(m).ok());
  m.noise_std = 2.0 * 3.0 / 2.0;
  ASSERT_TRUE(expected_a.Compose(m).ok());
  const auto a = ledger.ReportFor("a");
  ASSERT_TRUE(a.ok());
  EXPECT_NEAR(a->epsilon,
              expected_a.Epsilon(1e-5, Conversion::kImproved)->epsilon, 1e-12);
  EXPECT_EQ(a->mechanism, "gaussian");
  EXPECT_EQ(a->neighbouring, "zero-out");
  EXPECT_EQ(a->compositions, 2u);

  // Device b took part in rounds 1 (m=4) and 3 (m=2): the least noise, so it
  // is the worst subject.
  const auto worst = ledger.Report();
  EXPECT_EQ(worst->subject, "b");
  EXPECT_EQ(worst->policy, "participation");
  EXPECT_GT(worst->epsilon, a->epsilon);
  EXPECT_EQ(ledger.ReportFor("zz").error().code(), StatusCode::kNotFound);
  EXPECT_EQ(ledger.Subjects().size(), 12u);
  EXPECT_EQ(ledger.rounds_charged(), 3u);
}

TEST(LedgerTest, TrustedAggregatorChargesOneCentralSubjectPerRound) {
  CentralLedger ledger = MakeLedger(Policy::kTrustedAggregator);
  for (uint64_t r = 1; r <= 100; ++r)
    ASSERT_TRUE(ledger.Charge(Round(r, {})).ok());
  Accountant expected;
  Mechanism m;
  m.kind = MechanismKind::kPoissonSubsampledGaussian;
  m.sampling_rate = 0.05;
  m.sensitivity = 1.0;  // 2 lambda C
  m.noise_std = 1.0;    // lambda sigma
  ASSERT_TRUE(expected.Compose(m, 100).ok());
  const auto report = ledger.Report();
  EXPECT_EQ(report->subject, "central");
  EXPECT_EQ(report->mechanism, "poisson_subsampled_gaussian");
  EXPECT_EQ(report->neighbouring, "add/remove");
  EXPECT_NEAR(report->epsilon,
              expected.Epsilon(1e-5, Conversion::kImproved)->epsilon, 1e-9);
}

TEST(LedgerTest, BudgetCheckPredictsWithoutCharging) {
  CentralLedger ledger = MakeLedger(Policy::kLocalDp, /*epsilon=*/3.0);
  uint64_t id = 0;
  int admitted = 0;
  while (true) {
    RoundDescriptor round = Round(++id, {"dev-1", "dev-2"});
    round.sigma = 20.0;  // local noise multiplier 5
    const auto check = ledger.BudgetCheck(round);
    ASSERT_TRUE(check.ok()) << check.error().ToString();
    if (!check->within_budget) {
      EXPECT_GT(check->projected.epsilon, 3.0);
      break;
    }
    ASSERT_TRUE(ledger.Charge(round).ok());
    // The check predicted exactly what charging produced.
    EXPECT_NEAR(ledger.Report()->epsilon, check->projected.epsilon, 1e-12);
    ++admitted;
    ASSERT_LT(admitted, 10000);
  }
  EXPECT_GT(admitted, 0);
  EXPECT_LE(ledger.Report()->epsilon, 3.0);
  EXPECT_EQ(ledger.rounds_charged(), static_cast<uint64_t>(admitted));
}

TEST(LedgerTest, BudgetCheckOnAPlannedCohortUsesMMin) {
  CentralLedger ledger = MakeLedger(Policy::kParticipation);
  // Planned cohort of 5, m_min = 2: each planned device is checked as if
  // only 2 uploads (the least noise) were accepted.
  RoundDescriptor planned = Round(1, {"a", "b", "c", "d", "e"});
  planned.accepted_uploads = 2;
  const auto check = ledger.BudgetCheck(planned);
  ASSERT_TRUE(check.ok()) << check.error().ToString();
  CentralLedger charged = MakeLedger(Policy::kParticipation);
  ASSERT_TRUE(charged.Charge(Round(1, {"a", "b"})).ok());
  EXPECT_NEAR(check->projected.epsilon, charged.Report()->epsilon, 1e-12);
  // A charge must name exactly the accepted devices.
  EXPECT_EQ(ledger.Charge(planned).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ledger.rounds_charged(), 0u);
}

TEST(LedgerTest, RefusesReplayedRoundsAndBadRounds) {
  CentralLedger ledger = MakeLedger(Policy::kParticipation);
  ASSERT_TRUE(ledger.Charge(Round(5, {"a"})).ok());
  EXPECT_EQ(ledger.Charge(Round(5, {"a"})).code(),
            StatusCode::kFailedPrecondition);
  EXPECT_EQ(ledger.Charge(Round(4, {"a"})).code(),
            StatusCode::kFailedPrecondition);
  RoundDescriptor bad = Round(6, {"a"});
  bad.sigma = -1.0;
  EXPECT_EQ(ledger.Charge(bad).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ledger.rounds_charged(), 1u);
  EXPECT_FALSE(
      CentralLedger::Create(Policy::kParticipation, Budget{1.0, 1.0}).ok());
  EXPECT_FALSE(
      CentralLedger::Create(Policy::kParticipation, Budget{NAN, 1e-5}).ok());
}

TEST(LedgerTest, SerializationRoundTripsExactly) {
  CentralLedger ledger = MakeLedger(Policy::kParticipation, 4.0);
  ASSERT_TRUE(ledger.Charge(Round(1, {"a", "b"})).ok());
  ASSERT_TRUE(ledger.Charge(Round(7, {"b", "c", "d"})).ok());
  const std::string text = ledger.Serialize();
  auto restored = CentralLedger::Deserialize(text);
  ASSERT_TRUE(restored.ok()) << restored.error().ToString();
  EXPECT_EQ(restored->Serialize(), text);
  EXPECT_EQ(restored->Report()->epsilon, ledger.Report()->epsilon);
  EXPECT_EQ(restored->Report()->subject, ledger.Report()->subject);
  EXPECT_EQ(restored->policy(), Policy::kParticipation);
  EXPECT_EQ(restored->budget().epsilon, 4.0);
  // The replay guard survives persistence.
  EXPECT_EQ(restored->Charge(Round(7, {"a"})).code(),
            StatusCode::kFailedPrecondition);
  EXPECT_TRUE(restored->Charge(Round(8, {"a"})).ok());
}

TEST(LedgerTest, DeserializeRefusesDamagedText) {
  CentralLedger ledger = MakeLedger(Policy::kTrustedAggregator);
  ASSERT_TRUE(ledger.Charge(Round(1, {})).ok());
  const std::string text = ledger.Serialize();
  EXPECT_EQ(CentralLedger::Deserialize(text.substr(0, text.size() / 2))
                .error()
                .code(),
            StatusCode::kDataLoss);
  EXPECT_EQ(CentralLedger::Deserialize("").error().code(),
            StatusCode::kDataLoss);
  std::string bad_policy = text;
  bad_policy.replace(bad_policy.find("trusted-aggregator"), 7, "xxxxxxx");
  EXPECT_EQ(CentralLedger::Deserialize(bad_policy).error().code(),
            StatusCode::kDataLoss);
  std::string negative = text;
  const size_t pos = negative.find("subject central 1 2 1 ") + 22;
  negative.insert(pos, "-");
  EXPECT_EQ(CentralLedger::Deserialize(negative).error().code(),
            StatusCode::kDataLoss);
}

}  // namespace
}  // namespace edgeadmm::privacy
