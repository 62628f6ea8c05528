#include "edgeadmm/jobs/job_config.h"

#include <cmath>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "edgeadmm/algorithms/registry.h"
#include "edgeadmm/dataio/adult_csv_reader.h"
#include "edgeadmm/job_types/config_reader.h"
#include "edgeadmm/job_types/toml_document.h"
#include "edgeadmm/jobs/secure_aggregation_plan.h"
#include "edgeadmm/registry/device_registry.h"
#include "edgeadmm/wire/protocol.h"

namespace edgeadmm::jobs {
namespace {

constexpr NameTable<Loss> kLosses = {{"logistic", Loss::kLogistic},
                                     {"squared", Loss::kSquared}};
constexpr NameTable<RegularizerKind> kRegularizers = {
    {"none", RegularizerKind::kNone},
    {"l1", RegularizerKind::kL1},
    {"l2", RegularizerKind::kL2},
    {"elastic-net", RegularizerKind::kElasticNet}};
// The privacy library's policies a job can run (local-dp is not one: it is
// every device's own ledger, charged under each of these).
constexpr NameTable<privacy::Policy> kPolicies = {
    {"participation", privacy::Policy::kParticipation},
    {"participation-own-noise", privacy::Policy::kParticipationOwnNoise},
    {"trusted-aggregator", privacy::Policy::kTrustedAggregator},
    {"secure-aggregation", privacy::Policy::kSecureAggregation}};
// dataio's names (ParseDataFormat / ParseRowNormalization).
constexpr NameTable<DataFormat> kDataFormats = {
    {"libsvm", DataFormat::kLibsvm}, {"adult-csv", DataFormat::kAdultCsv}};
constexpr NameTable<RowNormalization> kNormalizations = {
    {"none", RowNormalization::kNone},
    {"unit", RowNormalization::kUnitNorm},
    {"max", RowNormalization::kMaxNorm}};
constexpr NameTable<CentralAccountant> kAccountants = {
    {"pld", CentralAccountant::kPld}, {"rdp", CentralAccountant::kRdp}};
constexpr NameTable<SamplingScheme> kSchemes = {
    {"poisson", SamplingScheme::kPoisson}, {"fixed", SamplingScheme::kFixed}};
constexpr NameTable<ValidationHolder> kHolders = {
    {"gateway", ValidationHolder::kGateway},
    {"devices", ValidationHolder::kDevices}};
constexpr NameTable<SelectionMetric> kMetrics = {
    {"accuracy", SelectionMetric::kAccuracy},
    {"loss", SelectionMetric::kLoss},
    {"objective", SelectionMetric::kObjective}};
constexpr NameTable<ReleaseChoice> kReleases = {{"best", ReleaseChoice::kBest},
                                                {"last", ReleaseChoice::kLast}};

// The [validation] table; its defaults depend on the loss read before.
void ReadValidation(ConfigReader& r, JobConfig& c) {
  r.String("validation.data", c.validation_data, false);
  r.Enum("validation.format", kDataFormats, c.validation_format, false);
  r.Enum("validation.normalize", kNormalizations, c.validation_normalize,
         false);
  r.Enum("validation.held_by", kHolders, c.validation_held_by, false);
  c.selection_metric = c.loss == Loss::kLogistic ? SelectionMetric::kAccuracy
                                                 : SelectionMetric::kObjective;
  r.Enum("validation.metric", kMetrics, c.selection_metric, false);
  c.release =
      c.selects_on_validation() ? ReleaseChoice::kBest : ReleaseChoice::kLast;
  r.Enum("validation.release", kReleases, c.release, false);
  r.Int("validation.early_stop_rounds", c.early_stop_rounds, false);
}

// docs/privacy.md, "Model selection": choosing among released models costs
// nothing only when the validation data are the operator's.
host::Error ValidateSelection(const JobConfig& c) {
  if (c.selects_on_validation() &&
      c.selection_metric == SelectionMetric::kAccuracy &&
      c.loss != Loss::kLogistic) {
    return host::Error::InvalidArgument(
        "validation.metric: accuracy needs loss = \"logistic\" (use loss or "
        "objective)");
  }
  if (c.early_stop_rounds < 0) {
    return host::Error::InvalidArgument(
        "validation.early_stop_rounds: must be >= 0 (0: off)");
  }
  const char* why =
      c.validation_data.empty()
          ? "needs validation.data"
          : "refused with validation.held_by = \"devices\": choosing a model "
            "on the devices' data is a release of that data the ledger does "
            "not charge (docs/privacy.md, \"Model selection\")";
  if (c.release == ReleaseChoice::kBest && !c.selects_on_validation()) {
    return host::Error::InvalidArgument(std::string("validation.release: ") +
                                        "best " + why);
  }
  if (c.early_stop_rounds > 0 && !c.selects_on_validation()) {
    return host::Error::InvalidArgument(
        std::string("validation.early_stop_rounds: ") + why);
  }
  return host::Error::Ok();
}

}  // namespace

const char* RegularizerName(RegularizerKind r) {
  return NameOf(kRegularizers, r);
}

const char* SelectionMetricName(SelectionMetric m) {
  return NameOf(kMetrics, m);
}

const char* ValidationHolderName(ValidationHolder h) {
  return NameOf(kHolders, h);
}

bool IsValidJobName(std::string_view name) {
  return !name.empty() && name.size() <= 64 &&
         name.find_first_not_of(
             "abcdefghijklmnopqrstuvwxyz"
             "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") ==
             std::string_view::npos;
}

namespace {

// [job] and [step]: what the model and the local step are.
host::Error ValidateModelAndStep(const JobConfig& c) {
  if (c.name.empty() || c.name.size() > 64) {
    return host::Error::InvalidArgument("job.name: must be 1..64 characters");
  }
  // The largest vector this build's messages carry (the devices' SDK has
  // the same limit unless built with a larger EDGEADMM_CFG_MAX_FEATURES): a
  // larger job could be stored but never served.
  if (c.dimension < 1 ||
      c.dimension > static_cast<int64_t>(wire::kMaxDimension)) {
    return host::Error::InvalidArgument(
        "job.dimension: must be in [1, " + std::to_string(wire::kMaxDimension) +
        "] (EDGEADMM_CFG_MAX_FEATURES of this build: the largest vector a "
        "task or an update carries)");
  }
  if (c.rounds < 1) {
    return host::Error::InvalidArgument("job.rounds: must be >= 1");
  }
  if (!c.device_prefix.empty() && !registry::IsValidDeviceId(c.device_prefix)) {
    return host::Error::InvalidArgument(
        "job.device_prefix: must be 1..64 characters of [A-Za-z0-9._-] (the "
        "start of device ids), or \"\" for every enabled device");
  }
  if (!c.regularizer.Validate().ok()) {
    return host::Error::InvalidArgument(
        "regularizer: l1 and l2 must be finite, >= 0 and used by "
        "the kind (l1 for l1, l2 for l2, both for elastic-net)");
  }
  if (!(c.lambda > 0 && c.lambda <= 1)) {
    return host::Error::InvalidArgument("step.lambda: must be in (0, 1]");
  }
  if (!(c.gamma > 0)) {
    return host::Error::InvalidArgument("step.gamma: must be > 0");
  }
  if (!(c.rho > 0)) {
    return host::Error::InvalidArgument("step.rho: must be > 0");
  }
  return host::Error::Ok();
}

// The numbers of [privacy]: clip, noise, delta, budgets.
host::Error ValidatePrivacyNumbers(const JobConfig& c) {
  if (!(c.clip > 0)) {
    return host::Error::InvalidArgument("privacy.clip: must be > 0");
  }
  if (c.sigma < 0 && !c.noise_planned()) {
    return host::Error::InvalidArgument(
        "privacy: give sigma (>= 0) or target_epsilon (> 0)");
  }
  if (!(c.delta > 0 && c.delta < 1)) {
    return host::Error::InvalidArgument("privacy.delta: must be in (0, 1)");
  }
  if (!(c.central_budget > 0) || !(c.device_budget > 0)) {
    return host::Error::InvalidArgument(
        "privacy: central_budget and device_budget must be > 0");
  }
  return host::Error::Ok();
}

// [sampling]: who is asked each round, and for how long.
host::Error ValidateSampling(const JobConfig& c) {
  if (c.sampling == SamplingScheme::kPoisson && !(c.q > 0 && c.q <= 1)) {
    return host::Error::InvalidArgument(
        "sampling.q: must be in (0, 1] for poisson");
  }
  if (c.sampling == SamplingScheme::kFixed && c.m < 1) {
    return host::Error::InvalidArgument("sampling.m: must be >= 1 for fixed");
  }
  if (c.policy != privacy::Policy::kTrustedAggregator && c.m_min < 1) {
    return host::Error::InvalidArgument("sampling.m_min: must be >= 1");
  }
  if (c.sampling == SamplingScheme::kFixed && c.m_min > c.m) {
    return host::Error::InvalidArgument(
        "sampling.m_min: must be <= sampling.m");
  }
  if (!(c.deadline_seconds > 0)) {
    return host::Error::InvalidArgument(
        "sampling.deadline_seconds: must be > 0");
  }
  return host::Error::Ok();
}

// docs/privacy.md, "secure-aggregation": the devices add no Gaussian noise
// (their noise is the plan's discrete Gaussian), a round commits with at
// least m - D masked inputs, and the plan must exist.
host::Error ValidateSecureAggregation(const JobConfig& c) {
  if (c.sigma != 0) {
    return host::Error::InvalidArgument(
        "privacy.sigma: not under secure-aggregation (the devices' noise is "
        "the distributed discrete Gaussian planned from "
        "privacy.target_epsilon)");
  }
  if (c.noise_in_state) {
    return host::Error::InvalidArgument(
        "privacy.noise_in_state: must be false under secure-aggregation (the "
        "devices add no Gaussian noise to keep)");
  }
  EDGEADMM_HOST_TRY(PlanSecureAggregation(c).error());
  const int64_t survivors = c.m - c.secure_aggregation.dropouts;
  if (c.m_min != survivors) {
    return host::Error::InvalidArgument(
        "sampling.m_min: must be sampling.m - secure_aggregation.dropouts = " +
        std::to_string(survivors) +
        " under secure-aggregation (a round commits exactly when at least "
        "m - D masked inputs survive)");
  }
  return host::Error::Ok();
}

// The privacy policy against the rest of the job (docs/privacy.md).
host::Error ValidatePolicy(const JobConfig& c) {
  if (c.policy == privacy::Policy::kLocalDp) {
    return host::Error::InvalidArgument(
        "privacy.policy: local-dp is each device's own ledger, "
        "charged under every job policy; choose participation, "
        "participation-own-noise or trusted-aggregator");
  }
  if (c.max_colluders < 0) {
    return host::Error::InvalidArgument("privacy.max_colluders: must be >= 0");
  }
  if (c.policy == privacy::Policy::kSecureAggregation) {
    return ValidateSecureAggregation(c);
  }
  if (c.noise_planned() && c.rounds_may_be_colluders_only()) {
    // docs/privacy.md, "Colluding devices": σ is planned for the noise of
    // the m_min − t uploads the colluders do not know. (With a given σ, a
    // round of m_k ≤ t uploads is charged the device's own noise alone.)
    return host::Error::InvalidArgument(
        "sampling.m_min: must be > privacy.max_colluders (" +
        std::to_string(c.max_colluders) +
        ") to plan sigma under participation: t devices of a round know "
        "their own noise, so a round needs more than t uploads to hide the "
        "others (set privacy.max_colluders = 0 only if no device of the "
        "cohort sees the released models)");
  }
  if (c.policy == privacy::Policy::kParticipation && c.noise_in_state) {
    // docs/privacy.md, "participation": the sigma sqrt(m_k) charge assumes
    // a device's state carries none of its own past noise.
    return host::Error::InvalidArgument(
        "privacy.noise_in_state: must be false under policy "
        "participation (its sqrt(m_k) noise charge needs the noise "
        "kept out of u_i); use policy participation-own-noise to "
        "keep noise in the state");
  }
  return host::Error::Ok();
}

}  // namespace

host::Error ValidateJobConfig(const JobConfig& c) {
  EDGEADMM_HOST_TRY(ValidateModelAndStep(c));
  EDGEADMM_HOST_TRY(ValidatePrivacyNumbers(c));
  EDGEADMM_HOST_TRY(ValidateSampling(c));
  EDGEADMM_HOST_TRY(ValidatePolicy(c));
  if (c.validation_format == DataFormat::kAdultCsv &&
      c.dimension != static_cast<int64_t>(kAdultFeatures)) {
    return host::Error::InvalidArgument(
        "validation.format: adult-csv has " + std::to_string(kAdultFeatures) +
        " features, job.dimension is " + std::to_string(c.dimension));
  }
  EDGEADMM_HOST_TRY(ValidateSelection(c));
  if (c.policy == privacy::Policy::kTrustedAggregator &&
      c.sampling != SamplingScheme::kPoisson) {
    return host::Error::InvalidArgument(
        "privacy.policy: trusted-aggregator needs poisson sampling "
        "(its accounting is the Poisson-subsampled Gaussian)");
  }
  const algorithms::Algorithm* algorithm = algorithms::Find(c.algorithm);
  if (algorithm == nullptr) {
    return host::Error::InvalidArgument(
        "job.algorithm: not served by this aggregator");
  }
  EDGEADMM_HOST_TRY(algorithm->Validate(c));
  // docs/privacy.md, "Lifetime budget": without a cap, the job's central
  // ledgers have no bound, and neither has the cross-job odometer's share of
  // it. Barrier algorithms keep their own accounting (their Resolve sets
  // the Gaussian budgets to inf).
  if (std::isinf(c.central_budget) && !c.audit &&
      algorithm->barrier_rounds() == nullptr) {
    return host::Error::InvalidArgument(
        "privacy.central_budget: inf leaves the released models without a "
        "privacy cap; give a finite budget, or set privacy.audit = true for "
        "a measurement (an audit, a non-private baseline) whose models are "
        "not shipped");
  }
  if (c.policy == privacy::Policy::kTrustedAggregator && c.m_min != 0) {
    // docs/privacy.md, "trusted-aggregator": a release that depends on the
    // cohort size is not covered by the charge.
    return host::Error::InvalidArgument(
        "sampling.m_min: must be 0 under trusted-aggregator (a release that "
        "depends on the cohort size is not accounted)");
  }
  if (c.policy == privacy::Policy::kTrustedAggregator && c.sampling_seed != 0) {
    // docs/privacy.md, "trusted-aggregator": the subsampling amplification
    // needs a cohort nobody can recompute.
    return host::Error::InvalidArgument(
        "sampling.seed: not allowed under trusted-aggregator (its epsilon "
        "relies on a secret cohort; a known seed makes the cohort public)");
  }
  return host::Error::Ok();
}

namespace {

// A table that another algorithm reads, found in this job, is a
// mistake the unknown-key check would name less clearly.
host::Error RefuseOtherAlgorithmsTables(const ConfigReader& r,
                                        const algorithms::Algorithm* own) {
  if (own == nullptr) return host::Error::Ok();  // job.algorithm's error
  for (const algorithms::Algorithm* other : algorithms::All()) {
    if (other == own || other->table() == nullptr ||
        !r.HasTable(other->table())) {
      continue;
    }
    return host::Error::InvalidArgument(std::string("[") + other->table() +
                                        "]: a table of " + other->name() +
                                        " jobs; this job runs " + own->name());
  }
  return host::Error::Ok();
}

}  // namespace

host::ErrorOr<JobConfig> ParseJobConfig(std::string_view toml_text,
                                        UnknownKeys unknown_keys) {
  EDGEADMM_HOST_TRY_ASSIGN(const toml::table root,
                           ParseTomlDocument(toml_text));
  JobConfig c;
  ConfigReader r(root);
  r.String("job.name", c.name, true);
  std::string algorithm_name;
  r.String("job.algorithm", algorithm_name, true);
  const algorithms::Algorithm* algorithm =
      algorithms::FindByName(algorithm_name);
  if (algorithm != nullptr) {
    c.algorithm = algorithm->kind();
  } else if (!r.failed()) {
    r.Fail("job.algorithm", "unknown value \"" + algorithm_name +
                                "\" (one of: " + algorithms::Names() + ")");
  }
  r.Enum("job.loss", kLosses, c.loss, true);
  r.Int("job.dimension", c.dimension, true);
  r.Int("job.rounds", c.rounds, true);
  r.String("job.device_prefix", c.device_prefix, false);
  r.Enum("regularizer.kind", kRegularizers, c.regularizer.kind, false);
  r.Double("regularizer.l1", c.regularizer.l1, false);
  r.Double("regularizer.l2", c.regularizer.l2, false);
  const algorithms::RequiredStepKeys step =
      algorithm != nullptr ? algorithm->required_step_keys()
                           : algorithms::RequiredStepKeys{};
  r.Double("step.lambda", c.lambda, step.lambda);
  r.Double("step.gamma", c.gamma, step.gamma);
  r.Double("step.rho", c.rho, step.rho);
  r.Int("step.local_steps", c.local_steps, false);
  if (algorithm != nullptr) algorithm->ReadTable(r, c);
  // Barrier algorithms take no [privacy] or [sampling] keys of the Gaussian
  // ledgers' (their Resolve sets what they imply).
  const bool barrier =
      algorithm != nullptr && !algorithm->takes_gaussian_keys();
  r.Enum("privacy.policy", kPolicies, c.policy, false);
  r.Bool("privacy.noise_in_state", c.noise_in_state, false);
  r.Double("privacy.clip", c.clip, !barrier);
  r.Double("privacy.sigma", c.sigma, false);
  r.Double("privacy.target_epsilon", c.target_epsilon, false);
  r.Double("privacy.delta", c.delta, !barrier);
  r.Int("privacy.max_colluders", c.max_colluders, false);
  r.Enum("privacy.accountant", kAccountants, c.accountant, false);
  r.Double("privacy.central_budget", c.central_budget, !barrier, true);
  r.Bool("privacy.audit", c.audit, false);
  r.Double("privacy.device_budget", c.device_budget, !barrier, true);
  r.Enum("sampling.scheme", kSchemes, c.sampling, !barrier);
  r.Double("sampling.q", c.q,
           !barrier && c.sampling == SamplingScheme::kPoisson);
  r.Int("sampling.m", c.m, !barrier && c.sampling == SamplingScheme::kFixed);
  r.Int("sampling.m_min", c.m_min, !barrier);
  r.Double("sampling.deadline_seconds", c.deadline_seconds, true);
  if (c.policy == privacy::Policy::kSecureAggregation) {
    SecureAggregationConfig& s = c.secure_aggregation;
    r.Int("secure_aggregation.neighbours", s.neighbours, false);
    r.Int("secure_aggregation.dropouts", s.dropouts, false);
    r.Int("secure_aggregation.max_bits", s.max_bits, false);
    r.Double("secure_aggregation.log2_wrap", s.log2_wrap, false);
    r.Double("secure_aggregation.phase_seconds", s.phase_seconds, false);
  }
  int64_t seed = 0;
  r.Int("sampling.seed", seed, false);
  c.sampling_seed = static_cast<uint64_t>(seed);
  ReadValidation(r, c);
  // Before the key errors: a misspelled key is what makes one "missing".
  if (unknown_keys == UnknownKeys::kRefuse) {
    EDGEADMM_HOST_TRY(RefuseOtherAlgorithmsTables(r, algorithm));
    EDGEADMM_HOST_TRY(RefuseUnknownKeys(root, r.asked()));
  }
  if (r.failed()) return r.error();
  if (c.sigma >= 0 && c.noise_planned()) {
    return host::Error::InvalidArgument(
        "privacy: give either sigma or target_epsilon, not both");
  }
  if (c.policy == privacy::Policy::kSecureAggregation) {
    // No Gaussian sigma: the devices' noise is the plan's (docs/privacy.md,
    // "secure-aggregation"); 0 is what tasks carry and the store keeps.
    if (algorithm->sum_rounds() == nullptr) {
      return host::Error::InvalidArgument(
          std::string("privacy.policy: secure-aggregation needs an algorithm "
                      "whose server update uses only the sum of the uploads; "
                      "this job runs ") +
          algorithm->name());
    }
    if (c.sigma >= 0) {
      return host::Error::InvalidArgument(
          "privacy.sigma: not under secure-aggregation (give "
          "privacy.target_epsilon: the discrete noise is planned from it)");
    }
    c.sigma = 0;
  }
  EDGEADMM_HOST_TRY(algorithm->Resolve(c));
  EDGEADMM_HOST_TRY(ValidateJobConfig(c));
  return c;
}

}  // namespace edgeadmm::jobs
