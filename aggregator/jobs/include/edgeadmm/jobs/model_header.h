// The C header export (`edgeadmm job export --format header`): a released
// model as a self-contained C99 header a firmware compiles in, with its
// provenance, the expected features and a heap-free predict function.
#pragma once

#include <string>
#include <string_view>

#include "edgeadmm/host/error.h"
#include "edgeadmm/jobs/job_report.h"

namespace edgeadmm::jobs {

// How the header stores the weights.
enum class HeaderWeights {
  kFloat32,  // static const float, each coordinate rounded to float32
  kInt8,     // int8_t q_j with one scale s = max_j |w_j| / 127, w_j ≈ s·q_j
             // (s = 1 for an all-zero model)
};
// "none" -> kFloat32, "int8" -> kInt8; INVALID_ARGUMENT naming the text.
host::ErrorOr<HeaderWeights> ParseHeaderWeights(std::string_view text);

// The C identifier prefix of a job's header: every character outside
// [A-Za-z0-9_] becomes '_', and "m_" goes in front of a name that does not
// start with a letter ("a9a-test" -> "m_a9a_test").
std::string CModelPrefix(std::string_view job_name);

struct ModelHeader {
  std::string text;
  // kInt8: the scale s and max_j |w_j - s·q_j| (at most s/2); 0 for float.
  double scale = 0;
  double max_weight_error = 0;
};

// The header of `m`: an include guard, a comment block (job, round,
// selection, the central ε with δ and its conversion, loss, feature order
// and scaling), <PREFIX>_FEATURES, the weights, and the static inline
// functions <prefix>_score (w·x) and <prefix>_predict (the label ±1 for
// logistic loss, the score for squared loss). Lines of at most 100
// characters. FAILED_PRECONDITION if a coordinate is not a finite float32,
// or if the released vector does not hold one weight per feature
// (an algorithm that releases a broadcast rather than a model).
host::ErrorOr<ModelHeader> ModelToCHeader(
    const ReleasedModelRecord& m,
    HeaderWeights weights = HeaderWeights::kFloat32);

}  // namespace edgeadmm::jobs
