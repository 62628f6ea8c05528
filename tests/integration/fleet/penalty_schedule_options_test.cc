// edgeadmm-fleet connect's --pp-* options: the devices' private pp-admm
// schedules, one value for all or one per device, and the refusals.
#include "edgeadmm/fleet/penalty_schedule_options.h"

#include <gtest/gtest.h>

#include <cmath>

namespace edgeadmm::fleet {
namespace {

TEST(PenaltyScheduleOptionsTest, ParsesSingleValuesAndLists) {
  auto one = ParseValueList("0.5", "--pp-eta1");
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(*one, std::vector<double>({0.5}));
  auto list = ParseValueList("0.55,0.65,1e-1", "--pp-eta1");
  ASSERT_TRUE(list.ok());
  EXPECT_EQ(*list, std::vector<double>({0.55, 0.65, 0.1}));
}

TEST(PenaltyScheduleOptionsTest, RefusesBadNumbersNamingTheOption) {
  for (const char* bad :
       {"", "0.5,", ",0.5", "0.5,,1", "x", "0.5x", "nan", "inf", "1e999"}) {
    auto r = ParseValueList(bad, "--pp-eta-growth");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.error().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(r.error().message().find("--pp-eta-growth"), std::string::npos)
        << r.error().message();
  }
}

TEST(PenaltyScheduleOptionsTest, DefaultsWithoutOptions) {
  auto s = ResolvePenaltySchedules({}, 3);
  ASSERT_TRUE(s.ok());
  ASSERT_EQ(s->size(), 3u);
  const PenaltySchedule d;
  for (const PenaltySchedule& p : *s) {
    EXPECT_EQ(p.eta1, d.eta1);
    EXPECT_EQ(p.eta_growth, d.eta_growth);
    EXPECT_EQ(p.eta_max, d.eta_max);
    EXPECT_EQ(p.alpha1, d.alpha1);
    EXPECT_EQ(p.alpha_growth, d.alpha_growth);
    EXPECT_TRUE(std::isinf(p.max_loss));  // no cap
  }
}

// Paper 001 §5.1's five nodes: their own η(1) and q, one α for all.
TEST(PenaltyScheduleOptionsTest, PerDeviceListsAndSharedValues) {
  PenaltyScheduleOptions o;
  o.eta1 = "0.55,0.65,0.6,0.55,0.6";
  o.eta_growth = "1.01,1.03,1.1,1.2,1.02";
  o.alpha1 = "5";
  o.alpha_growth = "1.01";
  o.eta_max = "100";
  o.max_loss = "2,2,2,2,0.5";
  auto s = ResolvePenaltySchedules(o, 5);
  ASSERT_TRUE(s.ok()) << s.error().ToString();
  const double eta1[] = {0.55, 0.65, 0.6, 0.55, 0.6};
  const double q[] = {1.01, 1.03, 1.1, 1.2, 1.02};
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ((*s)[i].eta1, eta1[i]);
    EXPECT_EQ((*s)[i].eta_growth, q[i]);
    EXPECT_EQ((*s)[i].alpha1, 5.0);
    EXPECT_EQ((*s)[i].alpha_growth, 1.01);
    EXPECT_EQ((*s)[i].eta_max, 100.0);
    EXPECT_EQ((*s)[i].max_loss, i == 4 ? 0.5 : 2.0);
  }
}

TEST(PenaltyScheduleOptionsTest, ListOfTheWrongLengthIsRefused) {
  PenaltyScheduleOptions o;
  o.eta_growth = "1.01,1.03";
  auto s = ResolvePenaltySchedules(o, 5);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.error().message().find("--pp-eta-growth: 2 values for 5 devices"),
            std::string::npos)
      << s.error().message();
}

TEST(PenaltyScheduleOptionsTest, OutOfRangeValuesAreRefusedWithTheDevice) {
  struct Case {
    const char* eta1;
    const char* q1;
    const char* eta_max;
    const char* alpha1;
    const char* q2;
    const char* max_loss;
    const char* expected;
  };
  const Case cases[] = {
      {"0.5,0", "", "", "", "", "", "--pp-eta1 (device 1) must be > 0"},
      {"-1", "", "", "", "", "", "--pp-eta1 must be > 0"},
      {"", "1,0.99", "", "", "", "", "--pp-eta-growth (device 1) must be >= 1"},
      {"2", "", "1", "", "", "", "--pp-eta-max must be >= --pp-eta1"},
      {"", "", "", "0", "", "", "--pp-alpha1 must be > 0"},
      {"", "", "", "", "3,-1", "", "--pp-alpha-growth (device 1) must be > 0"},
      {"", "", "", "", "", "1,-0.5", "--pp-max-loss (device 1) must be >= 0"},
  };
  for (const Case& c : cases) {
    PenaltyScheduleOptions o{c.eta1,   c.q1, c.eta_max,
                             c.alpha1, c.q2, c.max_loss};
    const size_t n =
        std::string(c.expected).find("device 1") != std::string::npos ? 2 : 1;
    auto s = ResolvePenaltySchedules(o, n);
    ASSERT_FALSE(s.ok()) << c.expected;
    EXPECT_EQ(s.error().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(s.error().message().find(c.expected), std::string::npos)
        << s.error().message();
  }
}

}  // namespace
}  // namespace edgeadmm::fleet
