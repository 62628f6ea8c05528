// Read-only reports on a job for the admin CLI: status, privacy ledger and
// the released model with its export formats (binary, JSON, C header).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "edgeadmm/jobs/job_store.h"

namespace edgeadmm::jobs {

struct JobStatus {
  JobRecord job;
  int64_t iteration = 0;          // committed rounds
  int64_t open_round = 0;         // 0 if none
  int64_t last_round = 0;         // last committed round id
  int64_t last_participants = 0;  // its accepted uploads
  int64_t discarded_rounds = 0;
  int64_t lost_rounds = 0;
  double central_epsilon = 0;  // spent so far
};

struct DeviceCharge {
  std::string device_id;
  int64_t participations = 0;  // committed uploads
  double central_epsilon = 0;  // this device's central ledger
  double local_epsilon = 0;    // its local-DP ledger (device-side noise)
};

struct PrivacyReport {
  JobRecord job;
  std::vector<std::pair<int64_t, double>> central;  // (round, ε) history
  std::vector<DeviceCharge> devices;                // enrolled devices
};

struct ReleasedModelRecord {
  JobRecord job;
  int64_t iteration = 0;
  int64_t round_id = 0;
  double epsilon = 0;
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
//  "dimension": p, "z": [...]} with 17 significant digits.
std::string ModelToJson(const ReleasedModelRecord& m);
// A C header for firmware: EDGEADMM_MODEL_DIMENSION and a float array
// kEdgeadmmModel[] (values rounded to float32).
std::string ModelToCHeader(const ReleasedModelRecord& m);

}  // namespace edgeadmm::jobs
