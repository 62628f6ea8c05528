// LocalTrainer::Init for any registered step (edgeadmm/local_steps.h): the
// one place that links every runner.
#include "edgeadmm/local_steps.h"

namespace edgeadmm {

Status LocalTrainer::Init(ByteSpan workspace, const DatasetView& data,
                          const TrainerConfig& config) {
  const LocalStepRunner* runner = FindLocalStepRunner(config.algorithm);
  if (runner == nullptr) {
    initialized_ = false;
    return Status::InvalidArgument();
  }
  return Init(*runner, workspace, data, config);
}

}  // namespace edgeadmm
