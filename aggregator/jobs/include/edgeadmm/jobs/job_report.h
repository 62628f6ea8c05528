// Read-only reports on a job for the admin CLI: status, privacy ledger and
// the released model with its export formats (binary, JSON, C header).
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "edgeadmm/algorithms/algorithm.h"
#include "edgeadmm/host/error.h"
#include "edgeadmm/jobs/job_store.h"
#include "edgeadmm/jobs/party_ledger_report.h"
#include "edgeadmm/privacy/epsilon_report.h"
#include "edgeadmm/privacy/ledger_meaning.h"

namespace edgeadmm::jobs {

// A committed model's scores on the job's validation data, as stored.
struct ModelScores {
  bool validated = false;  // false: no scores stored for it
  double loss = 0;
  double objective = 0;
  bool has_accuracy = false;
  double accuracy = 0;
  // The gateway's test score of the model (models.test_*, from
  // algorithms::ServerModel::test_score; what it is:
  // algorithms::ReportSections::TestScoreMeaning).
  int64_t test_records = 0;  // 0: not scored
  double test_log_loss = 0;
  double test_accuracy = 0;
};

// A committed model by iteration and round.
struct ModelRef {
  int64_t iteration = 0;  // 0: none
  int64_t round_id = 0;
  ModelScores scores;
};

struct JobStatus {
  JobRecord job;
  int64_t iteration = 0;          // committed rounds
  int64_t open_round = 0;         // 0 if none
  int64_t last_round = 0;         // last committed round id
  int64_t last_participants = 0;  // its accepted uploads
  int64_t discarded_rounds = 0;
  int64_t lost_rounds = 0;
  ModelRef last;  // the newest committed model
  // The best validated model (iteration 0 if the job does not select on
  // gateway-held validation data or none is validated yet).
  ModelRef best;
  // The central ε spent so far (the largest stored), with its mechanism,
  // neighbouring relation, observer, conversion, δ and order.
  privacy::EpsilonReport central;
  // The algorithm's own section, rendered by its unit from the uploads'
  // stored extras (algorithms::UploadExtra::Report); empty key: none.
  algorithms::ReportSection algorithm_section;
  // The algorithm's section from the job's config alone
  // (algorithms::ReportSections::PlanSection); empty key: none.
  algorithms::ReportSection plan_section;
  // The per-party ε of an algorithm with algorithms::PartyPrivacy (then the
  // job's privacy; its generic central and local ledgers may not be).
  PartyLedgerReport parties;
};

struct DeviceCharge {
  std::string device_id;
  int64_t participations = 0;  // committed uploads
  double central_epsilon = 0;  // this device's central ledger
  double local_epsilon = 0;    // its local-DP ledger (device-side noise)
  // NaN unless the algorithm reports an uncharged bound
  // (algorithms::Algorithm::UnchargedNetworkRdp): that bound for the
  // device's participations, computed for the report, never charged or
  // stored (PrivacyReport::network_label says what it is).
  double network_epsilon = std::nan("");
};

struct PrivacyReport {
  JobRecord job;
  // What the central and the local numbers mean.
  privacy::LedgerMeaning central_meaning;
  privacy::LedgerMeaning local_meaning;
  // The conversions of the job's stored ε ("classic" for rows written
  // before schema version 2), sorted.
  std::vector<std::string> conversions;
  std::vector<std::pair<int64_t, double>> central;  // (round, ε) history
  std::vector<DeviceCharge> devices;                // enrolled devices
  // Non-null when devices carry a network_epsilon: what that number is
  // (privacy::kNetworkBoundLabel).
  const char* network_label = nullptr;
  algorithms::ReportSection algorithm_section;  // as JobStatus's
  algorithms::ReportSection plan_section;       // as JobStatus's
  PartyLedgerReport parties;                    // as JobStatus's
};

// Which committed model to export.
struct ModelChoice {
  enum class Kind { kDefault, kBest, kLast, kRound };
  Kind kind = Kind::kDefault;  // default: the job's [validation] release
  int64_t round_id = 0;        // kRound
  static ModelChoice Last() { return {Kind::kLast, 0}; }
  static ModelChoice Best() { return {Kind::kBest, 0}; }
  static ModelChoice Round(int64_t id) { return {Kind::kRound, id}; }
};
// "last", "best" or a round id N >= 1; INVALID_ARGUMENT naming the text.
host::ErrorOr<ModelChoice> ParseModelChoice(std::string_view text);
const char* ModelChoiceName(ModelChoice::Kind kind);  // "best", "last", ...

struct ReleasedModelRecord {
  JobRecord job;
  ModelChoice::Kind selection = ModelChoice::Kind::kLast;  // what was chosen
  int64_t iteration = 0;
  int64_t round_id = 0;
  ModelScores scores;
  // The central ε spent by the job when exported: every committed model
  // was released (to the devices), so a model chosen among them afterwards
  // carries the ε of all of them (docs/privacy.md, "Model selection").
  double epsilon = 0;
  privacy::EpsilonReport central;               // epsilon with its meaning
  algorithms::ReportSection algorithm_section;  // as JobStatus's
  algorithms::ReportSection plan_section;       // as JobStatus's
  PartyLedgerReport parties;                    // as JobStatus's
  std::vector<double> z;
};

// Store errors; NOT_FOUND for an unknown job.
Result<JobStatus> LoadJobStatus(store::Database& db, std::string_view name);
Result<PrivacyReport> LoadPrivacyReport(store::Database& db,
                                        std::string_view name);
// The chosen committed model. NOT_FOUND (with a message) if nothing was
// released yet, round N has no stored model, or best is asked of a job
// without validated models; FAILED_PRECONDITION for best on a job whose
// validation data are not the gateway's.
host::ErrorOr<ReleasedModelRecord> LoadReleasedModel(
    store::Database& db, std::string_view name,
    ModelChoice choice = ModelChoice());

// little-endian float32 coordinates, no header.
std::vector<uint8_t> ModelToBinary(const ReleasedModelRecord& m);
// {"job": ..., "selection": "best"|"last"|"round", "iteration": ...,
//  "round": ..., "epsilon": ..., "delta": ..., "epsilon_meaning":
//  {EpsilonReport::ToJson}, "validation": {...} (if scored), "test_score":
//  {...} (if scored), the algorithm's sections under their keys,
//  "party_ledger": {...} (per-party jobs), "dimension": p, "z": [...]}
// with 17 significant digits.
std::string ModelToJson(const ReleasedModelRecord& m);
// The C header export is model_header.h's ModelToCHeader.

}  // namespace edgeadmm::jobs
