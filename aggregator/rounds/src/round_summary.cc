#include "edgeadmm/rounds/round_summary.h"

#include <cstdio>

namespace edgeadmm::rounds {

std::string ValidationSuffix(const RoundSummary& summary) {
  if (!summary.validated) return "";
  char text[32];
  std::string suffix = ", validation loss ";
  std::snprintf(text, sizeof(text), "%.6g", summary.metrics.loss);
  suffix += text;
  std::snprintf(text, sizeof(text), " objective %.6g",
                summary.metrics.objective);
  suffix += text;
  if (summary.metrics.has_accuracy) {
    std::snprintf(text, sizeof(text), " accuracy %.4f",
                  summary.metrics.accuracy);
    suffix += text;
    if (summary.metrics.accuracy < summary.metrics.majority) {
      std::snprintf(text, sizeof(text), "%.4f", summary.metrics.majority);
      suffix += std::string(" (below the majority class, ") + text +
                ": worse than always predicting it)";
    }
  }
  if (summary.best) suffix += " (best so far)";
  return suffix;
}

}  // namespace edgeadmm::rounds
