// Self-test of the MCU harness. Two tests here fail on purpose; the ctest
// (run_expecting.cmake) passes only if the image prints exactly
// "6 passed, 2 failed" (plus the active SCOPED_TRACE, and not the one that
// went out of scope) and exits non-zero, so a harness that hides failures,
// evaluates operands twice or keeps running after ASSERT_ is caught.
#include "gtest/gtest.h"

namespace {

bool reached_after_expect = false;
bool reached_after_assert = false;
int set_up_calls = 0;
int tear_down_calls = 0;

TEST(HarnessSelfTest, EvaluatesEveryOperandOnce) {
  int calls = 0;
  auto next = [&calls] { return ++calls; };
  EXPECT_EQ(next(), 1);
  EXPECT_EQ(calls, 1);
  EXPECT_NEAR(next(), 2.0, 0.0);
  EXPECT_DOUBLE_EQ(next(), 3.0);
  EXPECT_LT(next(), 5);
  EXPECT_EQ(calls, 4);
}

TEST(HarnessSelfTest, ComparesLikeGoogleTest) {
  EXPECT_DOUBLE_EQ(0.1 + 0.2, 0.3);  // within 4 ULPs
  EXPECT_NE(1.0, 1.0 + 1e-9);
  EXPECT_STREQ("abc", "abc");
  EXPECT_TRUE(1 < 2) << "message " << 42 << ' ' << 1.5;
  EXPECT_FALSE(2 < 1);
  EXPECT_GE(2u, 2u);
  EXPECT_GT(3, 2);
  EXPECT_LE(-1, 0);
}

class FixtureSelfTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ++set_up_calls;
    value_ = 7;
  }
  void TearDown() override { ++tear_down_calls; }
  int value_ = 0;
};

TEST_F(FixtureSelfTest, SetUpRunsBeforeTheBody) {
  EXPECT_EQ(value_, 7);
  EXPECT_EQ(set_up_calls, 1);
  EXPECT_EQ(tear_down_calls, 0);
}

TEST_F(FixtureSelfTest, EachTestGetsAFreshFixture) {
  EXPECT_EQ(set_up_calls, 2);
  EXPECT_EQ(tear_down_calls, 1);
}

TEST(HarnessExpectedFailure, ExpectFailsAndContinues) {
  { SCOPED_TRACE("trace-gone"); }
  SCOPED_TRACE("trace-marker");
  EXPECT_EQ(1 + 1, 3) << "deliberate failure";
  reached_after_expect = true;
}

TEST(HarnessExpectedFailure, AssertFailsAndStops) {
  ASSERT_TRUE(false) << "deliberate failure";
  reached_after_assert = true;
}

TEST(HarnessSelfTest, FailuresFlowedAsInGoogleTest) {
  EXPECT_TRUE(reached_after_expect);
  EXPECT_FALSE(reached_after_assert);
}

TEST(HarnessSelfTest, RunsInRegistrationOrder) {
  EXPECT_TRUE(reached_after_expect);
  EXPECT_EQ(set_up_calls, 2);
  EXPECT_EQ(tear_down_calls, 2);
}

// The float32 slack is per test (src/float_tolerances.cc): a test not in the
// table, like this one, compares as written even in a float build; a listed
// test gets its own r, a suite entry covers the suite's other tests.
TEST(HarnessSelfTest, FloatSlackIsPerTest) {
  using testing::internal::FloatToleranceFor;
  EXPECT_EQ(FloatToleranceFor("HarnessSelfTest", "FloatSlackIsPerTest"), 0.0);
  EXPECT_EQ(testing::internal::CurrentFloatRelative(), 0.0);
  EXPECT_FALSE(testing::internal::WithinOrSlack(1.0, 1.0 + 1e-6, 0));
  EXPECT_EQ(FloatToleranceFor("LossTest", "DerivativeMatchesFiniteDifferences"),
            5e-5);
  EXPECT_EQ(FloatToleranceFor("LossTest", "KnownValues"), 0x1.0p-22);
}

}  // namespace
