// LedgerBook: the daemon's ledgers. The device-agreement test runs the
// daemon's own code: a change in what the daemon charges a device's local
// ledger, or in the device's DevicePrivacyLedger, breaks it.
#include "edgeadmm/rounds/ledger_book.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <unordered_map>
#include <vector>

#include "edgeadmm/device_privacy_ledger.h"
#include "edgeadmm/privacy/gaussian_mechanism.h"
#include "edgeadmm/privacy/pld_accountant.h"
#include "edgeadmm/privacy/network_rdp.h"
#include "edgeadmm/privacy/policy.h"
#include "edgeadmm/rounds/pld_round_accountant.h"
#include "edgeadmm/store/blob.h"
#include "test_database.h"

namespace edgeadmm::rounds {
namespace {

jobs::JobConfig ProxAdmm(privacy::Policy policy, double sigma, double clip) {
  jobs::JobConfig c;
  c.algorithm = AlgorithmKind::kProxAdmm;
  c.policy = policy;
  c.lambda = 0.5;
  c.sigma = sigma;
  c.clip = clip;
  c.q = 0.1;
  c.m_min = 1;
  c.delta = 1e-5;
  c.central_budget = INFINITY;
  c.device_budget = INFINITY;
  return c;
}

PrivacyRoundAccountant DeviceGridAccountant() {
  std::vector<double> orders(
      DevicePrivacyLedger::kOrders,
      DevicePrivacyLedger::kOrders + DevicePrivacyLedger::kOrderCount);
  return PrivacyRoundAccountant(privacy::Conversion::kImproved,
                                privacy::OrderGrid::Create(orders).value());
}

// The device refuses a round exactly when the daemon's budget check fails on
// the device's local ledger, and both hold the same ε after every charge.
TEST(LedgerBookTest, LocalLedgerAgreesWithTheDevicesOwnLedger) {
  const double clip = 1.0, sigma = 40.0, budget = 2.0;
  jobs::JobConfig config =
      ProxAdmm(privacy::Policy::kParticipationOwnNoise, sigma, clip);
  config.device_budget = budget;
  const std::vector<std::string> devices = {"dev-1"};
  const PrivacyRoundAccountant accountant = DeviceGridAccountant();
  LedgerBook book(accountant, config, devices);
  DevicePrivacyLedger device;
  // The device charges its upload 2λClip + λη as sensitivity 4λC, noise λσ.
  const double sensitivity = 4 * config.lambda * clip;
  const double noise = config.lambda * sigma;
  int rounds = 0;
  for (; rounds < 1000; ++rounds) {
    const auto refuses =
        device.WouldExceed(sensitivity, noise, budget, config.delta);
    ASSERT_TRUE(refuses.ok());
    ASSERT_EQ(*refuses, !book.WithinBudget()) << "round " << rounds;
    if (*refuses) break;
    ASSERT_TRUE(device.Charge(sensitivity, noise).ok());
    book.ApplyLocal(book.PlanLocal(0));
    const double daemon = book.LocalEpsilon(0);
    EXPECT_NEAR(device.Epsilon(config.delta).value(), daemon, 1e-12 * daemon);
  }
  EXPECT_GT(rounds, 1);
  EXPECT_LT(rounds, 1000);
}

// The CLI's planner (SigmaForNoiseMultiplier) inverts what the daemon
// charges under each policy.
TEST(LedgerBookTest, SigmaForNoiseMultiplierInvertsTheDaemonsCharge) {
  const PrivacyRoundAccountant accountant;
  const std::vector<std::string> devices = {"a", "b", "c"};
  const double clip = 2.0, z = 1.7;
  for (privacy::Policy policy :
       {privacy::Policy::kParticipation, privacy::Policy::kTrustedAggregator,
        privacy::Policy::kParticipationOwnNoise, privacy::Policy::kLocalDp}) {
    const double sigma =
        privacy::SigmaForNoiseMultiplier(policy, z, clip, 3).value();
    const jobs::JobConfig config = ProxAdmm(policy, sigma, clip);
    const LedgerBook book(accountant, config, devices);
    const RoundMechanism m = policy == privacy::Policy::kLocalDp
                                 ? book.LocalMechanism()
                                 : book.CentralMechanism(3);
    EXPECT_NEAR(m.noise_multiplier, z, 1e-12) << privacy::PolicyName(policy);
    EXPECT_EQ(m.sampling_rate,
              policy == privacy::Policy::kTrustedAggregator ? 0.1 : 1.0);
  }
}

TEST(LedgerBookTest, ParticipationAddsTheAcceptedUploadsNoise) {
  const PrivacyRoundAccountant accountant;
  const std::vector<std::string> devices = {"a", "b", "c", "d"};
  const jobs::JobConfig config =
      ProxAdmm(privacy::Policy::kParticipation, 3.0, 2.0);
  const LedgerBook book(accountant, config, devices);
  // ν = σ/(2C) per upload, ·√m for m accepted uploads; local: replace-one.
  EXPECT_DOUBLE_EQ(book.CentralMechanism(4).noise_multiplier, 0.75 * 2);
  EXPECT_DOUBLE_EQ(book.LocalMechanism().noise_multiplier, 0.375);
}

// A commit writes each participant's central curve and the worst device's
// curve as "central"; the others' ledgers do not move.
TEST(LedgerBookTest, RowsChargeOnlyTheParticipants) {
  const PrivacyRoundAccountant accountant;
  const std::vector<std::string> devices = {"a", "b", "c"};
  const jobs::JobConfig config =
      ProxAdmm(privacy::Policy::kParticipation, 4.0, 1.0);
  LedgerBook book(accountant, config, devices);
  book.Apply(book.Plan({0}));
  const double after_one = book.central_epsilon();
  const double untouched = book.LocalEpsilon(1);  // an empty ledger's ε
  LedgerCharge charge = book.Plan({1, 2});
  const std::vector<LedgerRowRef> rows = book.Rows(charge);
  ASSERT_EQ(rows.size(), 3u);
  std::vector<std::string> scopes;
  for (const LedgerRowRef& row : rows) {
    scopes.push_back(std::string(row.prefix) + (row.id ? *row.id : ""));
  }
  EXPECT_EQ(scopes,
            (std::vector<std::string>{"central:b", "central:c", "central"}));
  // Device a's one round alone (ν = 2) costs more than b's and c's one round
  // with two uploads' noise (ν = 2√2): "central" is a's curve and ε.
  EXPECT_EQ(rows.back().epsilon, after_one);
  book.Apply(std::move(charge));
  EXPECT_EQ(book.central_epsilon(), after_one);
  // Local ledgers are charged per accepted upload, not by the commit.
  EXPECT_EQ(book.LocalEpsilon(1), untouched);
  const LocalCharge local = book.PlanLocal(1);
  const LedgerRowRef row = book.LocalRow(local);
  EXPECT_EQ(std::string(row.prefix) + *row.id, "local:b");
  EXPECT_GT(row.epsilon, 0.0);
}

// privacy.accountant: the central ε of a pld job is the analytic Gaussian of
// the participant's rounds, below the rdp job's; local ε and the curves are
// the same in both (the device's own ledger is RDP), and every row names
// its conversion.
TEST(LedgerBookTest, PldAccountantChangesOnlyTheCentralEpsilon) {
  const PrivacyRoundAccountant accountant;
  const std::vector<std::string> devices = {"a", "b"};
  jobs::JobConfig pld_config =
      ProxAdmm(privacy::Policy::kParticipation, 4.0, 1.0);
  jobs::JobConfig rdp_config = pld_config;
  rdp_config.accountant = jobs::CentralAccountant::kRdp;
  LedgerBook pld(accountant, pld_config, devices);
  LedgerBook rdp(accountant, rdp_config, devices);
  EXPECT_EQ(pld.central_conversion(), privacy::Conversion::kPld);
  EXPECT_EQ(rdp.central_conversion(), privacy::Conversion::kImproved);
  for (const std::vector<size_t>& participants :
       {std::vector<size_t>{0, 1}, std::vector<size_t>{0}}) {
    for (LedgerBook* book : {&pld, &rdp}) {
      LedgerCharge charge = book->Plan(participants);
      const std::vector<LedgerRowRef> rows = book->Rows(charge);
      for (const LedgerRowRef& row : rows) {
        EXPECT_STREQ(row.conversion, book == &pld ? "pld" : "improved");
      }
      book->Apply(std::move(charge));
      for (size_t i : participants) book->ApplyLocal(book->PlanLocal(i));
    }
  }
  // Device a: ν = σ/(2C) = 2 per upload, rounds of 2 and 1 uploads:
  // 1/z² = 1/(2√2)² + 1/2² = 3/8.
  const double z = 1 / std::sqrt(3.0 / 8.0);
  EXPECT_NEAR(pld.central_epsilon(), privacy::GaussianEpsilon(z, 1e-5).value(),
              1e-9);
  EXPECT_LT(pld.central_epsilon(), rdp.central_epsilon());
  EXPECT_EQ(pld.LocalEpsilon(0), rdp.LocalEpsilon(0));
  EXPECT_EQ(pld.LocalEpsilon(1), rdp.LocalEpsilon(1));
  const LocalCharge local = pld.PlanLocal(0);
  EXPECT_STREQ(pld.LocalRow(local).conversion, "improved");
}

// trusted-aggregator under pld: the central ledger's k subsampled rounds are
// read back and handed to the PLD accountant (q and ν of the job).
TEST(LedgerBookTest, PldTrustedAggregatorUsesThePldOfItsRounds) {
  const PrivacyRoundAccountant accountant;
  const std::vector<std::string> devices = {"a", "b"};
  jobs::JobConfig config =
      ProxAdmm(privacy::Policy::kTrustedAggregator, 3.0, 1.0);
  config.m_min = 0;
  LedgerBook book(accountant, config, devices);
  for (int k = 0; k < 3; ++k) book.Apply(book.Plan({0}));
  privacy::PldAccountant reference;
  ASSERT_TRUE(reference.Compose(config.q, 1.5, 3).ok());  // ν = σ/(2C)
  EXPECT_DOUBLE_EQ(book.central_epsilon(), reference.Epsilon(1e-5).value());
}

// random-walk-admm: each accepted visit charges its device's central ledger
// the network curve (paper 002 Thm 4, corrected condition), K_i counted per
// device; ε is the improved RDP conversion over the orders where the
// condition holds and the local Gaussian at the others (recomputed here from
// the formulas); the local ledger is the Gaussian per upload as for
// prox-admm. With n = 5 and K_i = 3 the network curve alone (orders ≤ 4.05)
// would convert to a larger ε than the local one: the minimum never does.
TEST(LedgerBookTest, RandomWalkChargesNetworkRdpPerVisit) {
  const PrivacyRoundAccountant accountant;
  const std::vector<std::string> devices = {"a", "b", "c", "d", "e"};
  jobs::JobConfig config =
      ProxAdmm(privacy::Policy::kParticipationOwnNoise, 10.0, 1.0);
  config.algorithm = AlgorithmKind::kRandomWalkAdmm;
  config.accountant = jobs::CentralAccountant::kPld;  // must not be used
  LedgerBook book(accountant, config, devices);
  EXPECT_EQ(book.central_conversion(), privacy::Conversion::kPld);
  // Visits: a, c, a, a (K_a = 3, K_c = 1).
  for (size_t holder : {0u, 2u, 0u, 0u}) {
    LedgerCharge charge = book.Plan({holder});
    book.Apply(std::move(charge));
    book.ApplyLocal(book.PlanLocal(holder));
  }
  const std::vector<double>& orders = accountant.orders();
  auto expected = [&](double visits) {
    double best = INFINITY;
    for (double a : orders) {
      const double loc = 8 * a / 100;  // ε_loc, σ/C = 10
      const double c = (a - 1) * loc;
      // Network where the condition c ≤ 1 holds, else the local Gaussian.
      const double per_visit =
          c <= 1 ? std::min((1 + c) * loc * std::log(5.0) / 4, loc) : loc;
      const double rdp = visits * per_visit;
      best = std::min(best, rdp + std::log1p(-1 / a) -
                                (std::log(1e-5) + std::log(a)) / (a - 1));
    }
    return best;
  };
  EXPECT_NEAR(book.central_epsilon(), expected(3), 1e-9 * expected(3));
  // The budget check's worst case: one more visit to a.
  config.central_budget = expected(4) * (1 + 1e-9);
  EXPECT_TRUE(book.WithinBudget());
  config.central_budget = expected(4) * (1 - 1e-9);
  EXPECT_FALSE(book.WithinBudget());
  // Local: 3 Gaussians with ν = σ/(4C) = 2.5 against the gateway.
  const double z = 2.5 / std::sqrt(3.0);
  const double local = book.LocalEpsilon(0);
  double best = INFINITY;
  for (double a : orders) {
    best = std::min(best, a / (2 * z * z) + std::log1p(-1 / a) -
                              (std::log(1e-5) + std::log(a)) / (a - 1));
  }
  EXPECT_NEAR(local, best, 1e-9 * best);
  // Here the minimum is attained at an order > 4.05: exactly the local ε.
  EXPECT_LE(book.central_epsilon(), local * (1 + 1e-12));
}

// The curves random-walk-admm charges are no Gaussian schedule: the network
// curve alone (+inf where the condition fails) and the charged minimum with
// the local Gaussian (ε_α/α not constant) both get the RDP conversion from
// the PLD reader. The jobs are rdp jobs anyway (RandomWalkAdmm::Resolve).
TEST(LedgerBookTest, PldReaderFallsBackToRdpForANetworkCurve) {
  const PrivacyRoundAccountant rdp;
  const PldRoundAccountant pld(rdp, RoundMechanism{0, 1});
  for (std::vector<double> curve :
       {privacy::RandomWalkVisitCurve(rdp.orders(), 10.0, 50),
        privacy::RandomWalkObserverCurve(rdp.orders(), 10.0, 50)}) {
    for (double& v : curve) v *= 7;
    EXPECT_EQ(pld.Epsilon(curve, 1e-5), rdp.Epsilon(curve, 1e-5));
  }
}

TEST(LedgerBookTest, LoadRefusesALedgerOfAnotherDeviceOrLength) {
  testing::TempDatabase t;
  const std::vector<std::string> devices = testing::EnrollDevices(t.db(), 2);
  const int64_t job = testing::StartEveryoneJob(t.db(), "job", testing::DefaultPrivacyTable());
  const PrivacyRoundAccountant accountant;
  const jobs::JobConfig config =
      ProxAdmm(privacy::Policy::kParticipation, 4.0, 1.0);
  RoundStore store(t.db(), job);
  std::unordered_map<std::string, size_t> index;
  for (size_t i = 0; i < devices.size(); ++i) index[devices[i]] = i;
  auto insert = [&](const std::string& scope, size_t length) {
    auto stmt = t.db().Prepare(
        "INSERT INTO ledger(job_id, scope, round_id, epsilon, rdp) VALUES "
        "(?, ?, 1, 1.0, ?)");
    ASSERT_TRUE(stmt.ok());
    stmt->Bind(1, job).Bind(2, scope).BindDoubles(
        3, std::vector<double>(length, 0.5));
    ASSERT_TRUE(stmt->Run().ok());
  };
  {
    LedgerBook book(accountant, config, devices);
    ASSERT_TRUE(book.Load(store, index).ok());
    EXPECT_EQ(book.central_epsilon(), 0.0);
  }
  insert("local:" + devices[0], accountant.order_count());
  {
    LedgerBook book(accountant, config, devices);
    ASSERT_TRUE(book.Load(store, index).ok());
    EXPECT_GT(book.LocalEpsilon(0), 0.0);
  }
  insert("central:intruder", accountant.order_count());
  {
    LedgerBook book(accountant, config, devices);
    EXPECT_EQ(book.Load(store, index).code(), StatusCode::kDataLoss);
  }
}

}  // namespace
}  // namespace edgeadmm::rounds
