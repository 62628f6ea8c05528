// Device privacy ledger: Gaussian RDP composition, the improved conversion on
// the order grid, the budget check and restore. Portable.
#include "edgeadmm/device_privacy_ledger.h"

#include <cmath>
#include <limits>

#include "gtest/gtest.h"

namespace edgeadmm {
namespace {

// Closed form on the grid, improved conversion (Canonne, Kamath, Steinke
// 2020, Prop. 12): min_α k·α·Δ²/(2s²) + ln(1 − 1/α) − (ln δ + ln α)/(α − 1).
double ClosedForm(int k, double sensitivity, double noise_std, double delta) {
  double best = INFINITY;
  for (const double a : DevicePrivacyLedger::kOrders) {
    const double e =
        k * a * sensitivity * sensitivity / (2 * noise_std * noise_std) +
        std::log(1 - 1 / a) - (std::log(delta) + std::log(a)) / (a - 1);
    best = std::min(best, e);
  }
  return best;
}

// The classic conversion (Mironov 2017, Prop. 3) on the same grid.
double ClassicClosedForm(int k, double sensitivity, double noise_std,
                         double delta) {
  double best = INFINITY;
  for (const double a : DevicePrivacyLedger::kOrders) {
    best = std::min(
        best, k * a * sensitivity * sensitivity / (2 * noise_std * noise_std) +
                  std::log(1 / delta) / (a - 1));
  }
  return best;
}

double Epsilon(const DevicePrivacyLedger& ledger, double delta) {
  Result<double> e = ledger.Epsilon(delta);
  EXPECT_TRUE(e.ok());
  return e.ok() ? *e : -1;
}

TEST(DevicePrivacyLedgerTest, GridIsSortedAndHasTheDocumentedOrders) {
  const auto& o = DevicePrivacyLedger::kOrders;
  EXPECT_GT(o[0], 1.0);
  for (size_t i = 1; i < DevicePrivacyLedger::kOrderCount; ++i) {
    EXPECT_LT(o[i - 1], o[i]);
  }
  auto has = [&](double a) {
    for (const double x : o) {
      if (x == a) return true;
    }
    return false;
  };
  EXPECT_TRUE(has(1.25));
  EXPECT_TRUE(has(1.5));
  EXPECT_TRUE(has(1.75));
  for (int a = 2; a <= 64; ++a) EXPECT_TRUE(has(a)) << a;
  EXPECT_TRUE(has(128));
  EXPECT_TRUE(has(256));
}

TEST(DevicePrivacyLedgerTest, NeverChargedIsZero) {
  DevicePrivacyLedger ledger;
  EXPECT_EQ(Epsilon(ledger, 1e-5), 0.0);
  EXPECT_EQ(ledger.participations(), 0u);
  for (const double r : ledger.rdp()) EXPECT_EQ(r, 0.0);
}

TEST(DevicePrivacyLedgerTest, MatchesTheClosedFormAndGrows) {
  // Δ = 4λC, s = λσ with λ = 0.5, C = 1, σ = 8.
  const double lambda = 0.5, clip = 1.0, sigma = 8.0, delta = 1e-5;
  const double sensitivity = 4 * lambda * clip, noise_std = lambda * sigma;
  DevicePrivacyLedger ledger;
  double previous = 0;
  for (int k = 1; k <= 50; ++k) {
    ASSERT_TRUE(ledger.Charge(sensitivity, noise_std).ok());
    const double e = Epsilon(ledger, delta);
    EXPECT_NEAR(e, ClosedForm(k, sensitivity, noise_std, delta), 1e-12 * e);
    EXPECT_LT(e, ClassicClosedForm(k, sensitivity, noise_std, delta));
    EXPECT_GT(e, previous);
    previous = e;
  }
  EXPECT_EQ(ledger.participations(), 50u);
  // A hand-checked point: one charge with Δ/s = 1 at δ = 1e-5 is minimised
  // at α = 5 on the grid: 5/2 + ln(4/5) + (ln 1e5 − ln 5)/4 = 4.752728...
  // (the classic conversion gives 3 + ln(1e5)/5 = 5.302585 at α = 6).
  DevicePrivacyLedger one;
  ASSERT_TRUE(one.Charge(1.0, 1.0).ok());
  EXPECT_NEAR(Epsilon(one, 1e-5),
              2.5 + std::log(0.8) + (std::log(1e5) - std::log(5.0)) / 4, 1e-12);
  EXPECT_NEAR(Epsilon(one, 1e-5), 4.752728336819823, 1e-12);
}

TEST(DevicePrivacyLedgerTest, HeterogeneousChargesAdd) {
  DevicePrivacyLedger ledger;
  ASSERT_TRUE(ledger.Charge(1.0, 2.0).ok());
  ASSERT_TRUE(ledger.Charge(2.0, 3.0).ok());
  for (size_t i = 0; i < DevicePrivacyLedger::kOrderCount; ++i) {
    const double a = DevicePrivacyLedger::kOrders[i];
    EXPECT_NEAR(ledger.rdp()[i], a * (1.0 / 8 + 4.0 / 18), 1e-12 * a);
  }
}

// Composing two ledgers (a device's earlier jobs and its current one) is
// the ledger of both charge sequences: same RDP, count and ε.
TEST(DevicePrivacyLedgerTest, ComposeEqualsChargingBoth) {
  DevicePrivacyLedger earlier;
  DevicePrivacyLedger current;
  DevicePrivacyLedger both;
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(earlier.Charge(1.0, 2.0).ok());
    ASSERT_TRUE(both.Charge(1.0, 2.0).ok());
  }
  ASSERT_TRUE(current.Charge(3.0, 2.5).ok());
  ASSERT_TRUE(both.Charge(3.0, 2.5).ok());
  ASSERT_TRUE(earlier.Compose(current).ok());
  EXPECT_EQ(earlier.participations(), 4u);
  for (size_t i = 0; i < DevicePrivacyLedger::kOrderCount; ++i) {
    EXPECT_NEAR(earlier.rdp()[i], both.rdp()[i], 1e-12 * both.rdp()[i]) << i;
  }
  EXPECT_NEAR(Epsilon(earlier, 1e-5), Epsilon(both, 1e-5), 1e-12);
  // An empty ledger composes to itself; an overflowing sum is refused.
  DevicePrivacyLedger empty;
  ASSERT_TRUE(empty.Compose(DevicePrivacyLedger()).ok());
  EXPECT_EQ(Epsilon(empty, 1e-5), 0.0);
  DevicePrivacyLedger huge;
  double rdp[DevicePrivacyLedger::kOrderCount];
  for (double& v : rdp) v = std::numeric_limits<double>::max();
  ASSERT_TRUE(huge.Restore(1, rdp).ok());
  DevicePrivacyLedger target = huge;
  EXPECT_EQ(target.Compose(huge), Status::InvalidArgument());
  EXPECT_EQ(target.participations(), 1u);
}

TEST(DevicePrivacyLedgerTest, RejectsBadArgumentsWithoutChanging) {
  DevicePrivacyLedger ledger;
  ASSERT_TRUE(ledger.Charge(1.0, 4.0).ok());
  const double before = Epsilon(ledger, 1e-6);
  for (const double bad : {0.0, -1.0, static_cast<double>(std::nan("")),
                           static_cast<double>(INFINITY)}) {
    EXPECT_EQ(ledger.Charge(bad, 1.0), Status::InvalidArgument());
    EXPECT_EQ(ledger.Charge(1.0, bad), Status::InvalidArgument());
    EXPECT_EQ(ledger.WouldExceed(bad, 1.0, 10, 1e-6).status(),
              Status::InvalidArgument());
  }
  EXPECT_EQ(ledger.Charge(1e300, 1e-300), Status::InvalidArgument());
  EXPECT_EQ(ledger.participations(), 1u);
  EXPECT_EQ(Epsilon(ledger, 1e-6), before);
  for (const double bad_delta :
       {0.0, 1.0, -0.5, 2.0, static_cast<double>(std::nan(""))}) {
    EXPECT_EQ(ledger.Epsilon(bad_delta).status(), Status::InvalidArgument());
    EXPECT_EQ(ledger.WouldExceed(1, 1, 10, bad_delta).status(),
              Status::InvalidArgument());
  }
  EXPECT_EQ(ledger.WouldExceed(1, 1, -1, 1e-6).status(),
            Status::InvalidArgument());
  EXPECT_EQ(ledger.WouldExceed(1, 1, std::nan(""), 1e-6).status(),
            Status::InvalidArgument());
}

TEST(DevicePrivacyLedgerTest, WouldExceedFlipsExactlyAtTheBudget) {
  const double sensitivity = 2.0, noise_std = 5.0, delta = 1e-5;
  DevicePrivacyLedger ledger;
  for (int k = 0; k < 3; ++k)
    ASSERT_TRUE(ledger.Charge(sensitivity, noise_std).ok());
  DevicePrivacyLedger next = ledger;
  ASSERT_TRUE(next.Charge(sensitivity, noise_std).ok());
  const double after = Epsilon(next, delta);
  auto would = [&](double budget) {
    Result<bool> r = ledger.WouldExceed(sensitivity, noise_std, budget, delta);
    EXPECT_TRUE(r.ok());
    return r.ok() && *r;
  };
  EXPECT_FALSE(would(after));
  EXPECT_TRUE(would(std::nextafter(after, 0.0)));
  EXPECT_FALSE(would(std::nextafter(after, INFINITY)));
  EXPECT_TRUE(would(Epsilon(ledger, delta)));
  // Also from an empty ledger.
  DevicePrivacyLedger empty, first;
  ASSERT_TRUE(first.Charge(sensitivity, noise_std).ok());
  const Result<bool> at =
      empty.WouldExceed(sensitivity, noise_std, Epsilon(first, delta), delta);
  ASSERT_TRUE(at.ok());
  EXPECT_FALSE(*at);
}

// Above kMaxReportableEpsilon (600) the ε is +inf and WouldExceed is true
// even for an infinite budget (docs/privacy.md, "Sampler tails").
TEST(DevicePrivacyLedgerTest, EpsilonAboveTheCapIsInfinite) {
  const double delta = 1e-5;
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(DevicePrivacyLedger::kMaxReportableEpsilon, 600.0);
  auto after_one = [&](double ratio) {
    DevicePrivacyLedger ledger;
    EXPECT_TRUE(ledger.Charge(ratio, 1.0).ok());
    return Epsilon(ledger, delta);
  };
  // Bisect the Δ/s of one charge for the boundary (ε grows with Δ/s).
  double lo = 1, hi = 100;
  ASSERT_TRUE(std::isfinite(after_one(lo)));
  ASSERT_EQ(after_one(hi), inf);
  for (int i = 0; i < 80; ++i) {
    const double mid = (lo + hi) / 2;
    (std::isfinite(after_one(mid)) ? lo : hi) = mid;
  }
  EXPECT_LE(after_one(lo), 600.0);
  EXPECT_NEAR(after_one(lo), 600.0, 1e-9);
  EXPECT_EQ(after_one(hi), inf);
  EXPECT_GT(ClosedForm(1, hi, 1.0, delta), 600.0 - 1e-9);  // not an error
  // Above the cap ε is +inf: it exceeds every finite budget (even one far
  // above 600); only a budget of +inf (no limit asked for) accepts it.
  const DevicePrivacyLedger empty;
  EXPECT_FALSE(empty.WouldExceed(lo, 1.0, double{1000}, delta).value());
  EXPECT_TRUE(empty.WouldExceed(hi, 1.0, double{1000}, delta).value());
  EXPECT_TRUE(empty.WouldExceed(hi, 1.0, double{1e300}, delta).value());
  EXPECT_FALSE(empty.WouldExceed(hi, 1.0, inf, delta).value());
  // A ledger above the cap (Charge does not check it): +inf, and every
  // further round is refused under any finite budget.
  DevicePrivacyLedger big;
  ASSERT_TRUE(big.Charge(hi, 1.0).ok());
  EXPECT_EQ(Epsilon(big, delta), inf);
  EXPECT_TRUE(big.WouldExceed(1e-6, 1.0, double{1e300}, delta).value());
  EXPECT_FALSE(big.WouldExceed(1e-6, 1.0, inf, delta).value());
}

TEST(DevicePrivacyLedgerTest, RestoreRoundTrips) {
  DevicePrivacyLedger ledger;
  ASSERT_TRUE(ledger.Charge(1.0, 3.0).ok());
  ASSERT_TRUE(ledger.Charge(0.5, 3.0).ok());
  DevicePrivacyLedger copy;
  ASSERT_TRUE(copy.Restore(ledger.participations(), ledger.rdp()).ok());
  EXPECT_EQ(copy.participations(), 2u);
  EXPECT_EQ(Epsilon(copy, 1e-5), Epsilon(ledger, 1e-5));
  for (size_t i = 0; i < DevicePrivacyLedger::kOrderCount; ++i) {
    EXPECT_EQ(copy.rdp()[i], ledger.rdp()[i]);
  }
}

TEST(DevicePrivacyLedgerTest, RestoreRejectsInconsistentValues) {
  DevicePrivacyLedger source;
  ASSERT_TRUE(source.Charge(1.0, 3.0).ok());
  double rdp[DevicePrivacyLedger::kOrderCount];
  auto reset = [&] {
    for (size_t i = 0; i < DevicePrivacyLedger::kOrderCount; ++i) {
      rdp[i] = source.rdp()[i];
    }
  };
  DevicePrivacyLedger target;
  ASSERT_TRUE(target.Charge(2.0, 3.0).ok());
  const double before = Epsilon(target, 1e-5);
  auto rejected = [&](uint32_t participations, Span<const double> values) {
    return target.Restore(participations, values) == Status::InvalidArgument();
  };
  reset();
  EXPECT_TRUE(rejected(1, Span<const double>(rdp, 3)));  // wrong size
  rdp[5] = std::nan("");
  EXPECT_TRUE(rejected(1, rdp));
  reset();
  rdp[0] = -1e-3;
  EXPECT_TRUE(rejected(1, rdp));
  reset();
  rdp[10] = rdp[11] * 2;  // decreasing in α
  EXPECT_TRUE(rejected(1, rdp));
  reset();
  rdp[DevicePrivacyLedger::kOrderCount - 1] = INFINITY;
  EXPECT_TRUE(rejected(1, rdp));
  reset();
  EXPECT_TRUE(rejected(0, rdp));  // RDP spent with no participation
  EXPECT_EQ(target.participations(), 1u);
  EXPECT_EQ(Epsilon(target, 1e-5), before);
}

}  // namespace
}  // namespace edgeadmm
