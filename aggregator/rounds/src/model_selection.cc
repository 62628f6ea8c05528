#include "edgeadmm/rounds/model_selection.h"

#include <cstdio>

namespace edgeadmm::rounds {

double ModelSelection::Score(const ValidationMetrics& m) const {
  switch (config_->selection_metric) {
    case jobs::SelectionMetric::kAccuracy:
      return m.accuracy;
    case jobs::SelectionMetric::kLoss:
      return -m.loss;
    case jobs::SelectionMetric::kObjective:
      return -m.objective;
  }
  return m.accuracy;
}

bool ModelSelection::Improves(const ValidationMetrics& candidate) const {
  // A NaN score never improves (and never blocks a later finite one).
  const double score = Score(candidate);
  if (score != score) return false;
  return !has_best_ || score > Score(best_.metrics);
}

void ModelSelection::Observe(const ScoredModel& model) {
  if (!Improves(model.metrics)) return;
  best_ = model;
  has_best_ = true;
}

bool ModelSelection::ShouldStop(int64_t iteration) const {
  return enabled() && config_->early_stop_rounds > 0 && has_best_ &&
         iteration - best_.iteration >= config_->early_stop_rounds;
}

std::string ModelSelection::StopReason(int64_t iteration) const {
  char text[200];
  std::snprintf(text, sizeof(text),
                "early stop: validation %s not better than round %lld's "
                "(iteration %lld) for %lld committed round%s",
                jobs::SelectionMetricName(config_->selection_metric),
                static_cast<long long>(best_.round_id),
                static_cast<long long>(best_.iteration),
                static_cast<long long>(iteration - best_.iteration),
                iteration - best_.iteration == 1 ? "" : "s");
  return text;
}

}  // namespace edgeadmm::rounds
