// PartyLedger: admm-sharing's per-party ledgers (docs/privacy.md,
// "admm-sharing (papers 000/003): per party"). The gateway composes each
// party's charges with its RDP accountant on the device ledger's grid; the
// tests check that against the SDK's DevicePrivacyLedger charged the same
// way and against RDP numbers computed here (α·Σ ratio²/2, improved
// conversion), the scoring phase's single combined charge, the uncovered
// releases (+inf), and that the rows survive a restart beside LedgerBook.
#include "edgeadmm/rounds/party_ledger.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <unordered_map>
#include <vector>

#include "edgeadmm/algorithms/admm_sharing_ledger.h"
#include "edgeadmm/device_privacy_ledger.h"
#include "edgeadmm/rounds/ledger_book.h"
#include "test_database.h"

namespace edgeadmm::rounds {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Rigorous shares (σ, Δ) over `rounds` iterations; Gaussian partial scores
// (σ_s, Δ_s) in the last one when score_sigma > 0.
jobs::JobConfig Sharing(int64_t rounds, double sigma, double sensitivity,
                        double score_sigma = 0, double score_sensitivity = 0) {
  jobs::JobConfig c;
  c.algorithm = AlgorithmKind::kAdmmSharing;
  c.rounds = rounds;
  c.delta = 1e-6;  // privacy.delta: not used when target_delta is given
  c.admm_sharing.parties = 2;
  c.admm_sharing.noise = jobs::SharingNoiseMode::kRigorous;
  c.admm_sharing.sigma = sigma;
  c.admm_sharing.sensitivity = sensitivity;
  c.admm_sharing.target_delta = 1e-5;
  if (score_sigma > 0) {
    c.admm_sharing.test_records = 10;
    c.admm_sharing.score_noise_given = true;
    c.admm_sharing.score_noise = jobs::SharingScoreNoise::kGaussian;
    c.admm_sharing.score_sigma = score_sigma;
    c.admm_sharing.score_sensitivity = score_sensitivity;
  }
  return c;
}

// Party 0's ε after the gateway charged iterations 1..config.rounds.
double GatewayEpsilon(const jobs::JobConfig& config,
                      const std::vector<std::string>& devices) {
  PartyLedger ledger(devices, algorithms::SharingDelta(config));
  double epsilon = 0;
  for (int64_t t = 1; t <= config.rounds; ++t) {
    double nu = -1;
    EXPECT_TRUE(algorithms::SharingPartyMechanism(config, t, nu));
    PartyCharge charge = ledger.Plan(0, nu);
    epsilon = charge.epsilon;
    ledger.Apply(std::move(charge));
  }
  return epsilon;
}

// Independent: RDP of Gaussians, α·Σ_k r_k²/2 (Mironov 2017, Prop. 7, 1),
// at every order of the device grid, improved conversion (Canonne, Kamath,
// Steinke 2020, Prop. 12) minimised over the grid.
double IndependentEpsilon(double sum_of_squared_ratios, double delta) {
  double best = kInf;
  for (size_t i = 0; i < DevicePrivacyLedger::kOrderCount; ++i) {
    const double a = DevicePrivacyLedger::kOrders[i];
    const double eps = a * sum_of_squared_ratios / 2 + std::log1p(-1 / a) -
                       (std::log(delta) + std::log(a)) / (a - 1);
    best = std::min(best, eps);
  }
  return best;
}

const std::vector<std::string> kDevices = {"dev-000", "dev-001"};

TEST(PartyLedgerTest, CompositionMatchesTheDeviceLedgerAndIndependentRdp) {
  // (T, σ, Δ): the fleet test's ratio 0.1, a small one whose optimum is at
  // the grid's end (α = 256), and a large one.
  const struct {
    int64_t rounds;
    double sigma, sensitivity;
  } cases[] = {{30, 1e-2, 1e-3}, {20, 1.0, 1e-3}, {5, 1.0, 2.0}};
  for (const auto& k : cases) {
    const jobs::JobConfig config = Sharing(k.rounds, k.sigma, k.sensitivity);
    const double gateway = GatewayEpsilon(config, kDevices);
    DevicePrivacyLedger device;
    for (int64_t t = 0; t < k.rounds; ++t) {
      ASSERT_TRUE(device.Charge(k.sensitivity, k.sigma).ok());
    }
    const double on_device = device.Epsilon(1e-5).value();
    const double r = k.sensitivity / k.sigma;
    const double independent =
        IndependentEpsilon(static_cast<double>(k.rounds) * r * r, 1e-5);
    EXPECT_NEAR(gateway, on_device, 1e-9 * on_device) << k.sigma;
    EXPECT_NEAR(gateway, independent, 1e-12 * independent) << k.sigma;
    EXPECT_GT(gateway, 0);
  }
}

TEST(PartyLedgerTest, TheScoringPhaseIsOneCombinedCharge) {
  const jobs::JobConfig config = Sharing(30, 1e-2, 1e-3, 2e-2, 1e-3);
  double nu = 0;
  ASSERT_TRUE(algorithms::SharingPartyMechanism(config, 29, nu));
  EXPECT_DOUBLE_EQ(nu, 10.0);  // σ/Δ: a share alone
  ASSERT_TRUE(algorithms::SharingPartyMechanism(config, 30, nu));
  // 1/√((Δ/σ)² + (Δ_s/σ_s)²) = 1/√(0.01 + 0.0025)
  EXPECT_DOUBLE_EQ(nu, 1 / std::sqrt(0.0125));
  const double gateway = GatewayEpsilon(config, kDevices);
  // The device charges the last step once with the combined ratio.
  DevicePrivacyLedger device;
  for (int t = 0; t < 29; ++t) ASSERT_TRUE(device.Charge(1e-3, 1e-2).ok());
  ASSERT_TRUE(device.Charge(std::sqrt(0.0125), 1).ok());
  const double on_device = device.Epsilon(1e-5).value();
  EXPECT_NEAR(gateway, on_device, 1e-9 * on_device);
  EXPECT_NEAR(gateway, IndependentEpsilon(29 * 0.01 + 0.0125, 1e-5),
              1e-12 * gateway);
  // The scores cost something: above the 30 shares alone.
  EXPECT_GT(gateway, GatewayEpsilon(Sharing(30, 1e-2, 1e-3), kDevices));
}

TEST(PartyLedgerTest, UncoveredReleasesAreInfinite) {
  jobs::JobConfig none = Sharing(3, 1e-2, 1e-3);
  none.admm_sharing.noise = jobs::SharingNoiseMode::kNone;
  EXPECT_EQ(GatewayEpsilon(none, kDevices), kInf);
  EXPECT_NE(
      algorithms::DescribeSharingLedger(none).status.find("uncovered release"),
      std::string::npos);
  // Exact partial scores: finite until the last iteration, then +inf.
  jobs::JobConfig exact = Sharing(3, 1e-2, 1e-3, 1, 1);
  exact.admm_sharing.score_noise = jobs::SharingScoreNoise::kExact;
  EXPECT_EQ(GatewayEpsilon(exact, kDevices), kInf);
  exact.rounds = 2;
  exact.admm_sharing.test_records = 0;
  EXPECT_TRUE(std::isfinite(GatewayEpsilon(exact, kDevices)));
  exact.admm_sharing.test_records = 10;
  EXPECT_NE(
      algorithms::DescribeSharingLedger(exact).status.find("uncovered release"),
      std::string::npos);
  // Paper mode: the gateway has no bound of its own and says why.
  jobs::JobConfig paper = Sharing(3, 1e-2, 1e-3);
  paper.admm_sharing.noise = jobs::SharingNoiseMode::kPaper;
  EXPECT_EQ(GatewayEpsilon(paper, kDevices), kInf);
  EXPECT_NE(algorithms::DescribeSharingLedger(paper).status.find(
                "not charged by the gateway ledger"),
            std::string::npos);
}

TEST(PartyLedgerTest, RowsSurviveARestartBesideTheLedgerBook) {
  testing::TempDatabase t;
  const std::vector<std::string> devices = testing::EnrollDevices(t.db(), 2);
  const int64_t job =
      testing::StartEveryoneJob(t.db(), "job", testing::DefaultPrivacyTable());
  RoundStore store(t.db(), job);
  std::unordered_map<std::string, size_t> index;
  for (size_t i = 0; i < devices.size(); ++i) index[devices[i]] = i;
  for (int64_t round : {1, 2}) {
    const Result<bool> opened = store.InsertOpenRound(round, 2, 0, 0);
    ASSERT_TRUE(opened.ok() && *opened);
  }
  ReportedLedger reported{true, 1, 0.25, 1e-5, "improved"};
  {
    PartyLedger ledger(devices, 1e-5);
    const std::vector<uint8_t> payload(12, 0);
    for (int64_t round : {1, 2}) {
      PartyCharge charge = ledger.Plan(1, 10.0);
      // The party row alone, with the device's upload of the round.
      ASSERT_TRUE(store
                      .InsertAcceptedUpload(
                          round, ledger.Row(charge, &reported), nullptr,
                          {&devices[1], &payload, 0, &payload})
                      .ok());
      ledger.Apply(std::move(charge));
    }
  }
  auto count = t.db().Prepare(
      "SELECT count(*) FROM ledger WHERE scope = ? AND reported_epsilon = "
      "0.25 AND reported_delta = 1e-5 AND reported_participations = 1 AND "
      "reported_conversion = 'improved'");
  ASSERT_TRUE(count.ok());
  count->Bind(1, "party:" + devices[1]);
  ASSERT_TRUE(count->StepRow().ok());
  EXPECT_EQ(count->ColumnInt(0), 2);
  // After a restart the third charge composes on the stored two.
  PartyLedger again(devices, 1e-5);
  ASSERT_TRUE(again.Load(store, index).ok());
  const double third = again.Plan(1, 10.0).epsilon;
  DevicePrivacyLedger device;
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(device.Charge(0.1, 1).ok());
  EXPECT_NEAR(third, device.Epsilon(1e-5).value(), 1e-9 * third);
  EXPECT_EQ(again.Plan(0, 10.0).epsilon,
            PartyLedger(devices, 1e-5).Plan(0, 10.0).epsilon);
  // The generic book ignores the party rows (another grid).
  const PrivacyRoundAccountant accountant;
  jobs::JobConfig config;
  config.delta = 1e-5;
  config.sigma = 0;
  config.central_budget = kInf;
  config.device_budget = kInf;
  LedgerBook book(accountant, config, devices);
  EXPECT_TRUE(book.Load(store, index).ok());
  // A party row of another job's device is refused.
  auto stmt = t.db().Prepare(
      "INSERT INTO ledger(job_id, scope, round_id, epsilon, rdp) VALUES "
      "(?, 'party:intruder', 1, 1.0, ?)");
  ASSERT_TRUE(stmt.ok());
  stmt->Bind(1, job).BindDoubles(
      2, std::vector<double>(DevicePrivacyLedger::kOrderCount, 0.5));
  ASSERT_TRUE(stmt->Run().ok());
  PartyLedger refused(devices, 1e-5);
  EXPECT_EQ(refused.Load(store, index).code(), StatusCode::kDataLoss);
}

}  // namespace
}  // namespace edgeadmm::rounds
