// LedgerBook: the daemon's ledgers. The device-agreement test runs the
// daemon's own code: a change in what the daemon charges a device's local
// ledger, or in the device's DevicePrivacyLedger, breaks it.
#include "edgeadmm/rounds/ledger_book.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <unordered_map>
#include <vector>

#include "edgeadmm/device_privacy_ledger.h"
#include "edgeadmm/jobs/job_config.h"
#include "edgeadmm/privacy/gaussian_mechanism.h"
#include "edgeadmm/privacy/network_rdp.h"
#include "edgeadmm/privacy/pld_accountant.h"
#include "edgeadmm/privacy/policy.h"
#include "edgeadmm/prox_admm_step.h"
#include "edgeadmm/rounds/noise_planner.h"
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
  config.dimension = 123;
  const std::vector<std::string> devices = {"dev-1"};
  const PrivacyRoundAccountant accountant = DeviceGridAccountant();
  LedgerBook book(accountant, config, devices);
  DevicePrivacyLedger device;
  // The device charges its upload 2λClip + λη, drawn on the grid, as
  // sensitivity 4λC + g·√p (prox_admm_step.h), noise λσ.
  ProxAdmmParams params;
  params.lambda = config.lambda;
  params.clip = clip;
  params.sigma = sigma;
  const double sensitivity = params.ReplaceOneSensitivity(123);
  EXPECT_GT(sensitivity, 4 * config.lambda * clip);
  const double noise = config.lambda * sigma;
  int rounds = 0;
  for (; rounds < 1000; ++rounds) {
    const auto refuses =
        device.WouldExceed(sensitivity, noise, budget, config.delta);
    ASSERT_TRUE(refuses.ok());
    ASSERT_EQ(*refuses, !book.WithinBudget()) << "round " << rounds;
    if (*refuses) {
      std::string reason;
      EXPECT_FALSE(book.WithinBudget(&reason));
      EXPECT_NE(reason.find("the local ledger of device dev-1 (against the "
                            "gateway)"),
                std::string::npos)
          << reason;
      EXPECT_NE(reason.find("above privacy.device_budget 2"), std::string::npos)
          << reason;
      break;
    }
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
    const jobs::JobConfig config0 = ProxAdmm(policy, 1.0, clip);
    const double sigma =
        privacy::SigmaForNoiseMultiplier(
            policy, z, clip, 3, static_cast<uint64_t>(config0.max_colluders))
            .value();
    const jobs::JobConfig config = ProxAdmm(policy, sigma, clip);
    const LedgerBook book(accountant, config, devices);
    const RoundMechanism m = policy == privacy::Policy::kLocalDp
                                 ? book.LocalMechanism()
                                 : book.CentralMechanism(3);
    // Under trusted-aggregator the gateway's discrete noise is charged as
    // the continuous Gaussian at σ′ = √(σ² − (4g)²) (sum_grid.h).
    const double charged = policy == privacy::Policy::kTrustedAggregator
                               ? z * std::sqrt(1 - 0x1p-26)
                               : z;
    EXPECT_NEAR(m.noise_multiplier, charged, 1e-12)
        << privacy::PolicyName(policy);
    EXPECT_EQ(m.sampling_rate,
              policy == privacy::Policy::kTrustedAggregator ? 0.1 : 1.0);
  }
}

TEST(LedgerBookTest, ParticipationAddsTheAcceptedUploadsNoise) {
  const PrivacyRoundAccountant accountant;
  const std::vector<std::string> devices = {"a", "b", "c", "d"};
  jobs::JobConfig config = ProxAdmm(privacy::Policy::kParticipation, 3.0, 2.0);
  config.max_colluders = 0;  // no device of the cohort observes
  const LedgerBook book(accountant, config, devices);
  // ν = σ/(2C) per upload, ·√m for m accepted uploads; local: replace-one.
  EXPECT_DOUBLE_EQ(book.CentralMechanism(4).noise_multiplier, 0.75 * 2);
  EXPECT_DOUBLE_EQ(book.LocalMechanism().noise_multiplier, 0.375);
}

// A job's per-device curves are held once per distinct history of charges
// (SharedCurves): a fixed cohort of 1,000 devices holds two curves (local
// and central) after three rounds, not 2,000; each device's ε is still its
// own history's.
TEST(LedgerBookTest, DevicesWithTheSameHistoryShareTheirCurves) {
  const PrivacyRoundAccountant accountant;
  std::vector<std::string> devices;
  for (int i = 0; i < 1000; ++i) devices.push_back("d" + std::to_string(i));
  jobs::JobConfig config = ProxAdmm(privacy::Policy::kParticipation, 3.0, 2.0);
  LedgerBook book(accountant, config, devices);
  EXPECT_EQ(book.distinct_curves(), 1u);  // every ledger empty
  const auto round = [&](size_t participants) {
    std::vector<size_t> indices;
    for (size_t i = 0; i < participants; ++i) {
      book.ApplyLocal(book.PlanLocal(i));
      indices.push_back(i);
    }
    book.Apply(book.Plan(indices));
  };
  for (int k = 0; k < 3; ++k) round(devices.size());
  EXPECT_EQ(book.distinct_curves(), 2u);
  round(devices.size() / 2);  // devices 0..499 a fourth time
  EXPECT_EQ(book.distinct_curves(), 4u);
  std::vector<double> three = accountant.RoundRdp(book.LocalMechanism());
  for (double& order : three) order *= 3;
  std::vector<double> four = three;
  ComposeRdp(four, accountant.RoundRdp(book.LocalMechanism()));
  EXPECT_NEAR(book.LocalEpsilon(999), accountant.Epsilon(three, 1e-5), 1e-12);
  EXPECT_NEAR(book.LocalEpsilon(0), accountant.Epsilon(four, 1e-5), 1e-12);
  // A charge planned and dropped (its upload not stored) leaves nothing.
  { const LocalCharge dropped = book.PlanLocal(999); }
  EXPECT_EQ(book.distinct_curves(), 4u);
  EXPECT_NEAR(book.LocalEpsilon(999), accountant.Epsilon(three, 1e-5), 1e-12);
}

// docs/privacy.md, "Colluding devices": t devices of the cohort know their
// own noises, so only m_k − t of them hide a device's contribution, and
// never fewer than its own. The default observer is one co-participant.
TEST(LedgerBookTest, ParticipationLeavesOutTheColludersNoise) {
  const PrivacyRoundAccountant accountant;
  const std::vector<std::string> devices = {"a", "b", "c", "d", "e"};
  jobs::JobConfig config = ProxAdmm(privacy::Policy::kParticipation, 2.0, 1.0);
  ASSERT_EQ(config.max_colluders, 1);  // the default: one co-participant
  const double nu = 1.0;               // σ/(2C)
  for (int64_t t : {0, 1, 3, 5, 9}) {
    config.max_colluders = t;
    const LedgerBook book(accountant, config, devices);
    for (size_t m = 1; m <= 5; ++m) {
      const double unknown = static_cast<double>(
          std::max<int64_t>(static_cast<int64_t>(m) - t, 1));
      EXPECT_DOUBLE_EQ(book.CentralMechanism(m).noise_multiplier,
                       nu * std::sqrt(unknown))
          << "m " << m << " t " << t;
    }
  }
  // The old charge (t = 0) is below the charge against one co-participant:
  // 40 rounds of 5 uploads at ν = 1 (the example).
  config.sigma = 2.0;
  std::vector<double> eps;
  for (int64_t t : {0, 1, 3}) {
    config.max_colluders = t;
    LedgerBook book(accountant, config, devices);
    for (int r = 0; r < 40; ++r) book.Apply(book.Plan({0, 1, 2, 3, 4}));
    eps.push_back(book.central_epsilon());
  }
  EXPECT_LT(eps[0], eps[1]);
  EXPECT_LT(eps[1], eps[2]);
}

// Trusted-aggregator uploads carry no device noise: against the gateway the
// local ledger is +inf, and a device with a finite lifetime budget is kept
// out (docs/privacy.md, "Local ε").
TEST(LedgerBookTest, TrustedAggregatorLocalLedgerIsUnbounded) {
  const PrivacyRoundAccountant accountant;
  const std::vector<std::string> devices = {"a"};
  const jobs::JobConfig config =
      ProxAdmm(privacy::Policy::kTrustedAggregator, 3.0, 1.0);
  LedgerBook book(accountant, config, devices);
  EXPECT_EQ(book.LocalMechanism().noise_multiplier, 0.0);
  EXPECT_TRUE(std::isfinite(book.LocalEpsilon(0)));  // nothing uploaded yet
  // A finite lifetime budget keeps the device out of such a job.
  constexpr registry::LifetimeLedger kLocal = registry::LifetimeLedger::kLocal;
  book.SetLifetime(
      kLocal, 0,
      {*privacy::RdpFilter::Create(accountant.orders(), 1000.0, 1e-5),
       std::vector<double>(accountant.order_count(), 0.0)});
  registry::LifetimeLedger refused = registry::LifetimeLedger::kCentral;
  EXPECT_FALSE(book.LifetimeAllows(0, &refused));
  EXPECT_EQ(refused, kLocal);
  EXPECT_TRUE(std::isinf(book.NextLifetimeEpsilon(kLocal, 0)));
  book.ClearLifetime(kLocal, 0);
  EXPECT_TRUE(book.LifetimeAllows(0));
  book.ApplyLocal(book.PlanLocal(0));
  EXPECT_TRUE(std::isinf(book.LocalEpsilon(0)));
  // The central ledger stays finite: the gateway's own noise on the sum.
  book.Apply(book.Plan({0}));
  EXPECT_TRUE(std::isfinite(book.central_epsilon()));
  EXPECT_GT(book.central_epsilon(), 0.0);
}

// A commit writes each participant's central curve and the worst device's
// curve as "central"; the others' ledgers do not move.
TEST(LedgerBookTest, RowsChargeOnlyTheParticipants) {
  const PrivacyRoundAccountant accountant;
  const std::vector<std::string> devices = {"a", "b", "c"};
  jobs::JobConfig config = ProxAdmm(privacy::Policy::kParticipation, 4.0, 1.0);
  config.max_colluders = 0;  // the √m_k arithmetic below
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
  pld_config.max_colluders = 0;  // the √m_k arithmetic below
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
  config.dimension = 123;
  LedgerBook book(accountant, config, devices);
  for (int k = 0; k < 3; ++k) book.Apply(book.Plan({0}));
  privacy::PldAccountant reference;
  // ν = σ/(2C) = 1.5, the gateway's sum rounded to g = λσ/2^15 (p = 123):
  // sensitivity 2λC + g·√p, and the continuous bridge's σ′ = √(σ² − (4g)²)
  // (sum_grid.h), i.e. ν·√(1 − 2^-26)/(1 + ν·√123/2^15).
  const double nu =
      1.5 * std::sqrt(1 - 0x1p-26) / (1 + 1.5 * std::sqrt(123.0) / 32768);
  EXPECT_NEAR(book.CentralMechanism(0).noise_multiplier, nu, 1e-12);
  ASSERT_TRUE(reference.Compose(config.q, nu, 3).ok());
  EXPECT_NEAR(book.central_epsilon(), reference.Epsilon(1e-5).value(), 1e-9);
}

// A PARSED trusted-aggregator job (Resolve and validation run) asking for
// pld keeps it: its rows say "pld" and its central ε is the PLD of its
// rounds, below the RDP conversion of the same curve. A parsed participation
// job asking for pld converts by RDP (its devices' grid noise is summed).
TEST(LedgerBookTest, ParsedTrustedAggregatorJobConvertsByPld) {
  const PrivacyRoundAccountant accountant;
  const std::vector<std::string> devices = {"a", "b"};
  const auto parse = [](const std::string& policy,
                        const std::string& sampling) {
    return jobs::ParseJobConfig(testing::JobToml(
        "j", "prox-admm",
        testing::PrivacyTableWithPolicy(policy, "accountant = \"pld\""),
        sampling));
  };
  auto trusted = parse("trusted-aggregator",
                       "[sampling]\nscheme = \"poisson\"\nq = 0.1\n"
                       "m_min = 0\ndeadline_seconds = 10\n");
  ASSERT_TRUE(trusted.ok()) << trusted.error().ToString();
  jobs::JobConfig rdp_config = *trusted;
  rdp_config.accountant = jobs::CentralAccountant::kRdp;
  LedgerBook pld(accountant, *trusted, devices);
  LedgerBook rdp(accountant, rdp_config, devices);
  EXPECT_EQ(pld.central_conversion(), privacy::Conversion::kPld);
  constexpr int kRounds = 20;
  for (int k = 0; k < kRounds; ++k) {
    for (LedgerBook* book : {&pld, &rdp}) {
      LedgerCharge charge = book->Plan({0});
      for (const LedgerRowRef& row : book->Rows(charge)) {
        EXPECT_STREQ(row.conversion, book == &pld ? "pld" : "improved");
      }
      book->Apply(std::move(charge));
    }
  }
  privacy::PldAccountant reference;
  ASSERT_TRUE(
      reference.Compose(0.1, pld.CentralMechanism(0).noise_multiplier, kRounds)
          .ok());
  std::printf(
      "trusted-aggregator, nu %.6f, q 0.1, %d rounds: pld %.4f, "
      "rdp %.4f\n",
      pld.CentralMechanism(0).noise_multiplier, kRounds, pld.central_epsilon(),
      rdp.central_epsilon());
  EXPECT_NEAR(pld.central_epsilon(), reference.Epsilon(1e-5).value(), 1e-9);
  EXPECT_LT(pld.central_epsilon(), 0.95 * rdp.central_epsilon());
  auto participation = parse("participation", testing::DefaultSamplingTable());
  ASSERT_TRUE(participation.ok()) << participation.error().ToString();
  EXPECT_EQ(participation->accountant, jobs::CentralAccountant::kRdp);
  LedgerBook forced(accountant, *participation, devices);
  EXPECT_EQ(forced.central_conversion(), privacy::Conversion::kImproved);
}

// random-walk-admm: each accepted visit charges its device's central ledger
// the device's LOCAL curve (replace-one Gaussian, ν = σ/(4C)), the bound
// that holds against the gateway and against a device's real view (which
// has step counts, unlike paper 002 Def. 3's). The recorded ε of device a
// must equal the local RDP curve's conversion for its K_a visits, recomputed
// here from the formula, and be at least the network value (Thm. 4,
// corrected, min with the local Gaussian) that is only reported. With
// n = 5 and K_a = 20 the network value is strictly smaller (7.54 against
// 9.37): an accountant that charged min(network, local) fails here.
TEST(LedgerBookTest, RandomWalkChargesTheLocalCurveNotTheNetworkOne) {
  const PrivacyRoundAccountant accountant;
  const std::vector<std::string> devices = {"a", "b", "c", "d", "e"};
  jobs::JobConfig config =
      ProxAdmm(privacy::Policy::kParticipationOwnNoise, 10.0, 1.0);
  config.algorithm = AlgorithmKind::kRandomWalkAdmm;
  // Not what RandomWalkAdmm::Resolve sets: the central ledgers still convert
  // as the local ones (no PLD reading of them).
  config.accountant = jobs::CentralAccountant::kPld;
  LedgerBook book(accountant, config, devices);
  EXPECT_EQ(book.central_conversion(), accountant.conversion());
  constexpr int kVisits = 20;
  for (int k = 0; k < kVisits + 1; ++k) {
    const size_t holder = k < kVisits ? 0 : 2;  // K_a = 20, K_c = 1
    book.Apply(book.Plan({holder}));
    book.ApplyLocal(book.PlanLocal(holder));
  }
  const std::vector<double>& orders = accountant.orders();
  auto convert = [&](const std::vector<double>& per_visit, double visits) {
    double best = INFINITY;
    for (size_t i = 0; i < orders.size(); ++i) {
      const double a = orders[i];
      best = std::min(best, visits * per_visit[i] + std::log1p(-1 / a) -
                                (std::log(1e-5) + std::log(a)) / (a - 1));
    }
    return best;
  };
  std::vector<double> local_curve;  // ε_loc(α) = α/(2ν²), ν = σ/(4C) = 2.5
  for (double a : orders) local_curve.push_back(a / (2 * 2.5 * 2.5));
  const double local = convert(local_curve, kVisits);
  EXPECT_NEAR(book.LocalEpsilon(0), local, 1e-9 * local);
  // The recorded (charged, stored) ε of device a, the job's worst, is its
  // local ε.
  EXPECT_NEAR(book.central_epsilon(), local, 1e-9 * local);
  EXPECT_DOUBLE_EQ(book.central_epsilon(), book.LocalEpsilon(0));
  const double network =
      convert(privacy::RandomWalkObserverCurve(orders, 10.0, 5), kVisits);
  EXPECT_GE(book.central_epsilon(), network);
  EXPECT_LT(network, 0.9 * local);  // the two differ here
  // The budget check's worst case is one more local charge to a.
  config.central_budget = convert(local_curve, kVisits + 1) * (1 + 1e-9);
  EXPECT_TRUE(book.WithinBudget());
  config.central_budget = convert(local_curve, kVisits + 1) * (1 - 1e-9);
  std::string reason;
  EXPECT_FALSE(book.WithinBudget(&reason));
  // The end reason names the ledger, its device, observer and budget.
  EXPECT_EQ(reason.rfind("the central ledger of device a (against release "
                         "observers) would reach epsilon ",
                         0),
            0u)
      << reason;
  EXPECT_NE(reason.find("above privacy.central_budget"), std::string::npos);
}

// The network curves random-walk-admm reports (never charges) are no
// Gaussian schedule: the curve alone (+inf where the condition fails) and
// its minimum with the local Gaussian (ε_α/α not constant) both get the RDP
// conversion from the PLD reader.
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
  const int64_t job =
      testing::StartEveryoneJob(t.db(), "job", testing::DefaultPrivacyTable());
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

// dp-ftrl (a ParticipationCharge under trusted-aggregator): each participant
// is charged the tree's per-participation Gaussian on its own central
// ledger, a device at its cap is neither sampled nor counted by the budget
// check, and a reload recovers how often each device took part.
jobs::JobConfig DpFtrl(double central_budget) {
  const std::string toml =
      "[job]\nname = \"ftrl\"\nalgorithm = \"dp-ftrl\"\n"
      "loss = \"logistic\"\ndimension = 2\nrounds = 8\n"
      "[step]\ngamma = 0.5\n"
      "[privacy]\npolicy = \"trusted-aggregator\"\nclip = 1.0\n"
      "sigma = 4.0\ndelta = 1e-5\naccountant = \"rdp\"\n"
      "central_budget = " +
      std::to_string(central_budget) +
      "\ndevice_budget = inf\n"
      "[sampling]\nscheme = \"poisson\"\nq = 0.5\nm_min = 0\n"
      "deadline_seconds = 30\n"
      "[dp_ftrl]\nserver_learning_rate = 1.0\nmax_participations = 2\n";
  auto config = jobs::ParseJobConfig(toml);
  EXPECT_TRUE(config.ok()) << config.error().ToString();
  return config.ok() ? *config : jobs::JobConfig{};
}

TEST(LedgerBookTest, DpFtrlChargesEachParticipationUpToItsCap) {
  const PrivacyRoundAccountant accountant;
  const std::vector<std::string> devices = {"a", "b", "c"};
  // 8 rounds, k = 2: ν = σ/((C + g·√p)·sqrt(B(2)/2)) per participation,
  // g = σ/2^15 the gateway's grid, p = 2, and σ′ = √(σ² − (4g)²):
  // 4·√(1 − 2^-26)/((1 + √2/8192)·sqrt(7)).
  const double nu = 4.0 * std::sqrt(1 - 0x1p-26) /
                    ((1 + std::sqrt(2.0) / 8192) * std::sqrt(7.0));
  auto epsilon_after = [&](int charges) {
    return accountant.Epsilon(
        accountant.RoundRdp({nu / std::sqrt(charges), 1.0}), 1e-5);
  };
  const double budget = epsilon_after(2) * 1.0001;
  const jobs::JobConfig config = DpFtrl(budget);
  LedgerBook book(accountant, config, devices);
  EXPECT_NEAR(book.CentralMechanism(7).noise_multiplier, nu, 1e-12);
  LedgerCharge first = book.Plan({0, 1});
  std::vector<std::string> scopes;
  for (const LedgerRowRef& row : book.Rows(first)) {
    scopes.push_back(std::string(row.prefix) + (row.id ? *row.id : ""));
  }
  EXPECT_EQ(scopes,
            (std::vector<std::string>{"central:a", "central:b", "central"}));
  book.Apply(std::move(first));
  book.Apply(book.Plan({0}));
  EXPECT_NEAR(book.central_epsilon(), epsilon_after(2), 1e-9);
  EXPECT_TRUE(book.ParticipationCapReached(0));
  EXPECT_FALSE(book.ParticipationCapReached(1));
  EXPECT_FALSE(book.ParticipationCapReached(2));
  // Device a would pass the budget with a third charge, but it is at its
  // cap: the check counts b's second participation only.
  std::string reason;
  EXPECT_TRUE(book.WithinBudget(&reason)) << reason;
  // The uploads are noiseless: the local ledger is +inf, and not a budget.
  EXPECT_EQ(book.LocalMechanism().noise_multiplier, 0.0);
  EXPECT_TRUE(std::isinf(book.PlanLocal(1).epsilon));
}

// The planner's σ for a dp-ftrl job (target ε, not σ) is the smallest whose
// charges, as this book makes them, keep a device at its cap of k
// participations within the target: a device charged k times ends at the
// target (to the calibrator's tolerance), and 2% less noise passes it.
TEST(LedgerBookTest, DpFtrlPlannedSigmaMeetsTheTargetAtTheCap) {
  const std::string toml =
      "[job]\nname = \"ftrl\"\nalgorithm = \"dp-ftrl\"\n"
      "loss = \"logistic\"\ndimension = 123\nrounds = 10\n"
      "[step]\ngamma = 0.5\n"
      "[privacy]\npolicy = \"trusted-aggregator\"\nclip = 1.0\n"
      "target_epsilon = 1.0\ndelta = 1e-5\ncentral_budget = 1.0\n"
      "device_budget = inf\n"
      "[sampling]\nscheme = \"poisson\"\nq = 1.0\nm_min = 0\n"
      "deadline_seconds = 30\n"
      "[dp_ftrl]\nserver_learning_rate = 1.0\nmax_participations = 10\n";
  auto parsed = jobs::ParseJobConfig(toml);
  ASSERT_TRUE(parsed.ok()) << parsed.error().ToString();
  jobs::JobConfig config = *parsed;
  const double sigma = PlanSigma(config).value();
  const PrivacyRoundAccountant accountant;
  auto epsilon_at_cap = [&](double s) {
    config.sigma = s;
    LedgerBook book(accountant, config, {"a"});
    for (int i = 0; i < 10; ++i) book.Apply(book.Plan({0}));
    EXPECT_TRUE(book.ParticipationCapReached(0));
    return book.central_epsilon();
  };
  EXPECT_LE(epsilon_at_cap(sigma), 1.0);
  EXPECT_GT(epsilon_at_cap(sigma), 0.999);
  EXPECT_GT(epsilon_at_cap(0.98 * sigma), 1.0);
}

TEST(LedgerBookTest, DpFtrlReloadKnowsWhoReachedTheCap) {
  testing::TempDatabase t;
  const std::vector<std::string> devices = testing::EnrollDevices(t.db(), 2);
  const int64_t job =
      testing::StartEveryoneJob(t.db(), "job", testing::DefaultPrivacyTable());
  const PrivacyRoundAccountant accountant;
  const jobs::JobConfig config = DpFtrl(100);
  RoundStore store(t.db(), job);
  std::unordered_map<std::string, size_t> index;
  for (size_t i = 0; i < devices.size(); ++i) index[devices[i]] = i;
  {
    LedgerBook book(accountant, config, devices);
    book.Apply(book.Plan({0, 1}));
    LedgerCharge second = book.Plan({0});
    auto stmt = t.db().Prepare(
        "INSERT INTO ledger(job_id, scope, round_id, epsilon, rdp) VALUES "
        "(?, ?, 2, 1.0, ?)");
    ASSERT_TRUE(stmt.ok());
    stmt->Bind(1, job)
        .Bind(2, "central:" + devices[0])
        .BindDoubles(3, *second.devices[0].central);
    ASSERT_TRUE(stmt->Run().ok());
  }
  LedgerBook book(accountant, config, devices);
  ASSERT_TRUE(book.Load(store, index).ok());
  EXPECT_TRUE(book.ParticipationCapReached(0));
  EXPECT_FALSE(book.ParticipationCapReached(1));
}

}  // namespace
}  // namespace edgeadmm::rounds
