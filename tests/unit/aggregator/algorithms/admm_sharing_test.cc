// admm-sharing (papers 000/003) on the aggregator: the [admm_sharing] job
// checks (each refusal names its key), the per-party privacy plan of both
// noise modes, the gateway's labels, one barrier round resumed from its
// persisted (z, y), and the gateway's scoring from partial scores.
#include "edgeadmm/algorithms/admm_sharing.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "edgeadmm/algorithms/admm_sharing_ledger.h"
#include "edgeadmm/algorithms/admm_sharing_server.h"
#include "edgeadmm/algorithms/registry.h"
#include "edgeadmm/job_types/config_reader.h"
#include "edgeadmm/job_types/toml_document.h"
#include "edgeadmm/jobs/job_config.h"
#include "edgeadmm/jobs/job_report.h"
#include "edgeadmm/privacy/paper_accountants.h"
#include "edgeadmm/wire/protocol.h"
#include "gtest/gtest.h"

namespace edgeadmm::algorithms {
namespace {

using jobs::SharingNoiseMode;

jobs::JobConfig Job() {
  jobs::JobConfig c;
  c.name = "share";
  c.loss = jobs::Loss::kLogistic;
  c.dimension = 5;
  c.rounds = 20;
  c.admm_sharing.parties = 2;
  c.admm_sharing.columns = {3, 2};
  c.admm_sharing.records = 4;
  c.admm_sharing.rho = 0.1;
  c.admm_sharing.lambda = 0.01;
  c.admm_sharing.labels = "labels.libsvm";
  return c;
}

std::string Refusal(const jobs::JobConfig& c) {
  const host::Error e = ValidateAdmmSharing(c);
  return e.ok() ? "ok" : e.message();
}

bool Names(const jobs::JobConfig& c, const std::string& key) {
  return Refusal(c).find(key) != std::string::npos;
}

TEST(AdmmSharingTest, AValidNoiselessJobPasses) {
  EXPECT_EQ(Refusal(Job()), "ok");
}

TEST(AdmmSharingTest, RefusalsNameTheirKey) {
  jobs::JobConfig c = Job();
  c.loss = jobs::Loss::kSquared;
  EXPECT_TRUE(Names(c, "job.loss"));
  c = Job();
  c.admm_sharing.parties = 1;
  c.admm_sharing.columns = {5};
  EXPECT_TRUE(Names(c, "admm_sharing.parties"));
  c = Job();
  c.admm_sharing.columns = {5};
  EXPECT_TRUE(Names(c, "admm_sharing.columns"));
  c = Job();
  c.admm_sharing.columns = {4, 2};
  EXPECT_TRUE(Names(c, "admm_sharing.columns: the parties' columns sum to 6"));
  c = Job();
  c.admm_sharing.columns = {5, 0};
  EXPECT_TRUE(Names(c, "admm_sharing.columns: party 1"));
  c = Job();
  c.admm_sharing.records = 0;
  EXPECT_TRUE(Names(c, "admm_sharing.records"));
  c = Job();
  c.admm_sharing.rho = 0;
  EXPECT_TRUE(Names(c, "admm_sharing.rho"));
  c = Job();
  c.admm_sharing.lambda = NAN;
  EXPECT_TRUE(Names(c, "admm_sharing.lambda"));
  c = Job();
  c.admm_sharing.labels.clear();
  EXPECT_TRUE(Names(c, "admm_sharing.labels"));
  c = Job();
  c.admm_sharing.barrier_retries = -1;
  EXPECT_TRUE(Names(c, "admm_sharing.barrier_retries"));
  c = Job();
  c.rounds = 0;
  EXPECT_TRUE(Names(c, "job.rounds"));
}

constexpr const char* kTable = R"(
[admm_sharing]
parties = 2
columns = [66, 57]
records = 1000
rho = 4e-4
lambda = 1e-2
labels = "a9a.xz"
noise = "rigorous"
sigma = 0.5
sensitivity = 0.1
target_delta = 1e-5
barrier_retries = 3
)";

std::string Edit2(std::string s, const std::string& from,
                  const std::string& to) {
  const size_t at = s.find(from);
  if (at != std::string::npos) s.replace(at, from.size(), to);
  return s;
}

std::string Edit(const std::string& from, const std::string& to) {
  return Edit2(kTable, from, to);
}

// Reads the [admm_sharing] table of `text` alone, as the job parser does.
host::Error ParseSharingTable(const std::string& text,
                              jobs::AdmmSharingConfig& out) {
  host::ErrorOr<toml::table> root = jobs::ParseTomlDocument(text);
  if (!root.ok()) return root.error();
  jobs::ConfigReader reader(*root);
  jobs::AdmmSharingConfig c;
  ReadAdmmSharingTable(reader, c);
  if (reader.failed()) return reader.error();
  out = std::move(c);
  return host::Error::Ok();
}

std::string TableRefusal(const std::string& text) {
  jobs::AdmmSharingConfig out;
  const host::Error e = ParseSharingTable(text, out);
  return e.ok() ? "ok" : e.message();
}

TEST(AdmmSharingTest, TheTableIsReadAndValidated) {
  jobs::AdmmSharingConfig s;
  ASSERT_TRUE(ParseSharingTable(kTable, s).ok());
  EXPECT_EQ(s.columns, (std::vector<int64_t>{66, 57}));
  EXPECT_EQ(s.records, 1000);
  EXPECT_EQ(s.noise, SharingNoiseMode::kRigorous);
  EXPECT_EQ(s.barrier_retries, 3);
  jobs::JobConfig c = Job();
  c.dimension = 123;
  c.admm_sharing = s;
  EXPECT_EQ(Refusal(c), "ok");
  EXPECT_EQ(TableRefusal(Edit("columns = [66, 57]\n", "")),
            "admm_sharing.columns: missing");
  EXPECT_EQ(TableRefusal(Edit("[66, 57]", "[66, 5.5]")),
            "admm_sharing.columns: must be an array of integers");
  EXPECT_EQ(TableRefusal(Edit("\"rigorous\"", "\"loud\"")),
            "admm_sharing.noise: unknown value \"loud\" (one of: none, "
            "paper, rigorous)");
  EXPECT_EQ(TableRefusal(Edit("records = 1000", "records = \"many\"")),
            "admm_sharing.records: must be an integer");
}

TEST(AdmmSharingTest, RecordsAboveTheWireLimitAreRefusedWithTheLimit) {
  jobs::JobConfig c = Job();
  c.admm_sharing.records = static_cast<int64_t>(wire::kMaxRecordDimension);
  EXPECT_EQ(Refusal(c), "ok");
  c.admm_sharing.records += 1;
  const std::string why = Refusal(c);
  EXPECT_NE(why.find("admm_sharing.records"), std::string::npos) << why;
  EXPECT_NE(why.find(std::to_string(wire::kMaxRecordDimension)),
            std::string::npos)
      << why;
  EXPECT_NE(why.find("EDGEADMM_CFG_MAX_RECORD_DIMENSION"), std::string::npos)
      << why;
}

TEST(AdmmSharingTest, NoiseModesTakeOnlyTheirOwnKeys) {
  jobs::JobConfig c = Job();
  c.admm_sharing.sigma = 1;
  EXPECT_TRUE(Names(c, "admm_sharing.noise: \"none\""));
  c = Job();
  c.admm_sharing.noise = SharingNoiseMode::kRigorous;
  EXPECT_TRUE(Names(c, "admm_sharing.sigma"));
  c.admm_sharing.sigma = 2;
  // The clip (or, alone, its Δ = 2C) is required: docs/privacy.md,
  // "Bounded shares".
  EXPECT_TRUE(Names(c, "admm_sharing.share_clip"));
  c.admm_sharing.sensitivity = 0.5;
  EXPECT_EQ(Refusal(c), "ok");
  c.admm_sharing.paper_c = 1;
  EXPECT_TRUE(Names(c, "admm_sharing.noise: \"rigorous\""));
  c = Job();
  c.admm_sharing.noise = SharingNoiseMode::kPaper;
  EXPECT_TRUE(Names(c, "admm_sharing.paper_b1"));
  c.admm_sharing.paper_b1 = 10;
  EXPECT_TRUE(Names(c, "admm_sharing.paper_c1"));
  c.admm_sharing.paper_c1 = 2;
  EXPECT_TRUE(Names(c, "admm_sharing.target_epsilon"));
  c.admm_sharing.target_epsilon = 2.3563;
  EXPECT_TRUE(Names(c, "admm_sharing.target_delta"));
  c.admm_sharing.target_delta = 2 * 20 * 1e-5;
  EXPECT_EQ(Refusal(c), "ok");
  c.admm_sharing.paper_c = 1.3645;
  EXPECT_TRUE(Names(c, "admm_sharing.paper_c: give either C or (b1, c1)"));
  c.admm_sharing.paper_b1 = c.admm_sharing.paper_c1 = 0;
  EXPECT_EQ(Refusal(c), "ok");
  c.admm_sharing.sigma = 1;
  EXPECT_TRUE(Names(c, "admm_sharing.noise: \"paper\""));
  c.admm_sharing.sigma = 0;
  // eps' = 55.8 over T = 20 needs a per-step eps of 1: above it is refused.
  c.admm_sharing.target_epsilon = 80;
  EXPECT_TRUE(Names(c, "admm_sharing.target_epsilon: cannot be planned"));
}

TEST(AdmmSharingTest, PaperPlanFollowsLemma1AndCorollary1PerParty) {
  jobs::JobConfig c = Job();
  c.dimension = 123;
  c.admm_sharing.columns = {66, 57};
  c.admm_sharing.rho = 1;
  c.admm_sharing.lambda = 0.01;
  c.admm_sharing.noise = SharingNoiseMode::kPaper;
  c.admm_sharing.paper_b1 = 10;
  c.admm_sharing.paper_c1 = 2;
  c.admm_sharing.target_epsilon = 2.3563;  // digest A4: eps 0.1, T 20
  c.admm_sharing.target_delta = 2 * 20 * 1e-5;
  auto plan = PlanSharingPrivacy(c);
  ASSERT_TRUE(plan.ok()) << plan.error().message();
  ASSERT_EQ(plan->size(), 2u);
  const SharingPartyPrivacy& p0 = (*plan)[0];
  EXPECT_NEAR(p0.sensitivity, 1.3645, 1e-4);  // digest A4's example C
  // delta' = delta_total / 2, delta = delta_total / (2T) (digest A4).
  EXPECT_NEAR(p0.step_delta, 1e-5, 1e-12);
  auto composed = privacy::Paper000AdvancedComposition(
      p0.step_epsilon, 20, c.admm_sharing.target_delta / 2);
  ASSERT_TRUE(composed.ok());
  EXPECT_NEAR(*composed, 2.3563, 1e-6);
  EXPECT_GT(p0.step_epsilon, 0.1);  // delta' = 2e-4 > 1e-5: a larger step eps
  EXPECT_NEAR(p0.sigma, 4.8448 / p0.step_epsilon * p0.sensitivity, 1e-3);
  EXPECT_EQ(p0.first_column, 0);
  EXPECT_EQ((*plan)[1].first_column, 66);
  // C_m shrinks as 1/d_m (the heuristic the digest warns about).
  EXPECT_NEAR((*plan)[1].sensitivity, p0.sensitivity * 66 / 57, 1e-9);
  EXPECT_NE(p0.relation.find("feature column"), std::string::npos);
  EXPECT_DOUBLE_EQ(p0.epsilon, 2.3563);
}

TEST(AdmmSharingTest, StatusLedgerAndExportShowEveryPartysPlan) {
  jobs::JobConfig c = Job();
  c.algorithm = AlgorithmKind::kAdmmSharing;
  c.admm_sharing.noise = SharingNoiseMode::kRigorous;
  c.admm_sharing.sigma = 4;
  c.admm_sharing.sensitivity = 1;
  const std::string json = SharingPlanJson(c);
  EXPECT_NE(json.find("\"party\": 0, \"first_column\": 0, \"columns\": 3, "
                      "\"mode\": \"rigorous\""),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"party\": 1, \"first_column\": 3, \"columns\": 2"),
            std::string::npos);
  EXPECT_NE(json.find("\"relation\": \"replace one record of the party's "
                      "block, or the whole block"),
            std::string::npos);
  EXPECT_NE(json.find("\"delta\": 1.0000000000000001e-05"), std::string::npos);
  c.admm_sharing.sigma = 0;  // invalid
  EXPECT_EQ(SharingPlanJson(c), "null");
}

// The job reports get the plan through the algorithm's ReportSections; an
// algorithm without one adds no section.
TEST(AdmmSharingTest, ThePlanIsTheUnitsReportSection) {
  jobs::JobConfig c = Job();
  c.algorithm = AlgorithmKind::kAdmmSharing;
  c.admm_sharing.noise = SharingNoiseMode::kRigorous;
  c.admm_sharing.sigma = 4;
  c.admm_sharing.sensitivity = 1;
  const ReportSections* unit = Get(c.algorithm).report_sections();
  ASSERT_NE(unit, nullptr);
  const ReportSection section = unit->PlanSection(c);
  EXPECT_EQ(section.key, "admm_sharing");
  EXPECT_EQ(section.json, SharingPlanJson(c));
  EXPECT_EQ(section.text,
            "admm-sharing plan per party (at job creation, for job.rounds "
            "iterations): " +
                section.json + "\n");
  EXPECT_NE(std::string(unit->TestScoreMeaning()).find("partial scores"),
            std::string::npos);
  const PartyPrivacy* party = Get(c.algorithm).party_privacy();
  ASSERT_NE(party, nullptr);
  EXPECT_EQ(party->DescribePartyLedger(c).relation,
            DescribeSharingLedger(c).relation);
  EXPECT_EQ(Get(AlgorithmKind::kProxAdmm).report_sections(), nullptr);
}

TEST(AdmmSharingTest, RigorousPlanIsTheGaussianOverTRounds) {
  jobs::JobConfig c = Job();
  c.admm_sharing.noise = SharingNoiseMode::kRigorous;
  c.admm_sharing.sigma = 4;
  c.admm_sharing.sensitivity = 1;
  c.admm_sharing.target_delta = 1e-5;
  auto plan = PlanSharingPrivacy(c);
  ASSERT_TRUE(plan.ok());
  const double rho = 20.0 / (2 * 16);
  for (const SharingPartyPrivacy& p : *plan) {
    EXPECT_NEAR(p.epsilon, rho + 2 * std::sqrt(rho * std::log(1e5)), 1e-12);
    EXPECT_DOUBLE_EQ(p.delta, 1e-5);
  }
  // No noise: infinite epsilon, said so.
  auto none = PlanSharingPrivacy(Job());
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(std::isinf((*none)[0].epsilon));
}

TEST(AdmmSharingTest, LabelsAreTheFirstNRecordsOfTheGatewayFile) {
  const std::string path = ::testing::TempDir() + "/admm_sharing_labels.libsvm";
  {
    std::ofstream f(path);
    f << "+1 1:1\n-1 2:1\n-1 5:0.5\n+1 3:1\n+1 4:1\n";
  }
  jobs::JobConfig c = Job();
  c.admm_sharing.labels = path;
  auto labels = LoadSharingLabels(c);
  ASSERT_TRUE(labels.ok()) << labels.error().message();
  EXPECT_EQ(*labels, (std::vector<double>{1, -1, -1, 1}));
  c.admm_sharing.records = 6;
  auto few = LoadSharingLabels(c);
  ASSERT_FALSE(few.ok());
  EXPECT_NE(few.error().message().find("admm_sharing.labels"),
            std::string::npos);
  c.admm_sharing.labels = path + ".missing";
  EXPECT_FALSE(LoadSharingLabels(c).ok());
  std::remove(path.c_str());
}

TEST(AdmmSharingTest, ARoundResumedFromItsStateEqualsTheServerRunThrough) {
  const jobs::JobConfig c = Job();
  const std::vector<double> labels = {1, -1, -1, 1};
  const std::vector<std::vector<std::vector<double>>> rounds = {
      {{0.1, -0.2, 0.3, 0.0}, {0.5, 0.1, -0.4, 0.2}},
      {{0.3, -0.1, 0.2, 0.4}, {0.2, -0.3, -0.1, 0.6}}};
  AdmmSharingServer reference;
  ASSERT_TRUE(reference.Init(labels, 0.1, 0.25).ok());
  SharingState state;  // empty: x = y = z = 0
  for (const auto& shares : rounds) {
    ASSERT_TRUE(reference.ApplyRound(shares, nullptr).ok());
    SharingState persisted = state;  // what the store would reload
    SharingBroadcast b;
    ASSERT_TRUE(ApplySharingRound(c, labels, shares, persisted, b).ok());
    EXPECT_EQ(persisted.z, reference.z());
    EXPECT_EQ(persisted.y, reference.y());
    EXPECT_EQ(b.v, reference.v());
    EXPECT_EQ(b.y, reference.y());
    // Lemma 2: y = ∇l(z), with c = 1/N.
    const std::vector<double> g = reference.LossGradient(persisted.z);
    for (size_t i = 0; i < g.size(); ++i) {
      EXPECT_NEAR(persisted.y[i], g[i], 1e-12);
    }
    state = persisted;
  }
}

TEST(AdmmSharingTest, ARoundNeedsEveryPartysFiniteShareOfLengthN) {
  const jobs::JobConfig c = Job();
  const std::vector<double> labels = {1, -1, -1, 1};
  SharingState state;
  SharingBroadcast b;
  EXPECT_FALSE(
      ApplySharingRound(c, labels, {{0, 0, 0, 0}}, state, b).ok());  // M−1
  EXPECT_FALSE(
      ApplySharingRound(c, labels, {{0, 0, 0, 0}, {0, 0, 0}}, state, b).ok());
  EXPECT_FALSE(
      ApplySharingRound(c, labels, {{0, 0, 0, 0}, {0, NAN, 0, 0}}, state, b)
          .ok());
  EXPECT_TRUE(state.z.empty());  // unchanged
  state.z = {0, 0, 0};
  state.y = {0, 0, 0, 0};
  EXPECT_FALSE(
      ApplySharingRound(c, labels, {{0, 0, 0, 0}, {0, 0, 0, 0}}, state, b)
          .ok());  // a corrupt persisted state
}

TEST(AdmmSharingTest, TheGatewayScoresTheSumOfThePartialScores) {
  const std::vector<double> labels = {1, -1, 1};
  auto s = ScorePartialSums({{1, 0.5, -2}, {1, -1.5, 1}}, labels);
  ASSERT_TRUE(s.ok());
  // margins t = (2, −1, −1): Y·t = (2, 1, −1).
  const double expected =
      (std::log1p(std::exp(-2.0)) + std::log1p(std::exp(-1.0)) +
       std::log1p(std::exp(1.0))) /
      3;
  EXPECT_NEAR(s->log_loss, expected, 1e-12);
  EXPECT_NEAR(s->accuracy, 2.0 / 3, 1e-12);
  EXPECT_FALSE(ScorePartialSums({{1, 2}}, labels).ok());
  EXPECT_FALSE(ScorePartialSums({{1, NAN, 2}}, labels).ok());
}

std::string LabelFile() {
  const std::string path = ::testing::TempDir() + "/admm_sharing_job.libsvm";
  std::ofstream(path) << "+1 1:1\n-1 2:1\n-1 5:0.5\n+1 3:1\n";
  return path;
}

std::string JobToml(const std::string& labels, const std::string& extra) {
  return "[job]\nname = \"s\"\nalgorithm = \"admm-sharing\"\nloss = "
         "\"logistic\"\ndimension = 5\nrounds = 3\n[admm_sharing]\n"
         "parties = 2\ncolumns = [3, 2]\nrecords = 4\nrho = 0.1\n"
         "lambda = 0.01\nlabels = \"" +
         labels + "\"\nnoise = \"none\"\n" + extra +
         "[sampling]\ndeadline_seconds = 5\n";
}

TEST(AdmmSharingTest, TheJobParserServesAndRefusesWithTheKey) {
  const std::string labels = LabelFile();
  auto job = jobs::ParseJobConfig(JobToml(labels, ""));
  ASSERT_TRUE(job.ok()) << job.error().message();
  EXPECT_EQ(job->algorithm, AlgorithmKind::kAdmmSharing);
  EXPECT_EQ(job->m, 2);  // every party every round
  EXPECT_EQ(job->m_min, 2);
  EXPECT_TRUE(std::isinf(job->central_budget));
  const auto refusal = [&](const std::string& toml) {
    auto r = jobs::ParseJobConfig(toml);
    return r.ok() ? std::string("ok") : r.error().message();
  };
  EXPECT_EQ(refusal(Edit2(JobToml(labels, ""), "columns = [3, 2]\n", "")),
            "admm_sharing.columns: missing");
  EXPECT_NE(refusal(JobToml(labels + ".missing", ""))
                .find("admm_sharing.labels: cannot read"),
            std::string::npos);
  EXPECT_NE(refusal(Edit2(JobToml(labels, ""), "records = 4", "records = 5"))
                .find("admm_sharing.labels"),
            std::string::npos);  // 4 labels on the gateway
  // The daemon's record-space bound (EDGEADMM_CFG_MAX_RECORD_DIMENSION).
  const std::string too_many = std::to_string(wire::kMaxRecordDimension + 1);
  EXPECT_NE(refusal(Edit2(JobToml(labels, ""), "records = 4",
                          "records = " + too_many))
                .find("admm_sharing.records: must be in [1, " +
                      std::to_string(wire::kMaxRecordDimension) + "]"),
            std::string::npos);
  EXPECT_NE(
      refusal(Edit2(JobToml(labels, ""), "[sampling]\n", "[sampling]\nm = 1\n"))
          .find("sampling:"),
      std::string::npos);
  EXPECT_NE(refusal(Edit2(JobToml(labels, ""), "[sampling]\n",
                          "[privacy]\nsigma = 1\n[sampling]\n"))
                .find("privacy.sigma"),
            std::string::npos);
}

TEST(AdmmSharingTest, EachPartysTaskTakesItsOwnShareOutOfV) {
  jobs::JobConfig c = Job();
  c.admm_sharing.noise = SharingNoiseMode::kRigorous;
  c.admm_sharing.sigma = 0.5;
  c.admm_sharing.sensitivity = 0.1;
  const Algorithm& a = Get(AlgorithmKind::kAdmmSharing);
  EXPECT_EQ(a.ModelLength(c), 8);
  EXPECT_EQ(a.TaskAuxiliaryLength(c), 4);
  EXPECT_EQ(a.UploadLength(c), 4);
  EXPECT_EQ(a.barrier_rounds()->RequiredDevices(c), 2);
  EXPECT_EQ(a.barrier_rounds()->BarrierRetries(c), 2);
  // (v, y) released; party 1's last share taken out of v, y kept.
  std::vector<double> vector = {1, 2, 3, 4, 10, 20, 30, 40};
  a.node_tasks()->NodeTaskVector(c, 1, {{9, 9, 9, 9}, {0.5, 1, 1.5, 2}},
                                 vector);
  EXPECT_EQ(vector, (std::vector<double>{0.5, 1, 1.5, 2, 10, 20, 30, 40}));
  edgeadmm_wire_RoundTask task = edgeadmm_wire_RoundTask_init_zero;
  a.FillTask(c, 2, 4, task);
  a.node_tasks()->FillNodeTask(c, 1, task);
  const edgeadmm_wire_SharingParams& p = task.params.sharing_params;
  EXPECT_EQ(p.party, 1u);
  EXPECT_EQ(p.first_column, 3u);
  EXPECT_EQ(p.columns, 2u);
  EXPECT_EQ(p.records, 4u);
  EXPECT_EQ(p.iteration, 5u);
  EXPECT_EQ(p.noise, 2u);
  EXPECT_DOUBLE_EQ(p.sigma, 0.5);
  EXPECT_DOUBLE_EQ(p.sensitivity, 0.1);
}

TEST(AdmmSharingTest, TheServerUpdateKeepsZAndYAsItsState) {
  jobs::JobConfig c = Job();
  c.admm_sharing.labels = LabelFile();
  const Algorithm& a = Get(AlgorithmKind::kAdmmSharing);
  ServerModel model;
  model.z.assign(8, 0.0);
  model.state.assign(8, 0.0);  // as the job store creates it
  struct NoNoise : RoundNoise {
    Status AddNoise(double, std::vector<double>&) override {
      return Status::Ok();
    }
  } noise;
  const std::vector<std::vector<double>> shares = {{0.1, -0.2, 0.3, 0.0},
                                                   {0.5, 0.1, -0.4, 0.2}};
  ASSERT_TRUE(a.ApplyRound(c, 2, shares, noise, model).ok());
  AdmmSharingServer reference;
  ASSERT_TRUE(reference.Init({1, -1, -1, 1}, 0.1, 0.25).ok());
  ASSERT_TRUE(reference.ApplyRound(shares, nullptr).ok());
  std::vector<double> state = reference.z();
  state.insert(state.end(), reference.y().begin(), reference.y().end());
  std::vector<double> released = reference.v();
  released.insert(released.end(), reference.y().begin(), reference.y().end());
  EXPECT_EQ(model.state, state);
  EXPECT_EQ(model.z, released);
  EXPECT_FALSE(a.ApplyRound(c, 2, {shares[0]}, noise, model).ok());  // M − 1
}

// Bounded shares (docs/privacy.md, "Bounded shares"; issue 31 item 4): the
// sensitivities the per-party ledger and the plan charge, and the one sent
// to the devices (which clip to half of it), are derived from share_clip /
// score_clip: Δ = 2C, Δ_s = 2C_s; a Δ given beside its clip must be 2C.
// Before, the ledger charged whatever `sensitivity` said.
jobs::JobConfig ClippedJob() {
  jobs::JobConfig c = Job();
  c.admm_sharing.noise = SharingNoiseMode::kRigorous;
  c.admm_sharing.sigma = 0.3;
  c.admm_sharing.share_clip = 0.05;
  c.admm_sharing.target_delta = 1e-5;
  return c;
}

TEST(AdmmSharingClipTest, TheChargedSensitivityIsTwiceTheShareClip) {
  const jobs::JobConfig c = ClippedJob();
  ASSERT_EQ(Refusal(c), "ok");
  EXPECT_DOUBLE_EQ(SharingShareSensitivity(c.admm_sharing), 0.1);
  double nu = 0;
  ASSERT_TRUE(SharingPartyMechanism(c, 1, nu));
  EXPECT_DOUBLE_EQ(nu, 0.3 / 0.1);  // σ/Δ with Δ = 2C
  auto plan = PlanSharingPrivacy(c);
  ASSERT_TRUE(plan.ok());
  const double rho = 20 * 0.1 * 0.1 / (2 * 0.3 * 0.3);
  for (const SharingPartyPrivacy& p : *plan) {
    EXPECT_DOUBLE_EQ(p.sensitivity, 0.1);
    EXPECT_NEAR(p.epsilon, rho + 2 * std::sqrt(rho * std::log(1e5)), 1e-12);
  }
  // What the devices are sent (and clip to half of).
  edgeadmm_wire_RoundTask task = edgeadmm_wire_RoundTask_init_zero;
  task.which_params = edgeadmm_wire_RoundTask_sharing_params_tag;
  AdmmSharing algorithm;
  algorithm.FillNodeTask(c, 0, task);
  EXPECT_DOUBLE_EQ(task.params.sharing_params.sensitivity, 0.1);
  // The label names the clip and the derived Δ.
  const PartyLedgerMeaning m = DescribeSharingLedger(c);
  EXPECT_NE(m.relation.find("C = 0.05"), std::string::npos) << m.relation;
  EXPECT_NE(m.relation.find("Delta = 2C = 0.1"), std::string::npos);
  EXPECT_EQ(m.relation.find("not verified"), std::string::npos);
}

TEST(AdmmSharingClipTest, ASensitivityThatIsNotTwiceTheClipIsRefused) {
  jobs::JobConfig c = ClippedJob();
  c.admm_sharing.sensitivity = 0.1;  // = 2C: accepted
  EXPECT_EQ(Refusal(c), "ok");
  c.admm_sharing.sensitivity = 1e-3;  // the old unchecked number
  EXPECT_NE(Refusal(c).find("admm_sharing.sensitivity: is derived from the "
                            "clip"),
            std::string::npos)
      << Refusal(c);
  c.admm_sharing.share_clip = 0;  // Δ alone: the clip is Δ/2
  EXPECT_EQ(Refusal(c), "ok");
  EXPECT_DOUBLE_EQ(SharingShareSensitivity(c.admm_sharing), 1e-3);
  c.admm_sharing.sensitivity = 0;  // neither
  EXPECT_NE(Refusal(c).find("admm_sharing.share_clip"), std::string::npos);
  c.admm_sharing.share_clip = -1;
  EXPECT_NE(Refusal(c).find("admm_sharing.share_clip"), std::string::npos);
}

TEST(AdmmSharingClipTest, TheScoresChargeTwiceTheScoreClip) {
  jobs::JobConfig c = ClippedJob();
  c.admm_sharing.test_records = 2;
  c.admm_sharing.test_labels = "test.libsvm";
  c.admm_sharing.score_noise_given = true;
  c.admm_sharing.score_noise = jobs::SharingScoreNoise::kGaussian;
  c.admm_sharing.score_sigma = 0.5;
  c.admm_sharing.score_clip = 0.1;
  ASSERT_EQ(Refusal(c), "ok");
  double nu = 0;
  ASSERT_TRUE(SharingPartyMechanism(c, c.rounds, nu));
  // The last step: one Gaussian of ratio √((Δ/σ)² + (Δ_s/σ_s)²).
  const double ratio =
      std::sqrt(std::pow(0.1 / 0.3, 2) + std::pow(0.2 / 0.5, 2));
  EXPECT_NEAR(nu, 1 / ratio, 1e-15);
  auto plan = PlanSharingPrivacy(c);
  ASSERT_TRUE(plan.ok());
  EXPECT_DOUBLE_EQ((*plan)[0].score_sensitivity, 0.2);
  edgeadmm_wire_RoundTask task = edgeadmm_wire_RoundTask_init_zero;
  task.which_params = edgeadmm_wire_RoundTask_sharing_params_tag;
  AdmmSharing algorithm;
  algorithm.FillTask(c, 4, c.rounds - 1, task);
  EXPECT_DOUBLE_EQ(task.params.sharing_params.score_sensitivity, 0.2);
  c.admm_sharing.score_sensitivity = 0.5;  // not 2·C_s
  EXPECT_NE(Refusal(c).find("admm_sharing.score_sensitivity: is derived"),
            std::string::npos);
  c.admm_sharing.score_sensitivity = 0;
  c.admm_sharing.score_clip = 0;
  EXPECT_NE(Refusal(c).find("admm_sharing.score_clip"), std::string::npos);
}

}  // namespace
}  // namespace edgeadmm::algorithms
