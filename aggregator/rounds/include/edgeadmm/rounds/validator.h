// Validator: progress metrics of the released model on a validation set the
// gateway holds (never sent to devices): mean loss, the job's objective
// (mean loss + r(z), e.g. the Lasso objective) and, for logistic jobs, sign
// accuracy.
#pragma once

#include <vector>

#include "edgeadmm/dataio/dense_dataset.h"
#include "edgeadmm/host/error.h"
#include "edgeadmm/jobs/job_config.h"
#include "edgeadmm/regularizer.h"

namespace edgeadmm::rounds {

struct ValidationMetrics {
  double loss = 0;       // mean loss of the job (logistic or squared)
  double objective = 0;  // loss + r(z), r the job's regularizer
  // Fraction with sign(aᵀz) = b (labels ±1); logistic jobs only (0 and
  // has_accuracy = false for squared loss, where labels are real numbers).
  double accuracy = 0;
  bool has_accuracy = false;
  // The accuracy of always predicting the validation set's most common
  // label (logistic jobs only): a model below it is worse than a constant.
  double majority = 0;
};

class Validator {
 public:
  // Loads `config.validation_data` (plain or .xz) in the job's
  // validation.format (LIBSVM with dimension p, or Adult CSV) and
  // validation.normalize, through dataio's LoadDataset, the loader the
  // devices use. Errors as LoadDataset, naming file and line;
  // FAILED_PRECONDITION if the job has no validation data.
  static host::ErrorOr<Validator> Load(const jobs::JobConfig& config);
  // A validator over an in-memory data set (tests); `regularizer` is the
  // job's r (objective = mean loss + r(z)).
  Validator(jobs::Loss loss, DenseDataset data,
            Regularizer regularizer = Regularizer())
      : loss_(loss), data_(std::move(data)), regularizer_(regularizer) {}

  // Metrics of model `z` (size p): logistic log(1 + exp(−b·aᵀz)) or
  // squared ½(aᵀz − b)², averaged over the samples; objective adds r(z)
  // (for squared loss with L1: (1/(2n))||Az − b||² + κ||z||₁, the Lasso).
  ValidationMetrics Evaluate(const std::vector<double>& z) const;
  size_t samples() const { return data_.samples; }

 private:
  jobs::Loss loss_;
  DenseDataset data_;
  Regularizer regularizer_;
};

}  // namespace edgeadmm::rounds
