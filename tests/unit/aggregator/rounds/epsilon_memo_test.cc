#include "edgeadmm/rounds/epsilon_memo.h"

#include <gtest/gtest.h>

#include <vector>

namespace edgeadmm::rounds {
namespace {

// The real accountant, counting the conversions that reach it.
class CountingAccountant final : public RoundAccountant {
 public:
  const std::vector<double>& orders() const override { return real_.orders(); }
  std::vector<double> RoundRdp(const RoundMechanism& m) const override {
    return real_.RoundRdp(m);
  }
  double Epsilon(const std::vector<double>& rdp, double delta) const override {
    ++calls;
    return real_.Epsilon(rdp, delta);
  }
  privacy::Conversion conversion() const override {
    return real_.conversion();
  }
  mutable int calls = 0;

 private:
  PrivacyRoundAccountant real_;
};

TEST(EpsilonMemoTest, ConvertsEachDistinctCurveOnce) {
  CountingAccountant acc;
  EpsilonMemo memo(acc, 1e-5);
  std::vector<double> a = acc.RoundRdp({1.0, 1.0});
  std::vector<double> b = a;
  ComposeRdp(b, a);  // two rounds
  const double ea = acc.Epsilon(a, 1e-5);
  const double eb = acc.Epsilon(b, 1e-5);
  acc.calls = 0;
  EXPECT_EQ(memo.Epsilon(a), ea);
  EXPECT_EQ(memo.Epsilon(b), eb);
  EXPECT_EQ(memo.Epsilon(a), ea);
  // An equal curve built another way (another device's ledger) is a hit.
  std::vector<double> c = acc.RoundRdp({1.0, 1.0});
  ComposeRdp(c, acc.RoundRdp({1.0, 1.0}));
  EXPECT_EQ(memo.Epsilon(c), eb);
  EXPECT_EQ(acc.calls, 2);
  EXPECT_EQ(memo.conversions(), 2u);
}

TEST(EpsilonMemoTest, AnyChangedOrderIsANewCurve) {
  CountingAccountant acc;
  EpsilonMemo memo(acc, 1e-5);
  std::vector<double> a = acc.RoundRdp({1.0, 1.0});
  const double ea = memo.Epsilon(a);
  for (size_t i = 0; i < a.size(); i += 37) {
    std::vector<double> changed = a;
    changed[i] *= 1 + 1e-15;
    EXPECT_EQ(memo.Epsilon(changed), acc.Epsilon(changed, 1e-5));
  }
  // A curve that is larger at every order has a larger ε.
  std::vector<double> bigger = a;
  for (double& x : bigger) x *= 2;
  EXPECT_GT(memo.Epsilon(bigger), ea);
  EXPECT_EQ(memo.conversions(), 1u + (a.size() + 36) / 37 + 1);
}

TEST(EpsilonMemoTest, StartsOverWhenFull) {
  CountingAccountant acc;
  EpsilonMemo memo(acc, 1e-5);
  const std::vector<double> base = acc.RoundRdp({2.0, 1.0});
  auto curve = [&](size_t k) {
    std::vector<double> v = base;
    for (double& x : v) x *= static_cast<double>(k + 1);
    return v;
  };
  for (size_t k = 0; k <= EpsilonMemo::kMaxCurves; ++k) {
    EXPECT_EQ(memo.Epsilon(curve(k)), acc.Epsilon(curve(k), 1e-5));
  }
  EXPECT_EQ(memo.conversions(), EpsilonMemo::kMaxCurves + 1);
  // The first curves were dropped; the last one is still remembered.
  memo.Epsilon(curve(EpsilonMemo::kMaxCurves));
  EXPECT_EQ(memo.conversions(), EpsilonMemo::kMaxCurves + 1);
  EXPECT_EQ(memo.Epsilon(curve(0)), acc.Epsilon(curve(0), 1e-5));
  EXPECT_EQ(memo.conversions(), EpsilonMemo::kMaxCurves + 2);
}

}  // namespace
}  // namespace edgeadmm::rounds
