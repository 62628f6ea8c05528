#include "edgeadmm/rounds/validator.h"

#include <algorithm>
#include <cmath>

#include "edgeadmm/dataio/dataset_source.h"

namespace edgeadmm::rounds {

host::ErrorOr<Validator> Validator::Load(const jobs::JobConfig& config) {
  if (config.validation_data.empty()) {
    return host::Error::FailedPrecondition("the job has no validation.data");
  }
  DatasetSource source;
  source.path = config.validation_data;
  source.format = config.validation_format;
  source.dim = static_cast<size_t>(config.dimension);
  source.labels = config.loss == jobs::Loss::kSquared ? LibsvmLabels::kReal
                                                      : LibsvmLabels::kBinary;
  source.normalization = config.validation_normalize;
  EDGEADMM_HOST_TRY_ASSIGN(DenseDataset data, LoadDataset(source));
  return Validator(config.loss, std::move(data), config.regularizer);
}

ValidationMetrics Validator::Evaluate(const std::vector<double>& z) const {
  ValidationMetrics m;
  if (data_.samples == 0 || z.size() != data_.dim) return m;
  double loss = 0;
  size_t correct = 0;
  size_t positive = 0;
  for (size_t i = 0; i < data_.samples; ++i) {
    const double* a = &data_.features[i * data_.dim];
    double margin = 0;
    for (size_t j = 0; j < data_.dim; ++j) margin += a[j] * z[j];
    const double b = data_.labels[i];
    if (loss_ == jobs::Loss::kLogistic) {
      // log(1 + e^{−t}) computed stably for both signs of t = b·aᵀz.
      const double t = b * margin;
      loss += t > 0 ? std::log1p(std::exp(-t)) : -t + std::log1p(std::exp(t));
    } else {
      loss += 0.5 * (margin - b) * (margin - b);
    }
    if ((margin > 0 ? 1.0 : -1.0) == b) ++correct;
    if (b > 0) ++positive;
  }
  m.loss = loss / static_cast<double>(data_.samples);
  m.objective = m.loss + static_cast<double>(regularizer_.Value(
                             Span<const Real>(z.data(), z.size())));
  if (loss_ == jobs::Loss::kLogistic) {
    m.has_accuracy = true;
    const auto n = static_cast<double>(data_.samples);
    m.accuracy = static_cast<double>(correct) / n;
    const auto p = static_cast<double>(positive);
    m.majority = std::max(p, n - p) / n;
  }
  return m;
}

}  // namespace edgeadmm::rounds
