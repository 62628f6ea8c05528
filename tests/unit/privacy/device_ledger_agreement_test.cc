// The device's own ledger (SDK, DevicePrivacyLedger) and the aggregator's
// local-dp mirror (CentralLedger, Policy::kLocalDp) must agree: the device
// refuses a round exactly when the aggregator's mirror says it would exceed
// the budget, given the same order grid and the classic conversion.
#include <vector>

#include "edgeadmm/device_privacy_ledger.h"
#include "edgeadmm/privacy/ledger.h"
#include "gtest/gtest.h"
#include "test_rounds.h"

namespace edgeadmm::privacy {
namespace {

TEST(DeviceLedgerAgreementTest, SameEpsilonAndSameRefusalAsTheLocalDpMirror) {
  const std::vector<double> orders(
      DevicePrivacyLedger::kOrders,
      DevicePrivacyLedger::kOrders + DevicePrivacyLedger::kOrderCount);
  const double lambda = 0.5, clip = 1.0, sigma = 40.0, budget = 2.0;
  const double delta = 1e-5;
  auto mirror = CentralLedger::Create(
      Policy::kLocalDp, Budget{budget, delta, Conversion::kClassic},
      OrderGrid::Create(orders).value());
  ASSERT_TRUE(mirror.ok()) << mirror.error().ToString();
  DevicePrivacyLedger device;
  int rounds = 0;
  for (uint64_t id = 1; id < 1000; ++id) {
    const RoundDescriptor round =
        test_support::MakeRound(id, lambda, clip, sigma, 1.0, {"dev-1"});
    // The device's charge: sensitivity 4 lambda C, noise lambda sigma.
    const auto refuses =
        device.WouldExceed(4 * lambda * clip, lambda * sigma, budget, delta);
    const auto check = mirror->BudgetCheck(round);
    ASSERT_TRUE(refuses.ok());
    ASSERT_TRUE(check.ok());
    ASSERT_EQ(*refuses, !check->within_budget) << "round " << id;
    if (*refuses) break;
    ASSERT_TRUE(device.Charge(4 * lambda * clip, lambda * sigma).ok());
    ASSERT_TRUE(mirror->Charge(round).ok());
    ++rounds;
    EXPECT_NEAR(device.Epsilon(delta).value(), mirror->Report()->epsilon,
                1e-12 * mirror->Report()->epsilon);
  }
  EXPECT_GT(rounds, 1);
  EXPECT_LT(rounds, 999);
}

}  // namespace
}  // namespace edgeadmm::privacy
