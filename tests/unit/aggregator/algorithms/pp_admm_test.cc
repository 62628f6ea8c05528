// pp-admm (paper 001) on the aggregator: the virtual graph, the job checks
// with the θ condition, and the relay's neighbour sums and broadcast.
#include "edgeadmm/algorithms/pp_admm.h"

#include <cfloat>
#include <cmath>

#include "edgeadmm/algorithms/registry.h"
#include "edgeadmm/jobs/job_config.h"
#include "edgeadmm/penalty_perturbation_extra.h"
#include "gtest/gtest.h"
#include "test_database.h"

namespace edgeadmm::algorithms {
namespace {

using testing::ReplaceOnce;

jobs::JobConfig Job(jobs::VirtualGraphKind kind, int64_t nodes,
                    int64_t dimension = 3) {
  jobs::JobConfig c;
  c.name = "pp";
  c.dimension = dimension;
  c.rounds = 10;
  c.loss = jobs::Loss::kLogistic;
  c.pp_admm.graph = kind;
  c.pp_admm.nodes = nodes;
  c.pp_admm.loss_weight = 1;
  c.pp_admm.reg_weight = 1;
  c.pp_admm.theta = 0.5;
  c.pp_admm.min_samples = 100;
  return c;
}

// f_i = (i+1)·(1, 10, 100).
std::vector<std::vector<double>> Uploads(int64_t nodes) {
  std::vector<std::vector<double>> u;
  for (int64_t i = 0; i < nodes; ++i) {
    const double s = static_cast<double>(i + 1);
    u.push_back({s, 10 * s, 100 * s});
  }
  return u;
}

TEST(VirtualGraphTest, CompleteAndRing) {
  jobs::JobConfig c = Job(jobs::VirtualGraphKind::kComplete, 4);
  host::ErrorOr<VirtualGraph> g = VirtualGraph::Build(c.pp_admm);
  ASSERT_TRUE(g.ok()) << g.error().ToString();
  EXPECT_TRUE(g->complete());
  EXPECT_EQ(g->nodes(), 4);
  EXPECT_EQ(g->neighbours(2), (std::vector<int64_t>{0, 1, 3}));
  EXPECT_EQ(g->min_degree(), 3);

  c = Job(jobs::VirtualGraphKind::kRing, 5);
  g = VirtualGraph::Build(c.pp_admm);
  ASSERT_TRUE(g.ok());
  EXPECT_FALSE(g->complete());
  EXPECT_EQ(g->neighbours(0), (std::vector<int64_t>{1, 4}));
  EXPECT_EQ(g->neighbours(4), (std::vector<int64_t>{0, 3}));
  EXPECT_EQ(g->min_degree(), 2);

  EXPECT_FALSE(
      VirtualGraph::Build(Job(jobs::VirtualGraphKind::kRing, 2).pp_admm).ok());
  EXPECT_FALSE(
      VirtualGraph::Build(Job(jobs::VirtualGraphKind::kComplete, 1).pp_admm)
          .ok());
  c = Job(jobs::VirtualGraphKind::kComplete, 3);
  c.pp_admm.edges = {{0, 1}};
  EXPECT_FALSE(VirtualGraph::Build(c.pp_admm).ok());
}

TEST(VirtualGraphTest, EdgeList) {
  jobs::JobConfig c = Job(jobs::VirtualGraphKind::kEdgeList, 4);
  c.pp_admm.edges = {{0, 1}, {1, 2}, {1, 3}};  // a star at 1
  host::ErrorOr<VirtualGraph> g = VirtualGraph::Build(c.pp_admm);
  ASSERT_TRUE(g.ok()) << g.error().ToString();
  EXPECT_FALSE(g->complete());
  EXPECT_EQ(g->neighbours(1), (std::vector<int64_t>{0, 2, 3}));
  EXPECT_EQ(g->neighbours(3), (std::vector<int64_t>{1}));
  EXPECT_EQ(g->min_degree(), 1);

  // Every edge of K3 listed: complete.
  c = Job(jobs::VirtualGraphKind::kEdgeList, 3);
  c.pp_admm.edges = {{0, 1}, {2, 1}, {0, 2}};
  g = VirtualGraph::Build(c.pp_admm);
  ASSERT_TRUE(g.ok());
  EXPECT_TRUE(g->complete());

  struct Bad {
    std::vector<std::pair<int64_t, int64_t>> edges;
    const char* says;
  };
  const Bad bad[] = {
      {{{0, 1}, {2, 3}}, "not connected"},
      {{{0, 1}, {1, 2}}, "not connected"},  // node 3 isolated
      {{{0, 1}, {1, 2}, {2, 4}}, "out of"},
      {{{0, 1}, {1, 2}, {2, -1}}, "out of"},
      {{{0, 1}, {1, 2}, {2, 3}, {3, 3}}, "self-loop"},
      {{{0, 1}, {1, 2}, {2, 3}, {1, 0}}, "twice"},
  };
  for (const Bad& b : bad) {
    c = Job(jobs::VirtualGraphKind::kEdgeList, 4);
    c.pp_admm.edges = b.edges;
    g = VirtualGraph::Build(c.pp_admm);
    ASSERT_FALSE(g.ok()) << b.says;
    EXPECT_EQ(g.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(g.error().message().find(b.says), std::string::npos)
        << g.error().message();
  }
}

TEST(PpAdmmValidateTest, AcceptsTheDefaultsAndRefusesBadKeys) {
  EXPECT_TRUE(ValidatePpAdmm(Job(jobs::VirtualGraphKind::kComplete, 5)).ok());
  auto refused = [](jobs::JobConfig c, const char* key) {
    const host::Error e = ValidatePpAdmm(c);
    EXPECT_EQ(e.code(), StatusCode::kInvalidArgument) << key;
    EXPECT_NE(e.message().find(key), std::string::npos) << e.message();
  };
  jobs::JobConfig c = Job(jobs::VirtualGraphKind::kComplete, 5);
  c.loss = jobs::Loss::kSquared;
  refused(c, "job.loss");
  c = Job(jobs::VirtualGraphKind::kComplete, 5);
  c.dimension = 0;
  refused(c, "job.dimension");
  c = Job(jobs::VirtualGraphKind::kComplete, 5);
  c.rounds = 0;
  refused(c, "job.rounds");
  for (const double bad : {0.0, -1.0, double{NAN}, double{INFINITY}}) {
    c = Job(jobs::VirtualGraphKind::kComplete, 5);
    c.pp_admm.loss_weight = bad;
    refused(c, "pp_admm.loss_weight");
    c = Job(jobs::VirtualGraphKind::kComplete, 5);
    c.pp_admm.reg_weight = bad;
    refused(c, "pp_admm.reg_weight");
    c = Job(jobs::VirtualGraphKind::kComplete, 5);
    c.pp_admm.theta = bad;
    refused(c, "pp_admm.theta");
  }
  c = Job(jobs::VirtualGraphKind::kComplete, 5);
  c.pp_admm.min_samples = 0;
  refused(c, "pp_admm.min_samples");
  c = Job(jobs::VirtualGraphKind::kComplete, 5);
  c.pp_admm.loss_weight = 101;  // C > B_min
  refused(c, "pp_admm.loss_weight");
  c = Job(jobs::VirtualGraphKind::kRing, 2);
  refused(c, "pp_admm.nodes");
}

// 2c₁ < (B/C)(ρ/N + 2θV) at B_min and the smallest degree: with c₁ = ¼,
// B = C = 1, ρ = 1, N = 4 the bound is θV > 1/8.
TEST(PpAdmmValidateTest, ThetaConditionAtTheWorstNode) {
  jobs::JobConfig c = Job(jobs::VirtualGraphKind::kEdgeList, 4);
  c.pp_admm.edges = {{0, 1}, {0, 2}, {0, 3}};  // hub 0 (V = 3), leaves V = 1
  c.pp_admm.loss_weight = 1;
  c.pp_admm.min_samples = 1;
  c.pp_admm.theta = 0.124;
  host::Error e = ValidatePpAdmm(c);
  EXPECT_EQ(e.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(e.message().find("pp_admm.theta"), std::string::npos);
  EXPECT_NE(e.message().find("V_i = 1"), std::string::npos) << e.message();
  c.pp_admm.theta = 0.126;
  EXPECT_TRUE(ValidatePpAdmm(c).ok());
  // The same θ = 0.124 passes on a ring (V = 2 everywhere).
  c.pp_admm.graph = jobs::VirtualGraphKind::kRing;
  c.pp_admm.edges.clear();
  c.pp_admm.theta = 0.124;
  EXPECT_TRUE(ValidatePpAdmm(c).ok());
  // On the ring the boundary is θ = 1/16: 0.062 fails, 0.063 holds.
  c.pp_admm.theta = 0.062;
  EXPECT_EQ(ValidatePpAdmm(c).code(), StatusCode::kFailedPrecondition);
  c.pp_admm.theta = 0.063;
  EXPECT_TRUE(ValidatePpAdmm(c).ok());
}

TEST(PpAdmmRelayTest, NeighbourSumsOnAnEdgeList) {
  jobs::JobConfig c = Job(jobs::VirtualGraphKind::kEdgeList, 4);
  c.pp_admm.edges = {{0, 1}, {1, 2}, {1, 3}, {2, 3}};
  PpAdmmRelay relay;
  ASSERT_TRUE(relay.Init(c).ok());
  std::vector<std::vector<double>> sums;
  ASSERT_TRUE(relay.NeighbourSums(Uploads(4), sums).ok());
  // f_i = (i+1)·(1, 10, 100): S_0 = f_1 = 2, S_1 = f_0+f_2+f_3 = 1+3+4,
  // S_2 = f_1+f_3 = 2+4, S_3 = f_1+f_2 = 2+3.
  const double scale[4] = {2, 8, 6, 5};
  ASSERT_EQ(sums.size(), 4u);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(sums[i],
              (std::vector<double>{scale[i], 10 * scale[i], 100 * scale[i]}))
        << i;
  }
  std::vector<double> total;
  EXPECT_EQ(relay.BroadcastSum(Uploads(4), total).code(),
            StatusCode::kFailedPrecondition);
}

TEST(PpAdmmRelayTest, CompleteGraphBroadcastMinusOwnIsTheNeighbourSum) {
  const int64_t n = 5;
  PpAdmmRelay relay;
  ASSERT_TRUE(relay.Init(Job(jobs::VirtualGraphKind::kComplete, n)).ok());
  const auto uploads = Uploads(n);
  std::vector<double> total;
  ASSERT_TRUE(relay.BroadcastSum(uploads, total).ok());
  EXPECT_EQ(total, (std::vector<double>{15, 150, 1500}));
  std::vector<std::vector<double>> sums;
  ASSERT_TRUE(relay.NeighbourSums(uploads, sums).ok());
  for (int64_t i = 0; i < n; ++i) {
    for (size_t k = 0; k < 3; ++k) {
      EXPECT_EQ(sums[i][k], total[k] - uploads[i][k]) << i << "," << k;
    }
  }
}

TEST(PpAdmmRelayTest, ARoundNeedsEveryNodeAndFiniteValues) {
  PpAdmmRelay relay;
  std::vector<std::vector<double>> sums = {{7}};
  EXPECT_EQ(relay.NeighbourSums(Uploads(3), sums).code(),
            StatusCode::kFailedPrecondition);
  ASSERT_TRUE(relay.Init(Job(jobs::VirtualGraphKind::kRing, 3)).ok());
  EXPECT_EQ(relay.NeighbourSums(Uploads(2), sums).code(),
            StatusCode::kInvalidArgument);  // a node missed the round
  auto uploads = Uploads(3);
  uploads[1].pop_back();
  EXPECT_EQ(relay.NeighbourSums(uploads, sums).code(),
            StatusCode::kInvalidArgument);
  uploads = Uploads(3);
  uploads[2][0] = NAN;
  EXPECT_EQ(relay.NeighbourSums(uploads, sums).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(sums, (std::vector<std::vector<double>>{{7}}));  // untouched
  jobs::JobConfig bad = Job(jobs::VirtualGraphKind::kRing, 3);
  bad.pp_admm.theta = -1;
  EXPECT_FALSE(relay.Init(bad).ok());
  EXPECT_EQ(relay.NeighbourSums(Uploads(3), sums).code(),
            StatusCode::kFailedPrecondition);
}

TEST(PpAdmmJobTest, InTheRegistryAsPpAdmm) {
  ASSERT_NE(FindByName("pp-admm"), nullptr);
  EXPECT_EQ(FindByName("pp-admm")->kind(), AlgorithmKind::kPenaltyPerturbation);
  const BarrierRounds* barrier =
      Get(AlgorithmKind::kPenaltyPerturbation).barrier_rounds();
  ASSERT_NE(barrier, nullptr);
  EXPECT_EQ(barrier->BarrierRetries(Job(jobs::VirtualGraphKind::kComplete, 5)),
            2);
  // The other algorithms have no barrier.
  EXPECT_EQ(Get(AlgorithmKind::kProxAdmm).barrier_rounds(), nullptr);
}

std::vector<uint8_t> LossBytes(double epsilon, double delta = 1e-5) {
  std::vector<uint8_t> bytes(kPpLossExtraBytes);
  EncodePpLossExtra(epsilon, delta, bytes.data());
  return bytes;
}

// The upload extra is pp-admm's own: (ε_i, δ_i) as 16 bytes (ε finite and
// >= 0, δ in [0, 1]), kept from the last iteration only, and its report
// section; the other algorithms have none.
TEST(PpAdmmJobTest, UploadExtraIsTheLossOfTheLastIteration) {
  const jobs::JobConfig c = Job(jobs::VirtualGraphKind::kComplete, 5);
  const UploadExtra* extra =
      Get(AlgorithmKind::kPenaltyPerturbation).upload_extra();
  ASSERT_NE(extra, nullptr);
  EXPECT_EQ(Get(AlgorithmKind::kProxAdmm).upload_extra(), nullptr);
  EXPECT_EQ(extra->Refusal(c, 9, {}), nullptr);
  EXPECT_EQ(extra->Refusal(c, 9, LossBytes(0.25)), nullptr);
  EXPECT_EQ(extra->Refusal(c, 9, LossBytes(0)), nullptr);
  std::vector<uint8_t> inf_epsilon = LossBytes(0.25);
  inf_epsilon[6] = 0xf0;  // ε = +inf, LE
  inf_epsilon[7] = 0x7f;
  for (int k = 0; k < 6; ++k) inf_epsilon[k] = 0;
  std::vector<uint8_t> old_eight = LossBytes(0.25);
  old_eight.resize(8);  // P_i alone, as sent before δ was charged
  for (const std::vector<uint8_t>& bad :
       {LossBytes(-0.5), std::vector<uint8_t>{1, 2, 3}, inf_epsilon, old_eight,
        std::vector<uint8_t>(17, 0)}) {
    EXPECT_STREQ(extra->Refusal(c, 9, bad),
                 "algorithm_extra of pp-admm: 16 bytes, (epsilon, delta)");
  }
  // A +inf ε goes out as the largest finite double, a δ outside [0, 1] as 1.
  double epsilon = 0, delta = 0;
  const std::vector<uint8_t> inf = LossBytes(INFINITY, 3);
  ASSERT_TRUE(DecodePpLossExtra(inf.data(), inf.size(), &epsilon, &delta));
  EXPECT_EQ(epsilon, DBL_MAX);
  EXPECT_EQ(delta, 1.0);
  EXPECT_TRUE(extra->Stores(c, c.rounds - 1));
  EXPECT_FALSE(extra->Stores(c, c.rounds - 2));

  const ReportSection none = extra->Report(c, {});
  EXPECT_EQ(none.key, "pp_loss");
  EXPECT_EQ(none.text,
            "pp-admm privacy: not reported yet (nodes report (epsilon, delta) "
            "only with the last iteration)\n");
  const ReportSection some =
      extra->Report(c, {LossBytes(0.5, 2e-5), LossBytes(1.25), LossBytes(0)});
  EXPECT_EQ(some.json, std::string("{\"epsilon\": 1.25, \"delta\": "
                                   "2.0000000000000002e-05, \"reported\": 2, "
                                   "\"nodes\": 5, \"meaning\": \"") +
                           kPpLossLabel + "\"}");
  EXPECT_EQ(some.text,
            std::string("pp-admm privacy: max_i epsilon_i = 1.25, max_i "
                        "delta_i = 2e-05 from 2 of 5 nodes\n  that is: ") +
                kPpLossLabel + "\n");
  // The label names a delta and no longer calls the number a claim.
  EXPECT_NE(std::string(kPpLossLabel).find("(epsilon, delta)-DP"),
            std::string::npos);
  EXPECT_EQ(std::string(kPpLossLabel).find("claim"), std::string::npos);
}

// A pp-admm job in TOML: the [pp_admm] table and a deadline; no privacy
// budgets, no cohort keys (every node every round).
std::string PpToml(const std::string& pp_extra = "",
                   const std::string& tail = "") {
  return "[job]\nname = \"pp\"\nalgorithm = \"pp-admm\"\nloss = "
         "\"logistic\"\ndimension = 4\nrounds = 20\n"
         "[pp_admm]\nnodes = 5\ntheta = 0.5\nloss_weight = 1.0\n"
         "reg_weight = 0.1\nmin_samples = 50\n" +
         pp_extra + "[sampling]\ndeadline_seconds = 10\n" + tail;
}

TEST(PpAdmmJobTest, ParsesTheTableAndResolvesTheBarrier) {
  auto c = jobs::ParseJobConfig(
      PpToml("mode = \"dvp\"\nnoise = false\nbarrier_retries = 4\n"));
  ASSERT_TRUE(c.ok()) << c.error().message();
  EXPECT_EQ(c->algorithm, AlgorithmKind::kPenaltyPerturbation);
  EXPECT_EQ(c->pp_admm.nodes, 5);
  EXPECT_EQ(c->pp_admm.mode, jobs::PpMode::kDualVariablePerturbation);
  EXPECT_FALSE(c->pp_admm.noise);
  EXPECT_EQ(c->pp_admm.barrier_retries, 4);
  EXPECT_DOUBLE_EQ(c->pp_admm.reg_weight, 0.1);
  EXPECT_EQ(c->sampling, jobs::SamplingScheme::kFixed);
  EXPECT_EQ(c->m, 5);
  EXPECT_EQ(c->m_min, 5);
  EXPECT_EQ(c->sigma, 0.0);
  EXPECT_TRUE(std::isinf(c->central_budget));
  EXPECT_TRUE(std::isinf(c->device_budget));

  // The task carries only public constants: t = committed + 1, V = N − 1.
  edgeadmm_wire_RoundTask task = edgeadmm_wire_RoundTask_init_zero;
  Get(AlgorithmKind::kPenaltyPerturbation).FillTask(*c, 5, 7, task);
  EXPECT_EQ(task.algorithm,
            edgeadmm_wire_Algorithm_ALGORITHM_PENALTY_PERTURBATION);
  ASSERT_EQ(task.which_params, edgeadmm_wire_RoundTask_penalty_tag);
  EXPECT_EQ(task.params.penalty.iteration, 8u);
  EXPECT_EQ(task.params.penalty.nodes, 5u);
  EXPECT_EQ(task.params.penalty.degree, 4u);
  EXPECT_EQ(task.params.penalty.rounds, 20u);
  EXPECT_TRUE(task.params.penalty.dvp);
  EXPECT_TRUE(task.params.penalty.noiseless);
  EXPECT_DOUBLE_EQ(task.params.penalty.theta, 0.5);
}

TEST(PpAdmmJobTest, RefusalsNameTheKey) {
  const struct {
    std::string toml;
    std::string message_start;
  } cases[] = {
      {ReplaceOnce(PpToml("graph = \"ring\"\n"), "nodes = 5", "nodes = 2"),
       "pp_admm.nodes: a ring graph needs at least 3"},
      {PpToml("graph = \"edges\"\nedges = [[0, 1], [1, 2]]\n"),
       "pp_admm.edges: the graph is not connected"},
      {PpToml("edges = [[0, 1]]\n"), "pp_admm.edges: only for graph"},
      {PpToml("edges = [0, 1]\n"), "pp_admm.edges: must be an array"},
      {PpToml("mode = \"fast\"\n"), "pp_admm.mode: unknown value"},
      {PpToml("barrier_retries = -1\n"), "pp_admm.barrier_retries"},
      {PpToml("", "[privacy]\nsigma = 1.0\n"), "privacy.sigma"},
      {PpToml("", "[privacy]\ncentral_budget = 8.0\n"), "privacy:"},
      {ReplaceOnce(PpToml(), "deadline_seconds = 10\n",
                   "deadline_seconds = 10\nm = 3\n"),
       "sampling.m:"},
      {ReplaceOnce(PpToml(), "reg_weight = 0.1\n", ""),
       "pp_admm.reg_weight: missing"},
      {ReplaceOnce(PpToml(), "loss = \"logistic\"", "loss = \"squared\""),
       "job.loss"},
      {PpToml("", "[regularizer]\nkind = \"l2\"\nl2 = 0.1\n"),
       "regularizer.kind"},
      {ReplaceOnce(PpToml(), "min_samples = 50", "min_samples = 0"),
       "pp_admm.min_samples"},
  };
  for (const auto& k : cases) {
    auto c = jobs::ParseJobConfig(k.toml);
    ASSERT_FALSE(c.ok()) << k.toml;
    EXPECT_EQ(c.error().message().rfind(k.message_start, 0), 0u)
        << c.error().message();
  }
}

TEST(PpAdmmJobTest, ARingSendsEachNodeItsOwnNeighbourSumAndDegree) {
  auto c = jobs::ParseJobConfig(PpToml("graph = \"ring\"\n"));
  ASSERT_TRUE(c.ok()) << c.error().message();
  const NodeTasks& pp = *Get(AlgorithmKind::kPenaltyPerturbation).node_tasks();
  EXPECT_TRUE(pp.PerNodeTasks(*c));
  EXPECT_FALSE(pp.PerNodeTasks(*jobs::ParseJobConfig(PpToml())));
  // Node 0 of the ring of 5 has neighbours 1 and 4.
  std::vector<std::vector<double>> last = {
      {1, 0, 0, 0}, {0, 2, 0, 0}, {0, 0, 3, 0}, {0, 0, 0, 4}, {5, 5, 5, 5}};
  std::vector<double> s;
  pp.NodeTaskVector(*c, 0, last, s);
  EXPECT_EQ(s, (std::vector<double>{5, 7, 5, 5}));
  pp.NodeTaskVector(*c, 2, last, s);
  EXPECT_EQ(s, (std::vector<double>{0, 2, 0, 4}));
  // Before the first commit: zeros.
  pp.NodeTaskVector(*c, 3, std::vector<std::vector<double>>(5), s);
  EXPECT_EQ(s, (std::vector<double>(4, 0.0)));
  edgeadmm_wire_RoundTask task = edgeadmm_wire_RoundTask_init_zero;
  Get(AlgorithmKind::kPenaltyPerturbation).FillTask(*c, 5, 0, task);
  pp.FillNodeTask(*c, 2, task);
  EXPECT_EQ(task.params.penalty.degree, 2u);
  EXPECT_TRUE(task.params.penalty.neighbour_sum);
  // An edge list: node 0 of the path 0-1-2 plus the chord 0-2 ... degree 2;
  // node 3 hangs off node 2 only.
  auto edges = jobs::ParseJobConfig(ReplaceOnce(
      PpToml("graph = \"edges\"\nedges = [[0, 1], [1, 2], [0, 2], [2, 3], "
             "[3, 4]]\n"),
      "min_samples = 50", "min_samples = 50"));
  ASSERT_TRUE(edges.ok()) << edges.error().message();
  pp.FillNodeTask(*edges, 4, task);
  EXPECT_EQ(task.params.penalty.degree, 1u);
  pp.NodeTaskVector(*edges, 2, last, s);
  EXPECT_EQ(s, (std::vector<double>{1, 2, 0, 4}));
}

TEST(PpAdmmJobTest, ThetaConditionRefusedAtJobCreation) {
  // 2c₁ = 0.5 < (B/C)(ρ/N + 2θV) needs B/C large enough: with C = B = 1,
  // ρ = 0.1, N = 5, θ = 0.01, V = 4: 1·(0.02 + 0.08) = 0.1 < 0.5 fails.
  auto c = jobs::ParseJobConfig(ReplaceOnce(
      ReplaceOnce(ReplaceOnce(PpToml(), "min_samples = 50", "min_samples = 1"),
                  "theta = 0.5", "theta = 0.01"),
      "loss_weight = 1.0", "loss_weight = 1.0"));
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(c.error().message().find("pp_admm.theta: the privacy condition"),
            std::string::npos)
      << c.error().message();
}

TEST(PpAdmmJobTest, ApplyRoundIsTheMeanOfEveryNode) {
  const jobs::JobConfig c = Job(jobs::VirtualGraphKind::kComplete, 3);
  const Algorithm& pp = Get(AlgorithmKind::kPenaltyPerturbation);
  struct NoNoise : RoundNoise {
    Status AddNoise(double, std::vector<double>&) override {
      return Status::Internal();
    }
  } noise;
  ServerModel model{{0, 0, 0}, {0, 0, 0}, {}};
  ASSERT_TRUE(pp.ApplyRound(c, 3, Uploads(3), noise, model).ok());
  EXPECT_EQ(model.z, (std::vector<double>{2, 20, 200}));
  // The barrier: two of three nodes is no round.
  auto two = Uploads(3);
  two.pop_back();
  EXPECT_FALSE(pp.ApplyRound(c, 3, two, noise, model).ok());
  EXPECT_FALSE(pp.ApplyRound(c, 4, Uploads(4), noise, model).ok());
}

}  // namespace
}  // namespace edgeadmm::algorithms
