// LedgerBook under privacy.policy "secure-aggregation": each survivor's
// central (zero-out) and local (replace-one) ledgers are charged the
// distributed discrete Gaussian sum of n_h = m - D - t honest devices, checked
// against the privacy library's mechanism and against Kairouz, Liu, Steinke
// (ICML 2021) Thm. 2 written out here.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "edgeadmm/jobs/job_config.h"
#include "edgeadmm/jobs/secure_aggregation_plan.h"
#include "edgeadmm/privacy/ledger_meaning.h"
#include "edgeadmm/privacy/mechanism.h"
#include "edgeadmm/rounds/ledger_book.h"
#include "test_database.h"

namespace edgeadmm::rounds {
namespace {

constexpr double kPi = 3.14159265358979323846;

// Thm. 2 of Kairouz et al. for n devices of grid std sigma, dimension d:
// min{a s^2/2 + tau d, a/2 (s^2 + 2 tau D1/(sqrt(n) sigma) + tau^2 d),
// a/2 (s + tau sqrt(d))^2}, s = D2/(sqrt(n) sigma),
// tau = 10 sum_{k=1}^{n-1} exp(-2 pi^2 sigma^2 k/(k+1)).
double Theorem2(double a, double d2, double d1, double sigma, double n,
                double d) {
  double tau = 0;
  for (double k = 1; k < n; ++k) {
    tau += 10 * std::exp(-2 * kPi * kPi * sigma * sigma * k / (k + 1));
  }
  const double s = d2 / (std::sqrt(n) * sigma);
  return std::min(
      {a * s * s / 2 + tau * d,
       a / 2 * (s * s + 2 * tau * d1 / (std::sqrt(n) * sigma) + tau * tau * d),
       a / 2 * std::pow(s + tau * std::sqrt(d), 2)});
}

// The bound for the noise of `n` devices: the sum of fewer devices' noise is
// post-processed into it, so the least bound over n' <= n holds.
// `scale` 2: replace-one (both vectors within the norm bound).
double DdgBound(double a, const secure_aggregation::DdgParameters& p,
                uint32_t n, double scale = 1) {
  double best = INFINITY;
  for (uint32_t k = 1; k <= n; ++k) {
    best =
        std::min(best, Theorem2(a, scale * p.norm_bound, scale * p.l1_bound,
                                p.sigma_grid, k, double(p.padded_dimension)));
  }
  return best;
}

struct Fixture {
  jobs::JobConfig config;
  jobs::SecureAggregationPlan plan;
  std::vector<std::string> devices;
};

Fixture Make() {
  Fixture f;
  auto c = jobs::ParseJobConfig(
      testing::SecureAggregationJobToml("secure", "prox-admm"));
  EXPECT_TRUE(c.ok()) << c.error().ToString();
  f.config = *c;
  f.plan = *jobs::PlanSecureAggregation(f.config);
  for (int i = 0; i < f.config.m; ++i) {
    f.devices.push_back("dev-" + std::to_string(i));
  }
  return f;
}

std::vector<size_t> Survivors(size_t count) {
  std::vector<size_t> s(count);
  for (size_t i = 0; i < count; ++i) s[i] = i;
  return s;
}

TEST(SecureLedgerTest, ChargeIsTheDdgBoundOfTheHonestSurvivors) {
  const Fixture f = Make();
  const PrivacyRoundAccountant accountant;
  LedgerBook book(accountant, f.config, f.devices);
  const uint32_t honest = 20 - 2 - 1;  // m - D - t
  ASSERT_EQ(f.plan.ddg.honest_devices, honest);
  const LedgerCharge charge = book.Plan(Survivors(18));
  ASSERT_EQ(charge.devices.size(), 18u);
  const LocalCharge local = book.PlanLocal(3);
  const std::vector<double>& orders = accountant.orders();
  // The privacy library's own mechanism at one order.
  const size_t k =
      static_cast<size_t>(std::find_if(orders.begin(), orders.end(),
                                       [](double a) { return a >= 8; }) -
                          orders.begin());
  ASSERT_LT(k, orders.size());
  const auto library = privacy::RdpAt(
      secure_aggregation::DdgRoundMechanism(f.plan.ddg), orders[k]);
  ASSERT_TRUE(library.ok());
  EXPECT_NEAR((*charge.devices[0].central)[k], *library, 1e-12 * *library);
  // Thm. 2 at every order, for the central and the local ledger.
  for (size_t i = 0; i < orders.size(); ++i) {
    const double expected = DdgBound(orders[i], f.plan.ddg, honest);
    ASSERT_GT(expected, 0);
    EXPECT_NEAR((*charge.devices[5].central)[i], expected, 1e-9 * expected)
        << "order " << orders[i];
    const double replace = DdgBound(orders[i], f.plan.ddg, honest, 2);
    EXPECT_NEAR((*local.local)[i], replace, 1e-9 * replace);
    EXPECT_GT((*local.local)[i], expected);  // never below the central charge
  }
  // Had the ledger counted all m devices' noise it would charge less.
  EXPECT_GT((*charge.devices[0].central)[k],
            DdgBound(orders[k], f.plan.ddg, 20) * 1.01);
}

TEST(SecureLedgerTest, RoundsComposePerSurvivor) {
  const Fixture f = Make();
  const PrivacyRoundAccountant accountant;
  LedgerBook book(accountant, f.config, f.devices);
  const int rounds = 5;
  for (int r = 0; r < rounds; ++r) {
    // Device 19 drops out of every round: never charged centrally.
    book.Apply(book.Plan(Survivors(18)));
  }
  const LedgerCharge next = book.Plan(Survivors(1));
  const std::vector<double>& orders = accountant.orders();
  std::vector<double> expected(orders.size());
  for (size_t i = 0; i < orders.size(); ++i) {
    expected[i] = (rounds + 1) * DdgBound(orders[i], f.plan.ddg, 17);
    EXPECT_NEAR((*next.devices[0].central)[i], expected[i], 1e-9 * expected[i]);
  }
  EXPECT_NEAR(next.devices[0].central_epsilon,
              accountant.Epsilon(expected, f.config.delta), 1e-9);
  // After R rounds the job's epsilon is that of R charges; device 19 has 0.
  std::vector<double> five = expected;
  for (double& v : five) v = v * rounds / (rounds + 1);
  EXPECT_NEAR(book.central_epsilon(), accountant.Epsilon(five, 1e-5), 1e-9);
  EXPECT_EQ(next.next_device_epsilon[19], 0.0);
  EXPECT_GT(book.central_epsilon(), 0.0);
  EXPECT_EQ(book.central_conversion(), privacy::Conversion::kImproved);
}

TEST(SecureLedgerTest, LabelsNameTheGatewayAndTheColluders) {
  const auto local =
      privacy::LocalLedgerMeaning(privacy::Policy::kSecureAggregation, 1);
  EXPECT_EQ(local.neighbouring, "replace-one device's data (user-level)");
  EXPECT_NE(local.observer.find("the gateway and any 1 colluding devices"),
            std::string::npos);
  EXPECT_NE(local.mechanism.find("m - D - 1 honest"), std::string::npos);
  EXPECT_EQ(local.mechanism.find("+inf"), std::string::npos);
  const auto central =
      privacy::CentralLedgerMeaning(privacy::Policy::kSecureAggregation, 1);
  EXPECT_NE(central.observer.find("the gateway and any 1 colluding devices"),
            std::string::npos);
  EXPECT_NE(central.mechanism.find("improved conversion"), std::string::npos);
}

}  // namespace
}  // namespace edgeadmm::rounds
