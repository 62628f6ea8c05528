// UploadJudge: the acceptance rules of one upload (docs/protocol.md,
// "Uploads"), in order: identity, enrolment, registry, job, round, cohort,
// shape, the algorithm's bounds (one upload, then the device's sum across
// rounds), duplicates. It only reads: the engine keeps
// what it accepts.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "edgeadmm/jobs/job_store.h"
#include "edgeadmm/registry/device_registry.h"
#include "edgeadmm/rounds/open_round.h"
#include "edgeadmm/rounds/round_store.h"
#include "edgeadmm/rounds/upload.h"
#include "edgeadmm/rounds/upload_sums.h"

namespace edgeadmm::rounds {

class UploadJudge {
 public:
  // All five must outlive the judge.
  UploadJudge(const jobs::JobRecord& job,
              const std::unordered_map<std::string, size_t>& device_index,
              const registry::DeviceRegistry& registry, const RoundStore& store,
              const UploadSums& sums)
      : job_(&job),
        device_index_(&device_index),
        registry_(&registry),
        store_(&store),
        sums_(&sums) {}

  // The verdict on `upload` by the device authenticated as `identity` (its
  // DTLS PSK identity) while `open` is the open round, after `iteration`
  // committed rounds. On kAccepted, `*index` is the device's index.
  UploadVerdict Judge(std::string_view identity, const Upload& upload,
                      const OpenRound& open, int64_t iteration,
                      size_t* index) const;

  // For a round that is not open: kDuplicate if the committed round holds
  // the same vector from this device, kConflictingDuplicate if it holds
  // another, otherwise kStaleRound.
  UploadVerdict CommittedUploadVerdict(const Upload& upload) const;

 private:
  const jobs::JobRecord* job_;
  const std::unordered_map<std::string, size_t>* device_index_;
  const registry::DeviceRegistry* registry_;
  const RoundStore* store_;
  const UploadSums* sums_;
};

}  // namespace edgeadmm::rounds
