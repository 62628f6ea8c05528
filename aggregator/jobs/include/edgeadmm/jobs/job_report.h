// Read-only reports on a job for the admin CLI: status, privacy ledger and
// the released model with its export formats (binary, JSON, C header).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "edgeadmm/jobs/job_store.h"
#include "edgeadmm/privacy/epsilon_report.h"
#include "edgeadmm/privacy/ledger_meaning.h"

namespace edgeadmm::jobs {

struct JobStatus {
  JobRecord job;
  int64_t iteration = 0;          // committed rounds
  int64_t open_round = 0;         // 0 if none
  int64_t last_round = 0;         // last committed round id
  int64_t last_participants = 0;  // its accepted uploads
  int64_t discarded_rounds = 0;
  int64_t lost_rounds = 0;
  // The central ε spent so far (the largest stored), with its mechanism,
  // neighbouring relation, observer, conversion, δ and order.
  privacy::EpsilonReport central;
};

struct DeviceCharge {
  std::string device_id;
  int64_t participations = 0;  // committed uploads
  double central_epsilon = 0;  // this device's central ledger
  double local_epsilon = 0;    // its local-DP ledger (device-side noise)
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
};

struct ReleasedModelRecord {
  JobRecord job;
  int64_t iteration = 0;
  int64_t round_id = 0;
  double epsilon = 0;
  privacy::EpsilonReport central;  // epsilon with its meaning
  std::vector<double> z;
};

// Store errors; NOT_FOUND for an unknown job.
Result<JobStatus> LoadJobStatus(store::Database& db, std::string_view name);
Result<PrivacyReport> LoadPrivacyReport(store::Database& db,
                                        std::string_view name);
// The last released model; NOT_FOUND if nothing was released yet.
Result<ReleasedModelRecord> LoadReleasedModel(store::Database& db,
                                              std::string_view name);

// little-endian float32 coordinates, no header.
std::vector<uint8_t> ModelToBinary(const ReleasedModelRecord& m);
// {"job": ..., "iteration": ..., "round": ..., "epsilon": ..., "delta": ...,
//  "epsilon_meaning": {EpsilonReport::ToJson}, "dimension": p, "z": [...]}
// with 17 significant digits.
std::string ModelToJson(const ReleasedModelRecord& m);
// A C header for firmware: EDGEADMM_MODEL_DIMENSION and a float array
// kEdgeadmmModel[] (values rounded to float32).
std::string ModelToCHeader(const ReleasedModelRecord& m);

}  // namespace edgeadmm::jobs
