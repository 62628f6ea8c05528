#include "edgeadmm/jobs/job_config.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <utility>

#include "test_database.h"

namespace edgeadmm::jobs {
namespace {

using testing::DefaultPrivacyTable;
using testing::DefaultSamplingTable;
using testing::JobToml;
using testing::ReplaceOnce;

// Replaces the first occurrence of `from` in `text` (which must contain it).
std::string Base() {
  return JobToml("j", "prox-admm", DefaultPrivacyTable(),
                 DefaultSamplingTable());
}

// The message of a failed parse ("" if it succeeded).
std::string ErrorOf(const std::string& toml) {
  return ParseJobConfig(toml).error().message();
}

TEST(JobConfigTest, ParsesEveryField) {
  auto c = ParseJobConfig(Base() + "[validation]\ndata = \"/data/a9a.t.xz\"\n");
  ASSERT_TRUE(c.ok()) << c.error().ToString();
  EXPECT_EQ(c->name, "j");
  EXPECT_EQ(c->algorithm, AlgorithmKind::kProxAdmm);
  EXPECT_EQ(c->loss, Loss::kLogistic);
  EXPECT_EQ(c->dimension, 3);
  EXPECT_EQ(c->rounds, 5);
  EXPECT_EQ(c->regularizer.kind, RegularizerKind::kL1);
  EXPECT_DOUBLE_EQ(c->regularizer.l1, 0.01);
  EXPECT_DOUBLE_EQ(c->lambda, 0.5);
  EXPECT_DOUBLE_EQ(c->gamma, 2.0);
  EXPECT_EQ(c->policy, privacy::Policy::kParticipation);
  EXPECT_FALSE(c->noise_in_state);
  EXPECT_DOUBLE_EQ(c->sigma, 2.0);
  EXPECT_FALSE(c->noise_planned());
  // The default is pld; prox-admm's devices put their noise on the grid, so
  // under a device-noise policy it resolves to rdp (docs/privacy.md).
  EXPECT_EQ(c->accountant, CentralAccountant::kRdp);
  EXPECT_EQ(ParseJobConfig(ReplaceOnce(Base(), "delta = 1e-5",
                                       "delta = 1e-5\naccountant = \"rdp\""))
                ->accountant,
            CentralAccountant::kRdp);
  EXPECT_EQ(c->sampling, SamplingScheme::kFixed);
  EXPECT_EQ(c->m, 4);
  EXPECT_EQ(c->m_min, 2);
  EXPECT_EQ(c->sampling_seed, 7u);
  EXPECT_DOUBLE_EQ(c->deadline_seconds, 10);
  EXPECT_EQ(c->validation_data, "/data/a9a.t.xz");
}

TEST(JobConfigTest, ValidationFormatAndNormalization) {
  auto c = ParseJobConfig(Base() + "[validation]\ndata = \"/d/v.libsvm\"\n");
  ASSERT_TRUE(c.ok()) << c.error().ToString();
  EXPECT_EQ(c->validation_format, DataFormat::kLibsvm);
  EXPECT_EQ(c->validation_normalize, RowNormalization::kNone);
  const std::string adult =
      ReplaceOnce(Base(), "dimension = 3", "dimension = 105") +
      "[validation]\ndata = \"/d/adult.test\"\nformat = \"adult-csv\"\n"
      "normalize = \"unit\"\n";
  c = ParseJobConfig(adult);
  ASSERT_TRUE(c.ok()) << c.error().ToString();
  EXPECT_EQ(c->validation_format, DataFormat::kAdultCsv);
  EXPECT_EQ(c->validation_normalize, RowNormalization::kUnitNorm);
  // Adult CSV always has 105 features.
  std::string error =
      ErrorOf(ReplaceOnce(adult, "dimension = 105", "dimension = 14"));
  EXPECT_NE(error.find("validation.format"), std::string::npos) << error;
  EXPECT_NE(error.find("105"), std::string::npos) << error;
  error = ErrorOf(ReplaceOnce(adult, "\"unit\"", "\"l2\""));
  EXPECT_NE(error.find("validation.normalize"), std::string::npos) << error;
  error = ErrorOf(ReplaceOnce(adult, "\"adult-csv\"", "\"arff\""));
  EXPECT_NE(error.find("validation.format"), std::string::npos) << error;
}

// central_budget = inf only in a job that says it is a measurement
// (privacy.audit = true): otherwise its releases would have no cap.
TEST(JobConfigTest, InfiniteBudgetOnlyInAnAuditAndTargetEpsilon) {
  std::string toml =
      ReplaceOnce(Base(), "central_budget = 1000.0", "central_budget = inf");
  toml = ReplaceOnce(toml, "sigma = 2.0", "target_epsilon = 3.0");
  const std::string refused = ErrorOf(toml);
  EXPECT_NE(refused.find("privacy.audit = true"), std::string::npos) << refused;
  toml = ReplaceOnce(toml, "central_budget = inf",
                     "central_budget = inf\naudit = true");
  auto c = ParseJobConfig(toml);
  ASSERT_TRUE(c.ok()) << c.error().ToString();
  EXPECT_TRUE(std::isinf(c->central_budget));
  EXPECT_TRUE(c->noise_planned());
  EXPECT_LT(c->sigma, 0);
}

// Issue 35 item 3: a table or key the parser does not read is refused,
// with the nearest valid name when one is close (a misspelled key would
// otherwise run with its default); a stored job (kIgnore) still loads.
TEST(JobConfigTest, UnknownKeysAreRefusedWithTheNearestName) {
  const std::pair<std::string, const char*> kCases[] = {
      {ReplaceOnce(Base(), "rho = ", "rhoo = "),
       "unknown key step.rhoo; did you mean step.rho?"},
      {Base() + "[stepp]\nrho = 1.0\n",
       "unknown table [stepp]; did you mean [step]?"},
      {Base() + "[step.extra]\nx = 1\n", "unknown key step.extra"},
      {Base() + "[colour]\nblue = 1\n", "unknown table [colour]"},
      {"rounds = 3\n" + Base(),
       "unknown key rounds outside the tables; did you mean job.rounds?"},
  };
  for (const auto& [text, expected] : kCases) {
    const auto c = ParseJobConfig(text);
    ASSERT_FALSE(c.ok()) << text;
    EXPECT_EQ(c.error().message(), expected) << text;
  }
  const auto stored =
      ParseJobConfig(Base() + "[colour]\nblue = 1\n", UnknownKeys::kIgnore);
  EXPECT_TRUE(stored.ok()) << stored.error().ToString();
}

// Each algorithm reads its own table (algorithms::Algorithm::ReadTable): a
// table of another algorithm is refused by name, its keys are not read into
// this job, and a stored job that has one still loads.
TEST(JobConfigTest, AnotherAlgorithmsTableIsRefused) {
  const std::string with_pp_table =
      Base() + "[pp_admm]\nnodes = 5\ntheta = 0.5\n";
  EXPECT_EQ(ErrorOf(with_pp_table),
            "[pp_admm]: a table of pp-admm jobs; this job runs prox-admm");
  const std::string with_dp_table = Base() + "[dp_admm]\nd_w = 2.0\n";
  EXPECT_EQ(ErrorOf(with_dp_table),
            "[dp_admm]: a table of dp-admm jobs; this job runs prox-admm");
  const auto stored = ParseJobConfig(with_dp_table, UnknownKeys::kIgnore);
  ASSERT_TRUE(stored.ok()) << stored.error().ToString();
  EXPECT_DOUBLE_EQ(stored->dp_admm.d_w, DpAdmmConfig{}.d_w);
  // A misspelled key of the job's own table is still named.
  const std::string dp_admm =
      JobToml("j", "dp-admm", DefaultPrivacyTable(), DefaultSamplingTable()) +
      "[dp_admm]\nd_w = 2.0\nstep_epsilon = 0.5\nmax_records = 4\n"
      "schedulee = \"convex\"\n";
  EXPECT_EQ(ErrorOf(dp_admm),
            "unknown key dp_admm.schedulee; did you mean dp_admm.schedule?");
}

struct BadCase {
  const char* from;
  const char* to;
  const char* expected_key;
};

TEST(JobConfigTest, EveryInvalidFieldIsNamed) {
  const BadCase kCases[] = {
      {"name = \"j\"", "", "job.name: missing"},
      {"algorithm = \"prox-admm\"", "algorithm = \"admm9\"",
       "job.algorithm: unknown value \"admm9\""},
      {"dimension = 3", "dimension = \"3\"",
       "job.dimension: must be an integer"},
      {"dimension = 3", "dimension = 0", "job.dimension"},
      {"dimension = 3", "dimension = 8193",
       "job.dimension: must be in [1, 8192] (EDGEADMM_CFG_MAX_FEATURES"},
      {"rounds = 5", "rounds = 0", "job.rounds"},
      {"rounds = 5", "rounds = 5\ndevice_prefix = \"hvac*\"",
       "job.device_prefix: must be 1..64 characters"},
      {"l1 = 0.01", "l1 = -1.0", "regularizer"},
      {"lambda = 0.5", "lambda = 1.5", "step.lambda"},
      {"gamma = 2.0", "gamma = 0.0", "step.gamma"},
      {"clip = 1.0", "clip = -1.0", "privacy.clip"},
      {"sigma = 2.0", "", "privacy: give sigma"},
      {"sigma = 2.0", "sigma = 2.0\ntarget_epsilon = 1.0",
       "privacy: give either sigma or target_epsilon"},
      {"delta = 1e-5", "delta = 1.5", "privacy.delta"},
      {"delta = 1e-5", "delta = 1e-5\naccountant = \"moments\"",
       "privacy.accountant: unknown value \"moments\" (one of: pld, rdp)"},
      {"device_budget = 1000.0", "device_budget = nan",
       "privacy.device_budget: must be a number or inf"},
      {"scheme = \"fixed\"", "scheme = \"lottery\"", "sampling.scheme"},
      {"m = 4", "m = 0", "sampling.m"},
      {"m_min = 2", "m_min = 5", "sampling.m_min: must be <= sampling.m"},
      {"deadline_seconds = 10", "deadline_seconds = -1",
       "sampling.deadline_seconds"},
      {"policy = \"participation\"", "policy = \"trusted-aggregator\"",
       "privacy.policy: trusted-aggregator needs poisson"},
      {"policy = \"participation\"", "policy = \"local-dp\"",
       "privacy.policy: unknown value \"local-dp\""},
      {"policy = \"participation\"", "policy = \"lottery\"",
       "privacy.policy: unknown value \"lottery\" (one of: participation, "
       "participation-own-noise, trusted-aggregator, secure-aggregation)"},
      {"policy = \"participation\"", "policy = \"secure-aggregation\"",
       "privacy.sigma: not under secure-aggregation"},
      {"clip = 1.0", "clip = 1.0\nnoise_in_state = 1",
       "privacy.noise_in_state: must be true or false"},
      {"[job]", "[job\n", "TOML syntax error at line 1"},
  };
  for (const BadCase& bad : kCases) {
    auto c = ParseJobConfig(ReplaceOnce(Base(), bad.from, bad.to));
    EXPECT_EQ(c.status(), Status::InvalidArgument()) << bad.to;
    const std::string error = c.error().message();
    EXPECT_EQ(error.rfind(bad.expected_key, 0), 0u)
        << "got \"" << error << "\" for " << bad.to;
  }
}

TEST(JobConfigTest, ParticipationRefusesNoiseInState) {
  auto c = ParseJobConfig(
      ReplaceOnce(Base(), "clip = 1.0", "clip = 1.0\nnoise_in_state = true"));
  EXPECT_EQ(c.status(), Status::InvalidArgument());
  const std::string error = c.error().message();
  EXPECT_EQ(error.rfind("privacy.noise_in_state: must be false under policy "
                        "participation",
                        0),
            0u)
      << error;
  EXPECT_NE(error.find("participation-own-noise"), std::string::npos) << error;
  // A config built in code is refused the same way.
  JobConfig built = *ParseJobConfig(Base());
  built.noise_in_state = true;
  host::Error refused = ValidateJobConfig(built);
  EXPECT_EQ(refused.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(refused.message().rfind("privacy.noise_in_state", 0), 0u)
      << refused.message();
  // local-dp is the devices' own ledger, not a job policy.
  built.noise_in_state = false;
  built.policy = privacy::Policy::kLocalDp;
  refused = ValidateJobConfig(built);
  EXPECT_EQ(refused.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(refused.message().rfind("privacy.policy: local-dp", 0), 0u)
      << refused.message();
}

// trusted-aggregator's subsampled charge needs a secret cohort (a known seed
// would let anyone recompute it) and a release decision that does not depend
// on the cohort size (m_min = 0) (issue 13, defects 2 and 3).
// ValidateJobConfig refuses `c` with a message that starts with `prefix`.
void ExpectRefused(const JobConfig& c, const std::string& prefix) {
  const host::Error refused = ValidateJobConfig(c);
  EXPECT_EQ(refused.code(), StatusCode::kInvalidArgument) << prefix;
  EXPECT_EQ(refused.message().rfind(prefix, 0), 0u) << refused.message();
}

TEST(JobConfigTest, TrustedAggregatorRefusesASeedAndAThreshold) {
  JobConfig built = *ParseJobConfig(Base());
  built.policy = privacy::Policy::kTrustedAggregator;
  built.sampling = SamplingScheme::kPoisson;
  built.q = 0.5;
  built.m_min = 0;
  built.sampling_seed = 7;
  ExpectRefused(built, "sampling.seed: not allowed under trusted-aggregator");
  built.sampling_seed = 0;
  built.m_min = 2;
  ExpectRefused(built, "sampling.m_min: must be 0 under trusted-aggregator");
  built.m_min = 0;
  EXPECT_TRUE(ValidateJobConfig(built).ok())
      << ValidateJobConfig(built).message();
  // Under participation the cohort is not secret to the accounting, and a
  // round needs at least one upload.
  built.policy = privacy::Policy::kParticipation;
  built.sampling_seed = 7;
  ExpectRefused(built, "sampling.m_min: must be >= 1");
  built.m_min = 1;
  EXPECT_TRUE(ValidateJobConfig(built).ok())
      << ValidateJobConfig(built).message();
}

// docs/privacy.md, "Discrete Gaussian" (*PLD*): a trusted-aggregator job's
// only noise is the gateway's single discrete Gaussian on the rounded sum,
// bridged to the continuous one, so it keeps the accountant it asks for (pld
// by default). Where devices draw grid noise (participation,
// participation-own-noise) pld resolves to rdp.
TEST(JobConfigTest, OnlyTrustedAggregatorKeepsThePldAccountant) {
  const std::string poisson =
      "[sampling]\nscheme = \"poisson\"\nq = 0.5\nm_min = 0\n"
      "deadline_seconds = 10\n";
  const auto parse = [](const std::string& policy, const std::string& extra,
                        const std::string& sampling) {
    return ParseJobConfig(
        JobToml("j", "prox-admm",
                testing::PrivacyTableWithPolicy(policy, extra), sampling));
  };
  for (const std::string extra : {"", "accountant = \"pld\""}) {
    auto trusted = parse("trusted-aggregator", extra, poisson);
    ASSERT_TRUE(trusted.ok()) << trusted.error().ToString();
    EXPECT_EQ(trusted->accountant, CentralAccountant::kPld) << extra;
  }
  auto rdp = parse("trusted-aggregator", "accountant = \"rdp\"", poisson);
  ASSERT_TRUE(rdp.ok()) << rdp.error().ToString();
  EXPECT_EQ(rdp->accountant, CentralAccountant::kRdp);
  for (const char* policy : {"participation", "participation-own-noise"}) {
    auto forced = parse(policy, "accountant = \"pld\"", DefaultSamplingTable());
    ASSERT_TRUE(forced.ok()) << forced.error().ToString();
    EXPECT_EQ(forced->accountant, CentralAccountant::kRdp) << policy;
  }
}

// docs/privacy.md, "Colluding devices": t = privacy.max_colluders (default
// 1) devices of the cohort know their own noise; planning σ needs m_min > t.
TEST(JobConfigTest, MaxColludersDefaultsToOneAndBoundsThePlannedCohort) {
  auto c = ParseJobConfig(Base());
  ASSERT_TRUE(c.ok()) << c.error().ToString();
  EXPECT_EQ(c->max_colluders, 1);
  c = ParseJobConfig(
      ReplaceOnce(Base(), "delta = 1e-5", "delta = 1e-5\nmax_colluders = 3"));
  ASSERT_TRUE(c.ok()) << c.error().ToString();
  EXPECT_EQ(c->max_colluders, 3);
  std::string error = ErrorOf(
      ReplaceOnce(Base(), "delta = 1e-5", "delta = 1e-5\nmax_colluders = -1"));
  EXPECT_EQ(error.rfind("privacy.max_colluders: must be >= 0", 0), 0u) << error;
  // m_min = 2 (Base): planning σ needs t < 2.
  const std::string planned =
      ReplaceOnce(Base(), "sigma = 2.0", "target_epsilon = 3.0");
  EXPECT_TRUE(ParseJobConfig(planned).ok());
  error = ErrorOf(
      ReplaceOnce(planned, "delta = 1e-5", "delta = 1e-5\nmax_colluders = 2"));
  EXPECT_EQ(
      error.rfind("sampling.m_min: must be > privacy.max_colluders (2)", 0), 0u)
      << error;
  // A given σ is charged the unknown noise of each round as it comes.
  EXPECT_TRUE(ParseJobConfig(ReplaceOnce(Base(), "delta = 1e-5",
                                         "delta = 1e-5\nmax_colluders = 2"))
                  .ok());
}

TEST(JobConfigTest, OwnNoisePolicyMayKeepNoiseInState) {
  for (const char* flag : {"true", "false"}) {
    std::string toml = ReplaceOnce(Base(), "policy = \"participation\"",
                                   "policy = \"participation-own-noise\"");
    toml = ReplaceOnce(toml, "clip = 1.0",
                       std::string("clip = 1.0\nnoise_in_state = ") + flag);
    auto c = ParseJobConfig(toml);
    ASSERT_TRUE(c.ok()) << c.error().ToString();
    EXPECT_EQ(c->policy, privacy::Policy::kParticipationOwnNoise);
    EXPECT_EQ(c->noise_in_state, std::string(flag) == "true");
  }
}

TEST(JobConfigTest, PoissonNeedsRateInUnitInterval) {
  const std::string sampling =
      "[sampling]\nscheme = \"poisson\"\nq = 1.5\nm_min = 1\n"
      "deadline_seconds = 1\n";
  auto c = ParseJobConfig(
      JobToml("j", "prox-admm", DefaultPrivacyTable(), sampling));
  EXPECT_EQ(c.status(), Status::InvalidArgument());
  EXPECT_EQ(c.error().message().rfind("sampling.q", 0), 0u)
      << c.error().message();
}

TEST(JobConfigTest, DpAdmmNeedsRho) {
  auto c = ParseJobConfig(ReplaceOnce(
      JobToml("j", "dp-admm", DefaultPrivacyTable(), DefaultSamplingTable()),
      "rho = 1.0", ""));
  EXPECT_EQ(c.status(), Status::InvalidArgument());
  EXPECT_EQ(c.error().message(), "step.rho: missing");
}

const char kDpAdmmTable[] =
    "[dp_admm]\nd_w = 1.0\nstep_epsilon = 0.5\nmax_records = 10\n";

std::string DpAdmmToml(const std::string& privacy) {
  return JobToml("j", "dp-admm", privacy, DefaultSamplingTable()) +
         kDpAdmmTable;
}

TEST(JobConfigTest, DpAdmmNeedsOwnNoisePolicyAndItsOwnNoiseKeys) {
  const std::string own =
      "[privacy]\npolicy = \"participation-own-noise\"\nclip = 1.0\n"
      "delta = 1e-5\ncentral_budget = inf\naudit = true\ndevice_budget = inf\n";
  auto c = ParseJobConfig(DpAdmmToml(own));
  ASSERT_TRUE(c.ok()) << c.error().ToString();
  EXPECT_EQ(c->dp_admm.max_records, 10);
  EXPECT_DOUBLE_EQ(c->dp_admm.step_delta, 1e-5);  // defaults to privacy.delta
  EXPECT_DOUBLE_EQ(c->dp_admm.s3, 0.25);          // logistic
  // σ column: paper 004's noise multiplier sqrt(2 ln(1.25/δ))/ε.
  EXPECT_NEAR(c->sigma, std::sqrt(2 * std::log(1.25e5)) / 0.5, 1e-12);

  for (const char* policy : {"participation", "trusted-aggregator"}) {
    std::string privacy = own;
    privacy.replace(privacy.find("participation-own-noise"),
                    std::strlen("participation-own-noise"), policy);
    c = ParseJobConfig(DpAdmmToml(privacy));
    EXPECT_EQ(c.status(), Status::InvalidArgument()) << policy;
    EXPECT_EQ(c.error().message().rfind("privacy.policy: ", 0), 0u)
        << c.error().message();
  }
  std::string error = ErrorOf(
      ReplaceOnce(DpAdmmToml(own), "participation-own-noise", "participation"));
  EXPECT_EQ(error.rfind("privacy.policy: dp-admm devices keep their own", 0),
            0u)
      << error;
  c = ParseJobConfig(DpAdmmToml(own + "sigma = 1.0\n"));
  EXPECT_EQ(c.status(), Status::InvalidArgument());
  error = c.error().message();
  EXPECT_EQ(error.rfind("privacy.sigma: dp-admm", 0), 0u) << error;
  EXPECT_EQ(ErrorOf(ReplaceOnce(DpAdmmToml(own), "step_epsilon = 0.5",
                                "step_epsilon = 2.0")),
            "dp_admm.step_epsilon: must be in (0, 1]");
  EXPECT_EQ(ErrorOf(ReplaceOnce(DpAdmmToml(own), "max_records = 10", "")),
            "dp_admm.max_records: missing");
}

TEST(JobConfigTest, DpSgdRefusesTrustedAggregatorAndNoiseInState) {
  auto c = ParseJobConfig(
      JobToml("j", "dp-sgd", DefaultPrivacyTable(), DefaultSamplingTable()));
  ASSERT_TRUE(c.ok()) << c.error().ToString();
  EXPECT_EQ(c->local_steps, 1);
  c = ParseJobConfig(JobToml(
      "j", "dp-sgd", testing::PrivacyTableWithPolicy("trusted-aggregator", ""),
      "[sampling]\nscheme = \"poisson\"\nq = 0.5\n"
      "m_min = 1\ndeadline_seconds = 1\n"));
  EXPECT_EQ(c.status(), Status::InvalidArgument());
  EXPECT_EQ(c.error().message().rfind(
                "privacy.policy: trusted-aggregator is implemented "
                "for prox-admm only",
                0),
            0u)
      << c.error().message();
  EXPECT_EQ(
      ErrorOf(JobToml("j", "dp-sgd",
                      testing::PrivacyTableWithPolicy("participation-own-noise",
                                                      "noise_in_state = true"),
                      DefaultSamplingTable())),
      "privacy.noise_in_state: only prox-admm has this switch");
}

}  // namespace
}  // namespace edgeadmm::jobs

namespace edgeadmm::jobs {
namespace {

using testing::ReplaceOnce;

const char kGatewayValidation[] = "[validation]\ndata = \"/d/v.libsvm\"\n";

// Gateway-held validation data select the best model by default; without
// validation data, or with the devices', the job releases its last model.
TEST(JobConfigTest, ValidationSelectsTheBestModelOnGatewayDataByDefault) {
  auto c = ParseJobConfig(testing::JobToml("j", "prox-admm",
                                           testing::DefaultPrivacyTable(),
                                           testing::DefaultSamplingTable()) +
                          kGatewayValidation);
  ASSERT_TRUE(c.ok()) << c.error().ToString();
  EXPECT_EQ(c->validation_held_by, ValidationHolder::kGateway);
  EXPECT_EQ(c->selection_metric, SelectionMetric::kAccuracy);
  EXPECT_EQ(c->release, ReleaseChoice::kBest);
  EXPECT_EQ(c->early_stop_rounds, 0);
  EXPECT_TRUE(c->selects_on_validation());

  c = ParseJobConfig(testing::JobToml("j", "prox-admm",
                                      testing::DefaultPrivacyTable(),
                                      testing::DefaultSamplingTable()));
  ASSERT_TRUE(c.ok()) << c.error().ToString();
  EXPECT_EQ(c->release, ReleaseChoice::kLast);
  EXPECT_FALSE(c->selects_on_validation());

  c = ParseJobConfig(testing::JobToml("j", "prox-admm",
                                      testing::DefaultPrivacyTable(),
                                      testing::DefaultSamplingTable()) +
                     kGatewayValidation + "held_by = \"devices\"\n");
  ASSERT_TRUE(c.ok()) << c.error().ToString();
  EXPECT_EQ(c->validation_held_by, ValidationHolder::kDevices);
  EXPECT_EQ(c->release, ReleaseChoice::kLast);
  EXPECT_FALSE(c->selects_on_validation());

  c = ParseJobConfig(
      testing::JobToml("j", "prox-admm", testing::DefaultPrivacyTable(),
                       testing::DefaultSamplingTable()) +
      kGatewayValidation +
      "metric = \"loss\"\nrelease = \"last\"\nearly_stop_rounds = 4\n");
  ASSERT_TRUE(c.ok()) << c.error().ToString();
  EXPECT_EQ(c->selection_metric, SelectionMetric::kLoss);
  EXPECT_EQ(c->release, ReleaseChoice::kLast);
  EXPECT_EQ(c->early_stop_rounds, 4);
}

// Squared-loss jobs select on the objective (their labels are real).
TEST(JobConfigTest, SquaredLossSelectsOnTheObjective) {
  std::string toml =
      testing::JobToml("j", "prox-admm", testing::DefaultPrivacyTable(),
                       testing::DefaultSamplingTable()) +
      kGatewayValidation;
  toml.replace(toml.find("\"logistic\""), 10, "\"squared\"");
  auto c = ParseJobConfig(toml);
  ASSERT_TRUE(c.ok()) << c.error().ToString();
  EXPECT_EQ(c->selection_metric, SelectionMetric::kObjective);
  const std::string error = ErrorOf(toml + "metric = \"accuracy\"\n");
  EXPECT_NE(error.find("validation.metric"), std::string::npos) << error;
}

// Selecting on the devices' data (or on none) is refused, the key named.
TEST(JobConfigTest, SelectionOnDeviceHeldValidationDataIsRefused) {
  const std::string base =
      testing::JobToml("j", "prox-admm", testing::DefaultPrivacyTable(),
                       testing::DefaultSamplingTable());
  const std::string devices =
      base + kGatewayValidation + "held_by = \"devices\"\n";
  std::string error = ErrorOf(devices + "release = \"best\"\n");
  EXPECT_NE(error.find("validation.release"), std::string::npos) << error;
  EXPECT_NE(error.find("devices"), std::string::npos) << error;
  error = ErrorOf(devices + "early_stop_rounds = 3\n");
  EXPECT_NE(error.find("validation.early_stop_rounds"), std::string::npos)
      << error;
  EXPECT_NE(error.find("devices"), std::string::npos) << error;
  error = ErrorOf(base + "[validation]\nrelease = \"best\"\n");
  EXPECT_NE(error.find("needs validation.data"), std::string::npos) << error;
  error = ErrorOf(base + "[validation]\nearly_stop_rounds = 3\n");
  EXPECT_NE(error.find("needs validation.data"), std::string::npos) << error;
  error = ErrorOf(base + kGatewayValidation + "early_stop_rounds = -1\n");
  EXPECT_NE(error.find("validation.early_stop_rounds"), std::string::npos)
      << error;
  error = ErrorOf(base + kGatewayValidation + "held_by = \"operator\"\n");
  EXPECT_NE(error.find("validation.held_by"), std::string::npos) << error;
  // Without selection, device-held validation data still give metrics.
  EXPECT_TRUE(ParseJobConfig(devices).ok());
}

}  // namespace
}  // namespace edgeadmm::jobs
