#include "edgeadmm/rounds/server_update.h"

#include "edgeadmm/algorithms/registry.h"

#include <cfloat>
#include <cmath>

namespace edgeadmm::rounds {
namespace {

// True if every value is finite and float32 holds it (the wire's and the
// store's number format).
bool Float32Holds(const std::vector<double>& v) {
  for (double x : v) {
    if (!(std::abs(x) <= FLT_MAX)) return false;
  }
  return true;
}

}  // namespace

int64_t UploadLength(const jobs::JobConfig& config, int64_t iteration) {
  return algorithms::Get(config.algorithm).UploadLengthAt(config, iteration);
}

Status ApplyRound(const jobs::JobConfig& config, int64_t n,
                  const std::vector<std::vector<double>>& uploads,
                  SamplingRng& noise_rng, ServerModel& model) {
  const algorithms::Algorithm* algorithm = algorithms::Find(config.algorithm);
  // trusted-aggregator releases every round, uploads or not (m_min = 0).
  const bool empty_allowed =
      config.policy == privacy::Policy::kTrustedAggregator;
  if (algorithm == nullptr || (uploads.empty() && !empty_allowed) || n < 1 ||
      model.z.size() != static_cast<size_t>(algorithm->ModelLength(config))) {
    return Status::InvalidArgument();
  }
  // One length for the whole round: the plain upload or a phase's longest.
  const size_t length = static_cast<size_t>(algorithm->UploadLength(config));
  const size_t longest =
      static_cast<size_t>(algorithm->MaxUploadLength(config));
  const size_t first = uploads.empty() ? length : uploads[0].size();
  if (first != length && first != longest) return Status::InvalidArgument();
  for (const std::vector<double>& u : uploads) {
    if (u.size() != first) return Status::InvalidArgument();
  }
  ServerModel next = model;
  EDGEADMM_TRY(algorithm->ApplyRound(config, n, uploads, noise_rng, next));
  if (!Float32Holds(next.z) || !Float32Holds(next.state) ||
      !std::isfinite(next.test_score.log_loss)) {
    return Status::OutOfRange();
  }
  model = std::move(next);
  return Status::Ok();
}

}  // namespace edgeadmm::rounds
