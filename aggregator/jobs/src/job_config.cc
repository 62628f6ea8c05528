#include "edgeadmm/jobs/job_config.h"

#include <cmath>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "edgeadmm/algorithms/registry.h"
#include "edgeadmm/dataio/adult_csv_reader.h"
#include "edgeadmm/jobs/toml_document.h"
#include "edgeadmm/wire/protocol.h"

namespace edgeadmm::jobs {
namespace {

template <typename E>
using NameTable = std::initializer_list<std::pair<const char*, E>>;

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
    {"trusted-aggregator", privacy::Policy::kTrustedAggregator}};
constexpr NameTable<DpAdmmSchedule> kSchedules = {
    {"smooth", DpAdmmSchedule::kSmooth}, {"convex", DpAdmmSchedule::kConvex}};
// dataio's names (ParseDataFormat / ParseRowNormalization).
constexpr NameTable<DataFormat> kDataFormats = {
    {"libsvm", DataFormat::kLibsvm}, {"adult-csv", DataFormat::kAdultCsv}};
constexpr NameTable<RowNormalization> kNormalizations = {
    {"none", RowNormalization::kNone},
    {"unit", RowNormalization::kUnitNorm},
    {"max", RowNormalization::kMaxNorm}};
constexpr NameTable<CentralAccountant> kAccountants = {
    {"pld", CentralAccountant::kPld}, {"rdp", CentralAccountant::kRdp}};
constexpr NameTable<VirtualGraphKind> kGraphs = {
    {"complete", VirtualGraphKind::kComplete},
    {"ring", VirtualGraphKind::kRing},
    {"edges", VirtualGraphKind::kEdgeList}};
constexpr NameTable<PpMode> kPpModes = {
    {"pp", PpMode::kPenaltyPerturbation},
    {"dvp", PpMode::kDualVariablePerturbation}};
constexpr NameTable<SharingNoiseMode> kSharingNoise = {
    {"none", SharingNoiseMode::kNone},
    {"paper", SharingNoiseMode::kPaper},
    {"rigorous", SharingNoiseMode::kRigorous}};
constexpr NameTable<SharingScoreNoise> kSharingScoreNoise = {
    {"gaussian", SharingScoreNoise::kGaussian},
    {"exact", SharingScoreNoise::kExact}};
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

template <typename E>
const char* NameOf(NameTable<E> table, E value) {
  for (const auto& [name, v] : table) {
    if (v == value) return name;
  }
  return "?";
}

// Reads typed keys from one TOML document and remembers the first error.
class Reader {
 public:
  explicit Reader(const toml::table& root) : root_(root) {}

  bool failed() const { return !error_.ok(); }
  bool Has(std::string_view key) { return static_cast<bool>(Node(key)); }
  // Every key asked for so far (RefuseUnknownKeys' known names).
  const std::vector<std::string>& asked() const { return asked_; }
  // The first failure (INVALID_ARGUMENT), or OK.
  const host::Error& error() const { return error_; }

  // Fails with "key: message" unless something failed already.
  void Fail(std::string_view key, const std::string& message) {
    if (failed()) return;
    error_ = host::Error::InvalidArgument(std::string(key) + ": " + message);
  }

  void String(std::string_view key, std::string& out, bool required) {
    const toml::node_view<const toml::node> node = Node(key);
    if (!node) {
      if (required) Fail(key, "missing");
      return;
    }
    if (auto v = node.value<std::string>()) {
      out = *v;
    } else {
      Fail(key, "must be a string");
    }
  }

  // A finite number, or also +inf when `allow_infinity`.
  void Double(std::string_view key, double& out, bool required,
              bool allow_infinity = false) {
    const toml::node_view<const toml::node> node = Node(key);
    if (!node) {
      if (required) Fail(key, "missing");
      return;
    }
    // value<double> also accepts integers ("rounds = 1" style numbers).
    if (!node.is_number()) return Fail(key, "must be a number");
    out = *node.value<double>();
    if (std::isnan(out) || (std::isinf(out) && !(allow_infinity && out > 0))) {
      Fail(key, allow_infinity ? "must be a number or inf" : "must be finite");
    }
  }

  void Bool(std::string_view key, bool& out, bool required) {
    const toml::node_view<const toml::node> node = Node(key);
    if (!node) {
      if (required) Fail(key, "missing");
      return;
    }
    if (auto v = node.value_exact<bool>()) {
      out = *v;
    } else {
      Fail(key, "must be true or false");
    }
  }

  void Int(std::string_view key, int64_t& out, bool required) {
    const toml::node_view<const toml::node> node = Node(key);
    if (!node) {
      if (required) Fail(key, "missing");
      return;
    }
    if (!node.is_integer()) return Fail(key, "must be an integer");
    out = *node.value<int64_t>();
  }

  // An array of [i, j] integer pairs.
  void Edges(std::string_view key,
             std::vector<std::pair<int64_t, int64_t>>& out) {
    const toml::node_view<const toml::node> node = Node(key);
    if (!node) return;
    const toml::array* edges = node.as_array();
    if (edges == nullptr) return Fail(key, "must be an array of [i, j] pairs");
    for (const toml::node& e : *edges) {
      const toml::array* pair = e.as_array();
      if (pair == nullptr || pair->size() != 2 || !(*pair)[0].is_integer() ||
          !(*pair)[1].is_integer()) {
        return Fail(key, "must be an array of [i, j] integer pairs");
      }
      out.emplace_back(*(*pair)[0].value<int64_t>(),
                       *(*pair)[1].value<int64_t>());
    }
  }

  // An array of integers.
  void IntList(std::string_view key, std::vector<int64_t>& out, bool required) {
    const toml::node_view<const toml::node> node = Node(key);
    if (!node) {
      if (required) Fail(key, "missing");
      return;
    }
    const toml::array* list = node.as_array();
    if (list == nullptr) return Fail(key, "must be an array of integers");
    out.clear();
    for (const toml::node& e : *list) {
      if (!e.is_integer()) return Fail(key, "must be an array of integers");
      out.push_back(*e.value<int64_t>());
    }
  }

  template <typename E>
  void Enum(std::string_view key, NameTable<E> table, E& out, bool required) {
    std::string text;
    const bool was_failed = failed();
    String(key, text, required);
    if (failed() != was_failed || text.empty()) return;
    for (const auto& [name, v] : table) {
      if (text == name) {
        out = v;
        return;
      }
    }
    std::string choices;
    for (const auto& [name, v] : table) {
      choices += choices.empty() ? "" : ", ";
      choices += name;
    }
    Fail(key, "unknown value \"" + text + "\" (one of: " + choices + ")");
  }

 private:
  toml::node_view<const toml::node> Node(std::string_view key) {
    asked_.emplace_back(key);
    return root_.at_path(key);
  }

  const toml::table& root_;
  host::Error error_;
  std::vector<std::string> asked_;
};

// The [admm_sharing] table (required keys only for admm-sharing jobs).
void ReadAdmmSharing(Reader& r, AdmmSharingConfig& c, bool sharing) {
  r.Int("admm_sharing.parties", c.parties, sharing);
  r.IntList("admm_sharing.columns", c.columns, sharing);
  r.Int("admm_sharing.records", c.records, sharing);
  r.Double("admm_sharing.rho", c.rho, sharing);
  r.Double("admm_sharing.lambda", c.lambda, sharing);
  r.String("admm_sharing.labels", c.labels, sharing);
  r.Enum("admm_sharing.noise", kSharingNoise, c.noise, sharing);
  r.Double("admm_sharing.sigma", c.sigma, false);
  r.Double("admm_sharing.sensitivity", c.sensitivity, false);
  r.Double("admm_sharing.share_clip", c.share_clip, false);
  r.Double("admm_sharing.paper_c", c.paper_c, false);
  r.Double("admm_sharing.paper_b1", c.paper_b1, false);
  r.Double("admm_sharing.paper_c1", c.paper_c1, false);
  r.Double("admm_sharing.target_epsilon", c.target_epsilon, false);
  r.Double("admm_sharing.target_delta", c.target_delta, false);
  r.Int("admm_sharing.barrier_retries", c.barrier_retries, false);
  r.String("admm_sharing.test_labels", c.test_labels, false);
  r.Int("admm_sharing.test_records", c.test_records, false);
  c.score_noise_given = r.Has("admm_sharing.score_noise");
  r.Enum("admm_sharing.score_noise", kSharingScoreNoise, c.score_noise, false);
  r.Double("admm_sharing.score_sigma", c.score_sigma, false);
  r.Double("admm_sharing.score_sensitivity", c.score_sensitivity, false);
  r.Double("admm_sharing.score_clip", c.score_clip, false);
}

// The [validation] table; its defaults depend on the loss read before.
void ReadValidation(Reader& r, JobConfig& c) {
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
         name.find_first_not_of("abcdefghijklmnopqrstuvwxyz"
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
      algorithm->BarrierRetries(c) < 0) {
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

host::ErrorOr<JobConfig> ParseJobConfig(std::string_view toml_text,
                                        UnknownKeys unknown_keys) {
  EDGEADMM_HOST_TRY_ASSIGN(const toml::table root,
                           ParseTomlDocument(toml_text));
  JobConfig c;
  Reader r(root);
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
  r.Enum("regularizer.kind", kRegularizers, c.regularizer.kind, false);
  r.Double("regularizer.l1", c.regularizer.l1, false);
  r.Double("regularizer.l2", c.regularizer.l2, false);
  const algorithms::RequiredStepKeys step =
      algorithm != nullptr ? algorithm->required_step_keys()
                           : algorithms::RequiredStepKeys{};
  const bool dp_admm = algorithm != nullptr && algorithm->uses_dp_admm_table();
  r.Double("step.lambda", c.lambda, step.lambda);
  r.Double("step.gamma", c.gamma, step.gamma);
  r.Double("step.rho", c.rho, step.rho);
  r.Int("step.local_steps", c.local_steps, false);
  r.Enum("dp_admm.schedule", kSchedules, c.dp_admm.schedule, false);
  r.Double("dp_admm.d_w", c.dp_admm.d_w, dp_admm);
  r.Double("dp_admm.s2", c.dp_admm.s2, false);
  r.Double("dp_admm.s3", c.dp_admm.s3, false);
  r.Double("dp_admm.s4", c.dp_admm.s4, false);
  r.Double("dp_admm.step_epsilon", c.dp_admm.step_epsilon, dp_admm);
  r.Double("dp_admm.step_delta", c.dp_admm.step_delta, false);
  r.Int("dp_admm.max_records", c.dp_admm.max_records, dp_admm);
  r.Bool("dp_admm.noise", c.dp_admm.noise, false);
  // Barrier algorithms take no [privacy] or [sampling] keys of the Gaussian
  // ledgers' (their Resolve sets what they imply).
  const bool sharing =
      algorithm != nullptr && algorithm->kind() == AlgorithmKind::kAdmmSharing;
  const bool pp_admm = algorithm != nullptr &&
                       algorithm->kind() == AlgorithmKind::kPenaltyPerturbation;
  const bool barrier = pp_admm || sharing;
  ReadAdmmSharing(r, c.admm_sharing, sharing);
  r.Enum("pp_admm.graph", kGraphs, c.pp_admm.graph, false);
  r.Int("pp_admm.nodes", c.pp_admm.nodes, pp_admm);
  r.Edges("pp_admm.edges", c.pp_admm.edges);
  r.Double("pp_admm.theta", c.pp_admm.theta, pp_admm);
  r.Double("pp_admm.loss_weight", c.pp_admm.loss_weight, pp_admm);
  r.Double("pp_admm.reg_weight", c.pp_admm.reg_weight, pp_admm);
  r.Int("pp_admm.min_samples", c.pp_admm.min_samples, pp_admm);
  r.Enum("pp_admm.mode", kPpModes, c.pp_admm.mode, false);
  r.Bool("pp_admm.noise", c.pp_admm.noise, false);
  r.Int("pp_admm.barrier_retries", c.pp_admm.barrier_retries, false);
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
  int64_t seed = 0;
  r.Int("sampling.seed", seed, false);
  c.sampling_seed = static_cast<uint64_t>(seed);
  ReadValidation(r, c);
  // Before the key errors: a misspelled key is what makes one "missing".
  if (unknown_keys == UnknownKeys::kRefuse) {
    EDGEADMM_HOST_TRY(RefuseUnknownKeys(root, r.asked()));
  }
  if (r.failed()) return r.error();
  if (c.sigma >= 0 && c.noise_planned()) {
    return host::Error::InvalidArgument(
        "privacy: give either sigma or target_epsilon, not both");
  }
  EDGEADMM_HOST_TRY(algorithm->Resolve(c));
  EDGEADMM_HOST_TRY(ValidateJobConfig(c));
  return c;
}

host::Error ParseAdmmSharingTable(std::string_view toml_text,
                                  AdmmSharingConfig& out) {
  EDGEADMM_HOST_TRY_ASSIGN(const toml::table root,
                           ParseTomlDocument(toml_text));
  AdmmSharingConfig c;
  Reader r(root);
  ReadAdmmSharing(r, c, true);
  if (r.failed()) return r.error();
  out = std::move(c);
  return host::Error::Ok();
}

}  // namespace edgeadmm::jobs
