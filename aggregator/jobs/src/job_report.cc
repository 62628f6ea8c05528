#include "edgeadmm/jobs/job_report.h"

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <map>

#include "edgeadmm/privacy/conversion.h"
#include "edgeadmm/privacy/ledger_meaning.h"
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
      privacy::CentralLedgerMeaning(job.config.policy), epsilon,
      job.config.delta, order, conversion, "central", job.config.policy,
      static_cast<uint64_t>(compositions));
}

}  // namespace

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
  EDGEADMM_TRY_ASSIGN(s.central, CentralReport(db, s.job, 0, s.iteration));
  return s;
}

Result<PrivacyReport> LoadPrivacyReport(store::Database& db,
                                        std::string_view name) {
  PrivacyReport r;
  EDGEADMM_TRY_ASSIGN(r.job, FindJob(db, name));
  r.central_meaning = privacy::CentralLedgerMeaning(r.job.config.policy);
  r.local_meaning = privacy::LocalLedgerMeaning();
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
    DeviceCharge& d = by_id[scope.substr(colon + 1)];
    (scope.compare(0, colon, "local") == 0 ? d.local_epsilon
                                           : d.central_epsilon) =
        ledger.ColumnDouble(1);
    return Status::Ok();
  }));
  for (auto& [id, charge] : by_id) {
    charge.device_id = id;
    r.devices.push_back(charge);
  }
  return r;
}

Result<ReleasedModelRecord> LoadReleasedModel(store::Database& db,
                                              std::string_view name) {
  ReleasedModelRecord m;
  EDGEADMM_TRY_ASSIGN(m.job, FindJob(db, name));
  EDGEADMM_TRY_ASSIGN(
      store::Statement stmt,
      db.Prepare("SELECT iteration, round_id, z FROM models WHERE job_id = ? "
                 "AND iteration > 0 ORDER BY iteration DESC LIMIT 1"));
  stmt.Bind(1, m.job.id);
  EDGEADMM_TRY(stmt.StepRow());
  m.iteration = stmt.ColumnInt(0);
  m.round_id = stmt.ColumnInt(1);
  EDGEADMM_TRY_ASSIGN(m.z, store::DecodeDoubles(stmt.ColumnBlob(2)));
  EDGEADMM_TRY_ASSIGN(m.central,
                      CentralReport(db, m.job, m.round_id, m.iteration));
  m.epsilon = m.central.epsilon;
  return m;
}

std::vector<uint8_t> ModelToBinary(const ReleasedModelRecord& m) {
  return store::EncodeFloats(m.z);
}

std::string ModelToJson(const ReleasedModelRecord& m) {
  std::string out = "{\"job\": \"" + m.job.config.name + "\"";
  out += ", \"iteration\": " + std::to_string(m.iteration);
  out += ", \"round\": " + std::to_string(m.round_id);
  out += ", \"epsilon\": " + Number(m.epsilon);
  out += ", \"delta\": " + Number(m.job.config.delta);
  out += ", \"epsilon_meaning\": " + m.central.ToJson();
  out += ", \"dimension\": " + std::to_string(m.z.size());
  out += ", \"z\": [";
  for (size_t i = 0; i < m.z.size(); ++i) {
    out += (i ? ", " : "") + Number(m.z[i]);
  }
  return out + "]}\n";
}

std::string ModelToCHeader(const ReleasedModelRecord& m) {
  char line[160];
  std::string out =
      "// Generated by `edgeadmm job export`: the released model of job \"" +
      m.job.config.name + "\".\n";
  std::snprintf(line, sizeof(line),
                "// Iteration %" PRId64 ", round %" PRId64
                ":\n",
                m.iteration, m.round_id);
  out += line;
  out += "// central " + m.central.ToText() + ".\n";
  out += "#pragma once\n\n";
  out +=
      "#define EDGEADMM_MODEL_DIMENSION " + std::to_string(m.z.size()) + "\n\n";
  out += "static const float kEdgeadmmModel[EDGEADMM_MODEL_DIMENSION] = {\n";
  for (size_t i = 0; i < m.z.size(); ++i) {
    std::snprintf(line, sizeof(line), "    %.8ef,\n",
                  static_cast<double>(static_cast<float>(m.z[i])));
    out += line;
  }
  return out + "};\n";
}

}  // namespace edgeadmm::jobs
