// The per-party ledger of a job whose algorithm charges privacy per party
// (algorithms::PartyPrivacy) as the admin CLI reports it (`job status`,
// `job ledger`, export): per party, the gateway's ε from its "party:<id>"
// ledger rows (rounds::PartyLedger) next to the ε the device reported with
// its newest charged upload, with the labels of both (the algorithm's
// PartyPrivacy::DescribePartyLedger; docs/privacy.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "edgeadmm/jobs/job_store.h"
#include "edgeadmm/store/database.h"

namespace edgeadmm::jobs {

struct PartyLedgerEntry {
  int64_t party = 0;  // the party's index (the job's devices by id)
  std::string device_id;
  int64_t charges = 0;  // accepted uploads charged
  double epsilon = 0;   // the gateway's, at PartyLedgerReport::delta
  // What the device reported with its newest charged upload (Update.ledger).
  bool reported = false;
  int64_t reported_participations = 0;
  double reported_epsilon = 0;  // +inf for the device's "above its cap"
  double reported_delta = 0;
  std::string reported_conversion;
};

struct PartyLedgerReport {
  bool applies = false;   // the job has per-party ledgers
  std::string algorithm;  // the job's algorithm name
  double delta = 0;       // of every gateway ε
  std::string status, mechanism, relation, conversion, observer;
  std::vector<PartyLedgerEntry> parties;

  // Labelled lines ("# ..." headers, then "party\t..." per party).
  std::string ToText() const;
  // {"what": ..., "status": ..., "mechanism": ..., "relation": ...,
  //  "conversion": ..., "delta": ..., "observer": ..., "parties": [{"party",
  //  "device", "charges", "epsilon", "device_reported": {...} | null}]}
  std::string ToJson() const;
};

// Store errors; an empty report (applies = false) for other algorithms.
Result<PartyLedgerReport> LoadPartyLedger(store::Database& db,
                                          const JobRecord& job);

}  // namespace edgeadmm::jobs
