#include "edgeadmm/jobs/party_ledger_report.h"

#include <cfloat>
#include <cmath>
#include <cstdio>
#include <limits>

#include "edgeadmm/algorithms/registry.h"
#include "edgeadmm/privacy/epsilon_report.h"

namespace edgeadmm::jobs {
namespace {

// The device sends its +inf as DBL_MAX (the wire needs a finite number).
double DeviceEpsilon(double reported) {
  return reported >= DBL_MAX ? std::numeric_limits<double>::infinity()
                             : reported;
}

std::string Text(double v) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.10g", v);
  return text;
}

}  // namespace

Result<PartyLedgerReport> LoadPartyLedger(store::Database& db,
                                          const JobRecord& job) {
  PartyLedgerReport r;
  double unused = 0;
  const algorithms::PartyPrivacy* party =
      algorithms::Get(job.config.algorithm).party_privacy();
  if (party == nullptr || !party->PartyMechanism(job.config, 1, unused)) {
    return r;
  }
  r.applies = true;
  r.algorithm = algorithms::Get(job.config.algorithm).name();
  const algorithms::PartyLedgerMeaning meaning =
      party->DescribePartyLedger(job.config);
  r.delta = party->PartyDelta(job.config);
  r.status = meaning.status;
  r.mechanism = meaning.mechanism;
  r.relation = meaning.relation;
  r.conversion = meaning.conversion;
  r.observer = meaning.observer;
  EDGEADMM_TRY_ASSIGN(const std::vector<std::string> ids,
                      JobDevices(db, job.id));
  // The newest row is the composed curve; the newest row with a report is
  // the device's latest claim.
  EDGEADMM_TRY_ASSIGN(
      store::Statement charged,
      db.Prepare("SELECT count(*), coalesce((SELECT epsilon FROM ledger "
                 "WHERE job_id = ?1 AND scope = ?2 ORDER BY round_id DESC "
                 "LIMIT 1), 0) FROM ledger WHERE job_id = ?1 AND scope = ?2"));
  EDGEADMM_TRY_ASSIGN(
      store::Statement reported,
      db.Prepare("SELECT reported_participations, reported_epsilon, "
                 "reported_delta, reported_conversion FROM ledger WHERE "
                 "job_id = ?1 AND scope = ?2 AND reported_epsilon IS NOT NULL "
                 "ORDER BY round_id DESC LIMIT 1"));
  for (size_t m = 0; m < ids.size(); ++m) {
    PartyLedgerEntry e;
    e.party = static_cast<int64_t>(m);
    e.device_id = ids[m];
    const std::string scope = "party:" + ids[m];
    EDGEADMM_TRY(charged.Reset());
    charged.Bind(1, job.id).Bind(2, scope);
    EDGEADMM_TRY(charged.StepRow());
    e.charges = charged.ColumnInt(0);
    e.epsilon = charged.ColumnDouble(1);
    EDGEADMM_TRY(reported.Reset());
    reported.Bind(1, job.id).Bind(2, scope);
    EDGEADMM_TRY_ASSIGN(e.reported, reported.Step());
    if (e.reported) {
      e.reported_participations = reported.ColumnInt(0);
      e.reported_epsilon = DeviceEpsilon(reported.ColumnDouble(1));
      e.reported_delta = reported.ColumnDouble(2);
      e.reported_conversion = reported.ColumnText(3);
    }
    r.parties.push_back(std::move(e));
  }
  return r;
}

std::string PartyLedgerReport::ToText() const {
  std::string out =
      "# per-party epsilon (" + algorithm +
      "; the gateway's, computed from the job's public parameters and the "
      "uploads it accepted): " +
      status + "\n#   mechanism: " + mechanism +
      "\n#   neighbours: " + relation + "\n#   conversion: " + conversion +
      ", delta " + Text(delta) + "\n#   against: " + observer +
      "\n# beside it, the device's own ledger as reported with its newest "
      "charged upload (what the device enforces its budget with; its delta "
      "and conversion are its own; a device that took uncovered steps "
      "(allow_unaccounted_steps) charged nothing for them)\n"
      "# party\tdevice\tcharged uploads\tgateway epsilon\tdevice epsilon\t"
      "device delta\tdevice conversion\tdevice participations\n";
  for (const PartyLedgerEntry& e : parties) {
    out += "party\t" + std::to_string(e.party) + "\t" + e.device_id + "\t" +
           std::to_string(e.charges) + "\t" + Text(e.epsilon) + "\t";
    out += e.reported
               ? Text(e.reported_epsilon) + "\t" + Text(e.reported_delta) +
                     "\t" + e.reported_conversion + "\t" +
                     std::to_string(e.reported_participations)
               : "none reported\t-\t-\t-";
    out += "\n";
  }
  return out;
}

std::string PartyLedgerReport::ToJson() const {
  std::string out =
      "{\"what\": \"per-party epsilon of the gateway's party ledger, with "
      "what each device reported\", \"status\": " +
      privacy::JsonString(status) +
      ", \"mechanism\": " + privacy::JsonString(mechanism) +
      ", \"relation\": " + privacy::JsonString(relation) +
      ", \"conversion\": " + privacy::JsonString(conversion) +
      ", \"delta\": " + privacy::FormatNumber(delta) +
      ", \"observer\": " + privacy::JsonString(observer) + ", \"parties\": [";
  for (size_t i = 0; i < parties.size(); ++i) {
    const PartyLedgerEntry& e = parties[i];
    out += std::string(i ? ", " : "") +
           "{\"party\": " + std::to_string(e.party) +
           ", \"device\": " + privacy::JsonString(e.device_id) +
           ", \"charges\": " + std::to_string(e.charges) +
           ", \"epsilon\": " + privacy::FormatNumber(e.epsilon) +
           ", \"device_reported\": ";
    out += e.reported
               ? "{\"epsilon\": " + privacy::FormatNumber(e.reported_epsilon) +
                     ", \"delta\": " + privacy::FormatNumber(e.reported_delta) +
                     ", \"conversion\": " +
                     privacy::JsonString(e.reported_conversion) +
                     ", \"participations\": " +
                     std::to_string(e.reported_participations) + "}"
               : std::string("null");
    out += "}";
  }
  return out + "]}";
}

}  // namespace edgeadmm::jobs
