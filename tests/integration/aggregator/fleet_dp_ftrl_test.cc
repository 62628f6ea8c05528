// dp-ftrl (DP-FTRL with tree aggregation) end to end: 100 fleet devices, each
// a DeviceClient over its own DTLS-PSK session running dp-sgd's step without
// noise, against the real daemon on loopback, 30 a9a records per device.
// The released model beats a9a.t's majority class, no device takes part
// more often than its cap, and every device's central ε is the accountant's
// ε of its participations, each charged the tree's discrete Gaussian
// ν = σ/((C + g·√p)·sqrt(B(k)/k)), g = σ/2^15, recomputed here from the
// closed form.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "edgeadmm/dataio/libsvm_reader.h"
#include "edgeadmm/jobs/job_config.h"
#include "edgeadmm/jobs/job_report.h"
#include "edgeadmm/privacy/conversion.h"
#include "edgeadmm/privacy/rdp_curve.h"
#include "edgeadmm/privacy/rdp_orders.h"
#include "fleet_harness.h"

namespace edgeadmm {
namespace {

constexpr int kDevices = 100;
constexpr size_t kRecords = 3000;  // 30 per device
constexpr size_t kDim = 123;
constexpr double kMajority = 0.7638;  // a9a.t: 12,435 of 16,281 are -1
constexpr int kRounds = 12;
constexpr int kCap = 9;
constexpr double kSigma = 3.0, kClip = 1.0, kDelta = 1e-5;

const char kToml[] =
    "[job]\nname = \"ftrl\"\nalgorithm = \"dp-ftrl\"\nloss = \"logistic\"\n"
    "dimension = 123\nrounds = 12\n"
    "[regularizer]\nkind = \"l2\"\nl2 = 0.001\n"
    "[step]\ngamma = 0.5\nlocal_steps = 5\n"
    "[privacy]\npolicy = \"trusted-aggregator\"\nclip = 1.0\nsigma = 3.0\n"
    "delta = 1e-5\naccountant = \"rdp\"\ncentral_budget = 100\ndevice_budget = "
    "inf\n"
    "[sampling]\nscheme = \"poisson\"\nq = 0.5\nm_min = 0\n"
    "deadline_seconds = 2\n"
    "[dp_ftrl]\nserver_learning_rate = 1.0\nmax_participations = 9\n";

double ValidationAccuracy(const std::vector<double>& z) {
  auto test = ReadLibsvmFile(testing::DataDir() + "/a9a.t.xz", kDim);
  EXPECT_TRUE(test.ok()) << test.error().ToString();
  if (!test.ok() || test->samples == 0) return 0;
  size_t right = 0;
  for (size_t i = 0; i < test->samples; ++i) {
    double t = 0;
    for (size_t j = 0; j < kDim; ++j) t += test->features[i * kDim + j] * z[j];
    right += (t >= 0 ? 1.0 : -1.0) == test->labels[i] ? 1 : 0;
  }
  return static_cast<double>(right) / static_cast<double>(test->samples);
}

// ε (RDP, improved conversion) of `participations` Gaussians of ν.
double EpsilonOf(int64_t participations, double nu) {
  const privacy::OrderGrid& grid = privacy::OrderGrid::Default();
  std::vector<double> rdp;
  for (double a : grid.orders()) {
    rdp.push_back(static_cast<double>(participations) * a / (2 * nu * nu));
  }
  auto curve = privacy::RdpCurve::FromValues(grid, rdp);
  EXPECT_TRUE(curve.ok());
  auto eps =
      privacy::EpsilonFromRdp(*curve, kDelta, privacy::Conversion::kImproved);
  EXPECT_TRUE(eps.ok());
  return eps.ok() ? eps->epsilon : 0;
}

TEST(FleetDpFtrlTest, TreeAggregatedModelLearnsAndEveryDeviceIsCharged) {
  testing::TempDatabase t;
  const testing::FleetSetup setup =
      testing::PrepareFleet(t, kDevices, kRecords);
  // The devices add no noise (σ = 0 steps): the gateway's tree is the
  // mechanism, so the fleet allows the unaccounted local step.
  const testing::FleetRunResult run =
      testing::RunJobOverDtls(t, setup, kToml, true, 120);
  testing::ExpectCleanRun(run, kDevices);
  auto released =
      jobs::LoadReleasedModel(t.db(), "ftrl", jobs::ModelChoice::Last());
  ASSERT_TRUE(released.ok());
  EXPECT_EQ(released->iteration, kRounds);
  const double accuracy = ValidationAccuracy(released->z);

  auto report = jobs::LoadPrivacyReport(t.db(), "ftrl");
  ASSERT_TRUE(report.ok());
  ASSERT_EQ(report->devices.size(), static_cast<size_t>(kDevices));
  // 12 rounds: levels 0..3, B(9)/9 = 1 + 2 + 4 + 8. The gateway rounds
  // each round's sum to the grid g = σ/2^15: sensitivity C + g·√p, and
  // charges its discrete noise as the continuous σ′ = √(σ² − (4g)²).
  const double grid = kSigma / 32768;
  const double nu = kSigma * std::sqrt(1 - 0x1p-26) /
                    ((kClip + grid * std::sqrt(123.0)) * std::sqrt(15.0));
  int64_t uploads = 0, most = 0;
  double worst = 0;
  for (const jobs::DeviceCharge& d : report->devices) {
    EXPECT_LE(d.participations, kCap) << d.device_id;
    uploads += d.participations;
    most = std::max(most, d.participations);
    if (d.participations == 0) continue;
    const double expected = EpsilonOf(d.participations, nu);
    EXPECT_NEAR(d.central_epsilon, expected, 1e-9 * expected) << d.device_id;
    worst = std::max(worst, d.central_epsilon);
    EXPECT_TRUE(std::isinf(d.local_epsilon)) << d.device_id;
  }
  EXPECT_EQ(static_cast<uint64_t>(uploads), run.report.uploads_accepted);
  ASSERT_FALSE(report->central.empty());
  EXPECT_NEAR(report->central.back().second, worst, 1e-12 * worst);
  std::printf(
      "dp-ftrl: %d rounds, %lld uploads (most by one device %lld, "
      "cap %d), validation accuracy %.4f (majority %.4f), central "
      "epsilon %.4g at delta 1e-5 (rdp, improved)\n",
      kRounds, static_cast<long long>(uploads), static_cast<long long>(most),
      kCap, accuracy, kMajority, worst);
  EXPECT_GT(accuracy, kMajority + 0.02);
}

}  // namespace
}  // namespace edgeadmm
