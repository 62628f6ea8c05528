// Every local step a device runs, by its runner (edgeadmm/*_runner.h): the
// registration list LocalTrainer (which names no algorithm) is sized and
// initialised from. kLocalStepRunners has one line per step; the task
// adapters' table (sdk/src/steps/algorithm_tasks.cc) checks at compile time
// that it lists the same algorithms, and the DeviceClient sizes its trainer
// workspace from it.
#pragma once

#include <array>
#include <cstddef>
#include <utility>

#include "edgeadmm/admm_sharing_runner.h"
#include "edgeadmm/dp_sgd_runner.h"
#include "edgeadmm/linearized_admm_runner.h"
#include "edgeadmm/local_trainer.h"
#include "edgeadmm/penalty_perturbation_runner.h"
#include "edgeadmm/prox_admm_runner.h"

namespace edgeadmm {

inline constexpr const LocalStepRunner* kLocalStepRunners[] = {
    &kProxAdmmRunner, &kLinearizedAdmmRunner, &kDpSgdRunner,
    &kPenaltyPerturbationRunner, &kAdmmSharingRunner};

inline constexpr size_t kLocalStepRunnerCount =
    sizeof(kLocalStepRunners) / sizeof(kLocalStepRunners[0]);

// The sizes alone (algorithm, workspace bytes), copied from the runners at
// compile time: a size asked at run time (DeviceClient::Init) reads these
// and references no runner's Init, so firmware links only the steps it
// initialises.
struct LocalStepSize {
  AlgorithmKind algorithm;
  size_t (*workspace_bytes)(LossKind loss, size_t samples, size_t dim);
};
template <size_t... kIndex>
constexpr std::array<LocalStepSize, sizeof...(kIndex)> LocalStepSizesOf(
    std::index_sequence<kIndex...> /*runners*/) {
  return {{{kLocalStepRunners[kIndex]->algorithm,
            kLocalStepRunners[kIndex]->workspace_bytes}...}};
}
inline constexpr std::array<LocalStepSize, kLocalStepRunnerCount>
    kLocalStepSizes =
        LocalStepSizesOf(std::make_index_sequence<kLocalStepRunnerCount>());

// The registered runner of `algorithm`, or nullptr (no device step).
constexpr const LocalStepRunner* FindLocalStepRunner(AlgorithmKind algorithm) {
  for (const LocalStepRunner* runner : kLocalStepRunners) {
    if (runner->algorithm == algorithm) return runner;
  }
  return nullptr;
}

// LocalTrainer workspace bytes Init needs for this algorithm, loss and data
// shape (0 for an algorithm with no device step).
constexpr size_t LocalStepWorkspaceBytes(AlgorithmKind algorithm, LossKind loss,
                                         size_t samples, size_t dim) {
  for (const LocalStepSize& size : kLocalStepSizes) {
    if (size.algorithm == algorithm) {
      return LocalTrainer::WorkspaceBytes(
          size.workspace_bytes(loss, samples, dim), dim);
    }
  }
  return 0;
}

// The runner of an algorithm and loss fixed at compile time: with Init it
// links only that step and the prox method the loss uses.
template <AlgorithmKind kAlgorithm, LossKind kLoss>
constexpr const LocalStepRunner& LocalStepRunnerFor() {
  if constexpr (kAlgorithm == AlgorithmKind::kProxAdmm) {
    return kProxAdmmRunnerFor<kLoss>;
  } else if constexpr (kAlgorithm == AlgorithmKind::kPenaltyPerturbation) {
    return kPenaltyPerturbationRunnerFor<kLoss>;
  } else if constexpr (kAlgorithm == AlgorithmKind::kLinearizedAdmm) {
    return kLinearizedAdmmRunner;
  } else if constexpr (kAlgorithm == AlgorithmKind::kDpSgd) {
    return kDpSgdRunner;
  } else {
    static_assert(kAlgorithm == AlgorithmKind::kAdmmSharing,
                  "no device step for this algorithm");
    return kAdmmSharingRunner;
  }
}

// LocalTrainer::Init with LocalStepRunnerFor<kAlgorithm, kLoss>:
// INVALID_ARGUMENT also if the config names another algorithm or loss.
template <AlgorithmKind kAlgorithm, LossKind kLoss>
Status InitLocalTrainerFor(LocalTrainer& trainer, ByteSpan workspace,
                           const DatasetView& data,
                           const TrainerConfig& config) {
  if (config.algorithm != kAlgorithm || config.loss.kind != kLoss) {
    return Status::InvalidArgument();
  }
  return trainer.Init(LocalStepRunnerFor<kAlgorithm, kLoss>(), workspace, data,
                      config);
}

// A LocalTrainer that owns its workspace, sized at compile time for MCUs.
template <AlgorithmKind kAlgorithm, LossKind kLoss, size_t kSamples,
          size_t kFeatures>
class StaticLocalTrainer {
 public:
  static constexpr size_t kWorkspaceBytes =
      LocalStepWorkspaceBytes(kAlgorithm, kLoss, kSamples, kFeatures);

  // INVALID_ARGUMENT if `config` or `data` disagree with the template
  // parameters; otherwise as LocalTrainer::Init (with
  // LocalStepRunnerFor, so only this algorithm's step and prox method are
  // linked).
  Status Init(const DatasetView& data, const TrainerConfig& config) {
    if (data.samples() > kSamples || data.dim() != kFeatures) {
      return Status::InvalidArgument();
    }
    return InitLocalTrainerFor<kAlgorithm, kLoss>(
        trainer_, ByteSpan(workspace_, kWorkspaceBytes), data, config);
  }
  LocalTrainer& trainer() { return trainer_; }

 private:
  alignas(Workspace::kAlignment) std::byte workspace_[kWorkspaceBytes];
  LocalTrainer trainer_;
};

}  // namespace edgeadmm
