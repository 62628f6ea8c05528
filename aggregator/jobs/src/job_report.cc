#include "edgeadmm/jobs/job_report.h"

#include <cmath>
#include <cstdio>
#include <map>

#include "edgeadmm/algorithms/registry.h"
#include "edgeadmm/jobs/secure_aggregation_report.h"
#include "edgeadmm/privacy/conversion.h"
#include "edgeadmm/privacy/epsilon_report.h"
#include "edgeadmm/privacy/ledger_meaning.h"
#include "edgeadmm/privacy/network_rdp.h"
#include "edgeadmm/store/blob.h"

namespace edgeadmm::jobs {
namespace {

Result<int64_t> QueryInt(store::Database& db, const char* sql, int64_t id) {
  EDGEADMM_TRY_ASSIGN(store::Statement stmt, db.Prepare(sql));
  stmt.Bind(1, id);
  EDGEADMM_TRY(stmt.StepRow());
  return stmt.ColumnInt(0);
}

// %.17g, with JSON-safe spellings of the non-finite values.
std::string Number(double v) {
  if (std::isinf(v)) return v > 0 ? "\"inf\"" : "\"-inf\"";
  if (std::isnan(v)) return "\"nan\"";
  char text[32];
  std::snprintf(text, sizeof(text), "%.17g", v);
  return text;
}

// The central ledger row of `round_id` (0: the largest ε) as a report:
// its ε and conversion as stored, the order recomputed from its curve
// (0 if the curve is not on the daemon's grid or disagrees with the ε).
Result<privacy::EpsilonReport> CentralReport(store::Database& db,
                                             const JobRecord& job,
                                             int64_t round_id,
                                             int64_t compositions) {
  EDGEADMM_TRY_ASSIGN(
      store::Statement row,
      db.Prepare(round_id == 0
                     ? "SELECT epsilon, rdp, conversion FROM ledger WHERE "
                       "job_id = ?1 AND scope = 'central' ORDER BY epsilon "
                       "DESC LIMIT 1"
                     : "SELECT epsilon, rdp, conversion FROM ledger WHERE "
                       "job_id = ?1 AND scope = 'central' AND round_id = ?2"));
  row.Bind(1, job.id);
  if (round_id != 0) row.Bind(2, round_id);
  EDGEADMM_TRY_ASSIGN(const bool found, row.Step());
  double epsilon = 0, order = 0;
  privacy::Conversion conversion = privacy::Conversion::kImproved;
  if (found) {
    epsilon = row.ColumnDouble(0);
    auto parsed = privacy::ParseConversion(row.ColumnText(2));
    if (!parsed.ok()) return Status::DataLoss();
    conversion = *parsed;
    auto rdp = store::DecodeDoubles(row.ColumnBlob(1));
    if (!rdp.ok()) return Status::DataLoss();
    auto curve = privacy::RdpCurve::FromValues(privacy::OrderGrid::Default(),
                                               std::move(*rdp));
    if (curve.ok()) {
      auto again =
          privacy::EpsilonFromRdp(*curve, job.config.delta, conversion);
      if (again.ok() &&
          std::fabs(again->epsilon - epsilon) <= 1e-9 * (1 + epsilon)) {
        order = again->order;
      }
    }
  }
  return privacy::DescribeLedger(
      algorithms::Get(job.config.algorithm).CentralMeaning(job.config), epsilon,
      job.config.delta, order, conversion, "central", job.config.policy,
      static_cast<uint64_t>(compositions));
}

// A report-only ε: `per_upload` (Algorithm::UnchargedNetworkRdp) composed
// over `uploads`, improved RDP conversion on the default grid. NaN if the
// curve does not convert.
double UnchargedEpsilon(const std::vector<double>& per_upload, int64_t uploads,
                        double delta) {
  std::vector<double> total(per_upload);
  for (double& v : total) v *= static_cast<double>(uploads);
  auto curve = privacy::RdpCurve::FromValues(privacy::OrderGrid::Default(),
                                             std::move(total));
  if (!curve.ok()) return std::nan("");
  auto converted =
      privacy::EpsilonFromRdp(*curve, delta, privacy::Conversion::kImproved);
  return converted.ok() ? converted->epsilon : std::nan("");
}

// The columns ReadModelRef reads, from column 0 on.
constexpr const char* kModelColumns =
    "SELECT iteration, round_id, validation_loss, validation_objective, "
    "validation_accuracy, z, test_records, test_log_loss, test_accuracy FROM "
    "models WHERE job_id = ?1 AND iteration > 0 ";

ModelRef ReadModelRef(const store::Statement& stmt) {
  ModelRef m;
  m.iteration = stmt.ColumnInt(0);
  m.round_id = stmt.ColumnInt(1);
  m.scores.validated = !stmt.ColumnIsNull(2);
  if (m.scores.validated) {
    m.scores.loss = stmt.ColumnDouble(2);
    m.scores.objective = stmt.ColumnDouble(3);
    m.scores.has_accuracy = !stmt.ColumnIsNull(4);
    m.scores.accuracy = stmt.ColumnDouble(4);
  }
  if (!stmt.ColumnIsNull(6)) {
    m.scores.test_records = stmt.ColumnInt(6);
    m.scores.test_log_loss = stmt.ColumnDouble(7);
    m.scores.test_accuracy = stmt.ColumnDouble(8);
  }
  return m;
}

// The WHERE/ORDER tail that picks the best validated model: the job's
// metric, ties to the earliest (rounds::ModelSelection's rule).
std::string BestModelTail(SelectionMetric metric) {
  const char* column =
      metric == SelectionMetric::kAccuracy ? "validation_accuracy"
      : metric == SelectionMetric::kLoss   ? "validation_loss"
                                           : "validation_objective";
  const char* order = metric == SelectionMetric::kAccuracy ? "DESC" : "ASC";
  return std::string("AND ") + column + " IS NOT NULL ORDER BY " + column +
         " " + order + ", iteration ASC LIMIT 1";
}

// The model `tail` selects (kModelColumns + tail), read into `ref` and, if
// `z` is set, its coordinates; false if there is none.
Result<bool> QueryModel(store::Database& db, int64_t job_id,
                        const std::string& tail, ModelRef& ref,
                        std::vector<double>* z) {
  EDGEADMM_TRY_ASSIGN(store::Statement stmt,
                      db.Prepare(std::string(kModelColumns) + tail));
  stmt.Bind(1, job_id);
  EDGEADMM_TRY_ASSIGN(const bool found, stmt.Step());
  if (!found) return false;
  ref = ReadModelRef(stmt);
  if (z != nullptr) {
    EDGEADMM_TRY_ASSIGN(*z, store::DecodeDoubles(stmt.ColumnBlob(5)));
  }
  return true;
}

constexpr const char* kLastModelTail = "ORDER BY iteration DESC LIMIT 1";

// The algorithm's section from the job's config (ReportSections); empty
// key: none.
algorithms::ReportSection PlanSection(const JobConfig& config) {
  // The secure-aggregation plan is the policy's, whatever the algorithm.
  if (config.policy == privacy::Policy::kSecureAggregation) {
    return SecureAggregationSection(config);
  }
  const algorithms::ReportSections* unit =
      algorithms::Get(config.algorithm).report_sections();
  return unit == nullptr ? algorithms::ReportSection{}
                         : unit->PlanSection(config);
}

// A model's test score, labelled by its algorithm (ReportSections).
std::string TestScoreJson(const JobConfig& config, const ModelScores& s) {
  const algorithms::ReportSections* unit =
      algorithms::Get(config.algorithm).report_sections();
  return "{\"what\": " +
         privacy::JsonString(unit != nullptr
                                 ? unit->TestScoreMeaning()
                                 : "the gateway's score of the model") +
         ", \"records\": " + std::to_string(s.test_records) +
         ", \"log_loss\": " + Number(s.test_log_loss) +
         ", \"accuracy\": " + Number(s.test_accuracy) + "}";
}

}  // namespace

host::ErrorOr<ModelChoice> ParseModelChoice(std::string_view text) {
  if (text == "last") return ModelChoice::Last();
  if (text == "best") return ModelChoice::Best();
  int64_t id = 0;
  bool digits = !text.empty() && text.size() <= 18;
  for (char c : text) {
    if (c < '0' || c > '9') {
      digits = false;
      break;
    }
    id = id * 10 + (c - '0');
  }
  if (!digits || id < 1) {
    return host::Error::InvalidArgument(
        "--round: \"" + std::string(text) +
        "\" is not last, best or a round number >= 1");
  }
  return ModelChoice::Round(id);
}

const char* ModelChoiceName(ModelChoice::Kind kind) {
  switch (kind) {
    case ModelChoice::Kind::kBest:
      return "best";
    case ModelChoice::Kind::kLast:
      return "last";
    case ModelChoice::Kind::kRound:
      return "round";
    case ModelChoice::Kind::kDefault:
      break;
  }
  return "default";
}

// The algorithm's own report section from the extras stored with the job's
// uploads (none for an algorithm without UploadExtra).
Result<algorithms::ReportSection> LoadAlgorithmSection(store::Database& db,
                                                       const JobRecord& job) {
  const algorithms::UploadExtra* unit =
      algorithms::Get(job.config.algorithm).upload_extra();
  if (unit == nullptr) return algorithms::ReportSection{};
  EDGEADMM_TRY_ASSIGN(store::Statement stmt,
                      db.Prepare("SELECT extra FROM uploads WHERE job_id = ? "
                                 "AND extra IS NOT NULL"));
  stmt.Bind(1, job.id);
  std::vector<std::vector<uint8_t>> stored;
  EDGEADMM_TRY(stmt.ForEachRow([&] {
    stored.push_back(stmt.ColumnBlob(0));
    return Status::Ok();
  }));
  return unit->Report(job.config, stored);
}

Result<JobStatus> LoadJobStatus(store::Database& db, std::string_view name) {
  JobStatus s;
  EDGEADMM_TRY_ASSIGN(s.job, FindJob(db, name));
  const int64_t id = s.job.id;
  EDGEADMM_TRY_ASSIGN(
      s.iteration,
      QueryInt(db, "SELECT max(iteration) FROM models WHERE job_id = ?", id));
  EDGEADMM_TRY_ASSIGN(s.open_round,
                      QueryInt(db,
                               "SELECT coalesce(max(round_id), 0) FROM rounds "
                               "WHERE job_id = ? AND state = 'open'",
                               id));
  EDGEADMM_TRY_ASSIGN(s.discarded_rounds,
                      QueryInt(db,
                               "SELECT count(*) FROM rounds WHERE job_id = ? "
                               "AND state = 'discarded'",
                               id));
  EDGEADMM_TRY_ASSIGN(s.lost_rounds, QueryInt(db,
                                              "SELECT count(*) FROM rounds "
                                              "WHERE job_id = ? AND state = "
                                              "'lost'",
                                              id));
  EDGEADMM_TRY_ASSIGN(
      store::Statement last,
      db.Prepare("SELECT round_id, participants FROM rounds WHERE job_id = ? "
                 "AND state = 'committed' ORDER BY round_id DESC LIMIT 1"));
  last.Bind(1, id);
  EDGEADMM_TRY_ASSIGN(const bool has_last, last.Step());
  if (has_last) {
    s.last_round = last.ColumnInt(0);
    s.last_participants = last.ColumnInt(1);
  }
  EDGEADMM_TRY(QueryModel(db, id, kLastModelTail, s.last, nullptr));
  if (s.job.config.selects_on_validation()) {
    EDGEADMM_TRY(QueryModel(
        db, id, BestModelTail(s.job.config.selection_metric), s.best, nullptr));
  }
  EDGEADMM_TRY_ASSIGN(s.central, CentralReport(db, s.job, 0, s.iteration));
  EDGEADMM_TRY_ASSIGN(s.algorithm_section, LoadAlgorithmSection(db, s.job));
  s.plan_section = PlanSection(s.job.config);
  EDGEADMM_TRY_ASSIGN(s.parties, LoadPartyLedger(db, s.job));
  return s;
}

Result<PrivacyReport> LoadPrivacyReport(store::Database& db,
                                        std::string_view name) {
  PrivacyReport r;
  EDGEADMM_TRY_ASSIGN(r.job, FindJob(db, name));
  r.central_meaning =
      algorithms::Get(r.job.config.algorithm).CentralMeaning(r.job.config);
  r.local_meaning = privacy::LocalLedgerMeaning(r.job.config.policy,
                                                r.job.config.max_colluders);
  EDGEADMM_TRY_ASSIGN(
      store::Statement conversions,
      db.Prepare("SELECT DISTINCT conversion FROM ledger WHERE job_id = ? "
                 "ORDER BY 1"));
  conversions.Bind(1, r.job.id);
  EDGEADMM_TRY(conversions.ForEachRow([&] {
    r.conversions.push_back(conversions.ColumnText(0));
    return Status::Ok();
  }));
  EDGEADMM_TRY_ASSIGN(
      store::Statement central,
      db.Prepare("SELECT round_id, epsilon FROM ledger WHERE job_id = ? AND "
                 "scope = 'central' ORDER BY round_id"));
  central.Bind(1, r.job.id);
  EDGEADMM_TRY(central.ForEachRow([&] {
    r.central.emplace_back(central.ColumnInt(0), central.ColumnDouble(1));
    return Status::Ok();
  }));
  EDGEADMM_TRY_ASSIGN(const std::vector<std::string> ids,
                      JobDevices(db, r.job.id));
  std::map<std::string, DeviceCharge> by_id;
  for (const std::string& id : ids) by_id[id].device_id = id;
  EDGEADMM_TRY_ASSIGN(
      store::Statement uploads,
      db.Prepare("SELECT device_id, count(*) FROM uploads WHERE job_id = ? "
                 "GROUP BY device_id"));
  uploads.Bind(1, r.job.id);
  EDGEADMM_TRY(uploads.ForEachRow([&] {
    by_id[uploads.ColumnText(0)].participations = uploads.ColumnInt(1);
    return Status::Ok();
  }));
  // The latest (largest: ledgers never decrease) ε of each device scope.
  EDGEADMM_TRY_ASSIGN(
      store::Statement ledger,
      db.Prepare("SELECT scope, max(epsilon) FROM ledger WHERE job_id = ? AND "
                 "scope != 'central' GROUP BY scope"));
  ledger.Bind(1, r.job.id);
  EDGEADMM_TRY(ledger.ForEachRow([&] {
    const std::string scope = ledger.ColumnText(0);
    const size_t colon = scope.find(':');
    if (colon == std::string::npos) return Status::Ok();
    const bool local = scope.compare(0, colon, "local") == 0;
    // Only the generic ledgers ("party:<id>" is PartyLedgerReport's).
    if (!local && scope.compare(0, colon, "central") != 0) return Status::Ok();
    DeviceCharge& d = by_id[scope.substr(colon + 1)];
    (local ? d.local_epsilon : d.central_epsilon) = ledger.ColumnDouble(1);
    return Status::Ok();
  }));
  // The algorithm's uncharged per-upload bound, if any: reported only.
  const std::vector<double> network =
      algorithms::Get(r.job.config.algorithm)
          .UnchargedNetworkRdp(r.job.config, static_cast<int64_t>(ids.size()),
                               privacy::OrderGrid::Default().orders());
  if (!network.empty()) r.network_label = privacy::kNetworkBoundLabel;
  for (auto& [id, charge] : by_id) {
    charge.device_id = id;
    if (!network.empty()) {  // 0 without visits, as the ledgers
      charge.network_epsilon =
          charge.participations == 0
              ? 0.0
              : UnchargedEpsilon(network, charge.participations,
                                 r.job.config.delta);
    }
    r.devices.push_back(charge);
  }
  EDGEADMM_TRY_ASSIGN(r.algorithm_section, LoadAlgorithmSection(db, r.job));
  r.plan_section = PlanSection(r.job.config);
  EDGEADMM_TRY_ASSIGN(r.parties, LoadPartyLedger(db, r.job));
  return r;
}

host::ErrorOr<ReleasedModelRecord> LoadReleasedModel(store::Database& db,
                                                     std::string_view name,
                                                     ModelChoice choice) {
  ReleasedModelRecord m;
  EDGEADMM_HOST_TRY_ASSIGN(m.job, FindJob(db, name));
  const JobConfig& config = m.job.config;
  const std::string job = "job " + config.name;
  if (choice.kind == ModelChoice::Kind::kDefault) {
    choice.kind = config.release == ReleaseChoice::kBest
                      ? ModelChoice::Kind::kBest
                      : ModelChoice::Kind::kLast;
  }
  m.selection = choice.kind;
  std::string tail = kLastModelTail;
  if (choice.kind == ModelChoice::Kind::kBest) {
    if (config.validation_data.empty()) {
      return host::Error::FailedPrecondition(
          job +
          " has no [validation] data to select a best model on; use "
          "--round last or N");
    }
    if (!config.selects_on_validation()) {
      return host::Error::FailedPrecondition(
          job +
          " validates on the devices' data (validation.held_by = "
          "\"devices\"): choosing a model on it is not covered by the "
          "privacy ledger; use --round last or N");
    }
    tail = BestModelTail(config.selection_metric);
  } else if (choice.kind == ModelChoice::Kind::kRound) {
    tail = "AND round_id = " + std::to_string(choice.round_id);
  }
  ModelRef ref;
  EDGEADMM_HOST_TRY_ASSIGN(const bool found,
                           QueryModel(db, m.job.id, tail, ref, &m.z));
  if (!found && choice.kind == ModelChoice::Kind::kRound) {
    EDGEADMM_HOST_TRY_ASSIGN(
        store::Statement state,
        db.Prepare("SELECT state FROM rounds WHERE job_id = ? AND round_id = "
                   "?"));
    state.Bind(1, m.job.id).Bind(2, choice.round_id);
    EDGEADMM_HOST_TRY_ASSIGN(const bool exists, state.Step());
    return host::Error::NotFound(
        "round " + std::to_string(choice.round_id) + " of " + job +
        " has no stored model (" +
        (exists ? "the round is " + state.ColumnText(0) : "no such round") +
        ")");
  }
  if (!found && choice.kind == ModelChoice::Kind::kBest) {
    return host::Error::NotFound(
        job +
        " has no validated model yet (does the daemon read "
        "validation.data? see its log); use --round last or N");
  }
  if (!found) return host::Error::NotFound(job + " has released no model yet");
  m.iteration = ref.iteration;
  m.round_id = ref.round_id;
  m.scores = ref.scores;
  EDGEADMM_HOST_TRY_ASSIGN(
      const int64_t iterations,
      QueryInt(db, "SELECT max(iteration) FROM models WHERE job_id = ?",
               m.job.id));
  EDGEADMM_HOST_TRY_ASSIGN(m.central, CentralReport(db, m.job, 0, iterations));
  m.epsilon = m.central.epsilon;
  EDGEADMM_HOST_TRY_ASSIGN(m.algorithm_section,
                           LoadAlgorithmSection(db, m.job));
  m.plan_section = PlanSection(config);
  EDGEADMM_HOST_TRY_ASSIGN(m.parties, LoadPartyLedger(db, m.job));
  return m;
}

std::vector<uint8_t> ModelToBinary(const ReleasedModelRecord& m) {
  return store::EncodeFloats(m.z);
}

std::string ModelToJson(const ReleasedModelRecord& m) {
  // Escaped: a name stored before IsValidJobName may hold any byte.
  std::string out = "{\"job\": " + privacy::JsonString(m.job.config.name);
  out +=
      ", \"selection\": \"" + std::string(ModelChoiceName(m.selection)) + "\"";
  out += ", \"iteration\": " + std::to_string(m.iteration);
  out += ", \"round\": " + std::to_string(m.round_id);
  out += ", \"epsilon\": " + Number(m.epsilon);
  out += ", \"delta\": " + Number(m.job.config.delta);
  out += ", \"epsilon_meaning\": " + m.central.ToJson();
  if (m.scores.validated) {
    out += ", \"validation\": {\"metric\": \"" +
           std::string(SelectionMetricName(m.job.config.selection_metric)) +
           "\", \"held_by\": \"" +
           ValidationHolderName(m.job.config.validation_held_by) +
           "\", \"loss\": " + Number(m.scores.loss) +
           ", \"objective\": " + Number(m.scores.objective);
    if (m.scores.has_accuracy) {
      out += ", \"accuracy\": " + Number(m.scores.accuracy);
    }
    out += "}";
  }
  if (m.scores.test_records > 0) {
    out += ", \"test_score\": " + TestScoreJson(m.job.config, m.scores);
  }
  for (const algorithms::ReportSection* section :
       {&m.algorithm_section, &m.plan_section}) {
    if (section->key.empty()) continue;
    out += ", " + privacy::JsonString(section->key) + ": " + section->json;
  }
  if (m.parties.applies) {
    // "epsilon" above is the generic central ledger's; the per-party
    // values bound each party's releases.
    out += ", \"party_ledger\": " + m.parties.ToJson();
  }
  out += ", \"dimension\": " + std::to_string(m.z.size());
  out += ", \"z\": [";
  for (size_t i = 0; i < m.z.size(); ++i) {
    out += (i ? ", " : "") + Number(m.z[i]);
  }
  return out + "]}\n";
}

}  // namespace edgeadmm::jobs
