// dp-ftrl: the tree's noisy prefix sums against an explicit tree built
// independently, the squared-count bound B(j) against every placement of a
// device's participations, the per-participation charge, and the unit's
// job checks and server update.
#include "edgeadmm/algorithms/dp_ftrl.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <utility>
#include <vector>

#include "edgeadmm/algorithms/registry.h"
#include "edgeadmm/algorithms/sum_grid.h"
#include "edgeadmm/algorithms/tree_aggregation.h"
#include "edgeadmm/jobs/job_config.h"

namespace edgeadmm::algorithms {
namespace {

// RoundNoise's contract with a seeded stand-in for N_Z: v on the grid
// g = std/2^15, plus g·k, k the rounded draw of N(0, 2^30); every g·k kept
// in order (for the tree, std = 2^15 and g = 1: integer draws).
class RecordingNoise final : public RoundNoise {
 public:
  Status AddNoise(double stddev, std::vector<double>& v) override {
    const double g = stddev / 32768;
    std::normal_distribution<double> normal(0.0, 32768.0);
    std::vector<double> drawn(v.size());
    for (size_t i = 0; i < v.size(); ++i) {
      drawn[i] = g * std::round(normal(rng_));
      v[i] = g * std::round(v[i] / g) + drawn[i];
    }
    draws.push_back(std::move(drawn));
    return Status::Ok();
  }
  std::vector<std::vector<double>> draws;

 private:
  std::mt19937_64 rng_{11};
};

TEST(TreeAggregationTest, LevelsCoverTheRounds) {
  EXPECT_EQ(TreeLevels(1), 1);
  EXPECT_EQ(TreeLevels(2), 2);
  EXPECT_EQ(TreeLevels(3), 2);
  EXPECT_EQ(TreeLevels(4), 3);
  EXPECT_EQ(TreeLevels(100), 7);
}

// The prefix at round t is the raw prefix plus the noises of the dyadic
// intervals that tile [1, t], found here top-down from an explicit map of
// every node drawn, keyed by (level, last round).
TEST(TreeAggregationTest, NoisyPrefixIsTheSumOfItsNodes) {
  const int64_t rounds = 23;
  const int levels = TreeLevels(rounds);
  const size_t p = 3;
  RecordingNoise noise;
  std::vector<double> state(p, 0.0), prefix, raw(p, 0.0);
  std::map<std::pair<int, int64_t>, std::vector<double>> nodes;
  std::mt19937_64 data(5);
  std::uniform_real_distribution<double> value(-1, 1);
  for (int64_t t = 1; t <= rounds; ++t) {
    std::vector<double> sum(p);
    for (double& v : sum) v = value(data);
    // The raw prefix in grid steps of g = 0.7/2^15: each sum rounded once.
    for (size_t i = 0; i < p; ++i) raw[i] += std::round(sum[i] * 32768 / 0.7);
    const size_t before = noise.draws.size();
    ASSERT_EQ(TreeAddRound(sum, 0.7, levels, noise, state, prefix),
              Status::Ok());
    // One fresh node per level whose width divides t, lowest first.
    int fresh = 0;
    for (int l = 0; l < levels && t % (int64_t{1} << l) == 0; ++l) {
      nodes[{l, t}] = noise.draws.at(before + static_cast<size_t>(fresh++));
    }
    ASSERT_EQ(noise.draws.size(), before + static_cast<size_t>(fresh));
    std::vector<double> expected = raw;
    int64_t start = 0;
    int used = 0;
    for (int l = levels - 1; l >= 0; --l) {
      const int64_t width = int64_t{1} << l;
      if (start + width > t) continue;
      const std::vector<double>& node = nodes.at({l, start + width});
      for (size_t i = 0; i < p; ++i) expected[i] += node[i];
      start += width;
      ++used;
    }
    ASSERT_EQ(start, t);
    EXPECT_EQ(used, __builtin_popcountll(static_cast<unsigned long long>(t)));
    for (size_t i = 0; i < p; ++i) {
      // Integer steps (node draws are integers here), released as g·steps.
      EXPECT_EQ(expected[i], std::round(expected[i]));
      EXPECT_EQ(prefix[i],
                0.7 * std::ldexp(expected[i], -static_cast<int>(kSumGridBits)));
    }
  }
  // A state of another shape is refused, and so is a round for which the
  // tree has no level (round 4 of a 2-level tree).
  std::vector<double> sum(p, 0.0);
  EXPECT_EQ(TreeAddRound(sum, 0.7, levels + 1, noise, state, prefix).code(),
            StatusCode::kInvalidArgument);
  std::vector<double> full(TreeStateLength(p, 2), 0.0);
  full.back() = 3;
  EXPECT_EQ(TreeAddRound(sum, 0.7, 2, noise, full, prefix).code(),
            StatusCode::kOutOfRange);
}

// Σ over released nodes of n², maximised over every placement of j
// participations in `rounds` rounds, never exceeds B(j), and B(1) is met.
TEST(TreeAggregationTest, SquaredCountBoundHoldsForEveryPlacement) {
  for (const int64_t rounds : {4, 8, 11}) {
    const int levels = TreeLevels(rounds);
    for (int64_t j = 1; j <= 4; ++j) {
      double worst = 0;
      for (uint32_t mask = 0; mask < (1u << rounds); ++mask) {
        if (__builtin_popcount(mask) != j) continue;
        double squares = 0;
        for (int l = 0; l < levels; ++l) {
          const int64_t width = int64_t{1} << l;
          for (int64_t end = width; end <= rounds; end += width) {
            int64_t n = 0;
            for (int64_t r = end - width + 1; r <= end; ++r) {
              n += (mask >> (r - 1)) & 1u;
            }
            squares += static_cast<double>(n * n);
          }
        }
        worst = std::max(worst, squares);
      }
      const double bound = TreeSquaredCountBound(j, levels);
      EXPECT_LE(worst, bound) << rounds << " rounds, j = " << j;
      if (j == 1) {
        EXPECT_EQ(worst, bound) << rounds;
      }
    }
  }
  // B(j)/j grows with j: j charges of B(k)/k cover B(j) for every j <= k.
  for (int64_t j = 1; j < 64; ++j) {
    EXPECT_LE(TreeSquaredCountBound(j, 7) / j,
              TreeSquaredCountBound(j + 1, 7) / (j + 1));
  }
}

const char kJob[] =
    "[job]\nname = \"ftrl\"\nalgorithm = \"dp-ftrl\"\nloss = \"logistic\"\n"
    "dimension = 2\nrounds = 8\n"
    "[regularizer]\nkind = \"none\"\n"
    "[step]\ngamma = 0.5\nlocal_steps = 2\n"
    "[privacy]\npolicy = \"trusted-aggregator\"\nclip = 1.0\nsigma = 4.0\n"
    "delta = 1e-5\ncentral_budget = 10\ndevice_budget = inf\n"
    "[sampling]\nscheme = \"poisson\"\nq = 0.5\nm_min = 0\n"
    "deadline_seconds = 30\n"
    "[dp_ftrl]\nserver_learning_rate = 2.0\nmax_participations = 2\n";

TEST(DpFtrlTest, ChargesEachParticipationItsShareOfTheTree) {
  auto config = jobs::ParseJobConfig(kJob);
  ASSERT_TRUE(config.ok()) << config.error().ToString();
  const Algorithm& unit = Get(config->algorithm);
  ASSERT_NE(unit.participation_charge(), nullptr);
  EXPECT_EQ(unit.participation_charge()->MaxParticipations(*config), 2);
  // 8 rounds: levels 0..3; B(2)/2 = min(2,1) + 2 + 2 + 2 = 7.
  // The gateway's grid g = σ/2^15 (p = 2) adds g·√p to the sensitivity C,
  // and the bridge to the continuous Gaussian takes σ to √(σ² − (4g)²).
  EXPECT_NEAR(
      unit.participation_charge()->ParticipationNoiseMultiplier(*config),
      4.0 * std::sqrt(1 - 16 / 0x1p30) /
          ((1.0 + 4.0 / 32768 * std::sqrt(2.0)) * std::sqrt(7.0)),
      1e-14);
  // Its noise is the gateway's single discrete Gaussian per tree node,
  // bridged to the continuous one (docs/privacy.md, "Discrete Gaussian"):
  // the job keeps its accountant, pld by default, rdp when it asks.
  EXPECT_EQ(config->accountant, jobs::CentralAccountant::kPld);
  auto asked = jobs::ParseJobConfig(
      std::string(kJob).replace(std::string(kJob).find("delta = 1e-5"), 12,
                                "delta = 1e-5\naccountant = \"rdp\""));
  ASSERT_TRUE(asked.ok()) << asked.error().ToString();
  EXPECT_EQ(asked->accountant, jobs::CentralAccountant::kRdp);
  // The device runs dp-sgd's step; the gateway adds the noise.
  edgeadmm_wire_RoundTask task = edgeadmm_wire_RoundTask_init_zero;
  unit.FillTask(*config, 10, 0, task);
  EXPECT_EQ(task.algorithm, edgeadmm_wire_Algorithm_ALGORITHM_DP_SGD);
  EXPECT_EQ(task.params.dp_sgd.sigma, 0.0);
  EXPECT_EQ(task.params.dp_sgd.local_steps, 2u);
}

TEST(DpFtrlTest, RefusesWhatItsChargeDoesNotCover) {
  const std::string job = kJob;
  auto with = [&](const std::string& from, const std::string& to) {
    std::string text = job;
    text.replace(text.find(from), from.size(), to);
    return jobs::ParseJobConfig(text);
  };
  auto missing = with("max_participations = 2\n", "");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().ToString().find("dp_ftrl.max_participations"),
            std::string::npos);
  std::string participation = job;
  participation.replace(participation.find("m_min = 0"), 9, "m_min = 1");
  participation.replace(participation.find("\"trusted-aggregator\""), 20,
                        "\"participation\"");
  auto policy = jobs::ParseJobConfig(participation);
  ASSERT_FALSE(policy.ok());
  EXPECT_NE(policy.error().ToString().find("privacy.policy"),
            std::string::npos);
  EXPECT_FALSE(with("max_participations = 2", "max_participations = 0").ok());
  EXPECT_FALSE(
      with("server_learning_rate = 2.0", "server_learning_rate = 0").ok());
  EXPECT_FALSE(with("sigma = 4.0\n", "sigma = 0\n").ok());
  // A target instead of σ is planned (rounds::PlanSigma).
  EXPECT_TRUE(with("sigma = 4.0\n", "target_epsilon = 2.0\n").ok());
}

// An upload far outside the clip is clipped by the gateway: the released
// model is η_s/(q·n) times the clipped sum plus the tree's noise.
TEST(DpFtrlTest, TheGatewayClipsEveryUpload) {
  auto config = jobs::ParseJobConfig(kJob);
  ASSERT_TRUE(config.ok()) << config.error().ToString();
  const Algorithm& unit = Get(config->algorithm);
  ServerModel model;
  model.z.assign(2, 0.0);
  model.state.assign(2, 0.0);
  RecordingNoise noise;
  ASSERT_EQ(
      unit.ApplyRound(*config, 4, {{30.0, 40.0}, {0.3, 0.0}}, noise, model),
      Status::Ok());
  ASSERT_EQ(noise.draws.size(), 1u);  // round 1: the level-0 node
  // The clipped sum (0.9, 0.8) on the grid g = 4/2^15 = 1/8192: 7372.8 and
  // 6553.6 steps round to 7373 and 6554; the node noise is in steps.
  const double scale = 2.0 / (0.5 * 4);
  EXPECT_NEAR(model.z[0], scale * (7373 + noise.draws[0][0]) / 8192, 1e-12);
  EXPECT_NEAR(model.z[1], scale * (6554 + noise.draws[0][1]) / 8192, 1e-12);
}

}  // namespace
}  // namespace edgeadmm::algorithms
