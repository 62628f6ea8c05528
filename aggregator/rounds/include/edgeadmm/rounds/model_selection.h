// ModelSelection: which committed model scored best on the gateway-held
// validation data, and whether the job should stop early because none of
// the last K committed models beat it (docs/aggregator.md, "Model
// selection"; why it costs no privacy: docs/privacy.md).
#pragma once

#include <cstdint>
#include <string>

#include "edgeadmm/jobs/job_config.h"
#include "edgeadmm/rounds/validator.h"

namespace edgeadmm::rounds {

// A validated committed model.
struct ScoredModel {
  int64_t iteration = 0;
  int64_t round_id = 0;
  ValidationMetrics metrics;
};

class ModelSelection {
 public:
  explicit ModelSelection(const jobs::JobConfig& config) : config_(&config) {}

  // True when the job selects on its validation data (gateway-held).
  bool enabled() const { return config_->selects_on_validation(); }
  // The job's metric as a score where larger is better (accuracy, or the
  // negated loss/objective).
  double Score(const ValidationMetrics& m) const;
  // True if `candidate` beats the best so far (strictly: ties keep the
  // earlier model).
  bool Improves(const ValidationMetrics& candidate) const;
  // Records a validated committed model (iterations in increasing order).
  void Observe(const ScoredModel& model);
  bool has_best() const { return has_best_; }
  const ScoredModel& best() const { return best_; }
  // True if the job must stop after committed iteration `iteration`:
  // early_stop_rounds > 0 and that many iterations since the best.
  bool ShouldStop(int64_t iteration) const;
  // Why it stopped, for jobs.end_reason and the log.
  std::string StopReason(int64_t iteration) const;

 private:
  const jobs::JobConfig* config_;
  bool has_best_ = false;
  ScoredModel best_;
};

}  // namespace edgeadmm::rounds
