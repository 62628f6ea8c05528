// The task adapters' registration table: one line per algorithm a device
// runs, AlgorithmKind -> {RoundTask params it expects, UpdateKind of its
// upload, its task adapter, its params check}. An algorithm not listed here is
// refused (UNIMPLEMENTED). Each line is its own object, reachable alone through
// its accessor below (AlgorithmTaskOf<kind>()): a StaticDeviceClient whose
// shape names one algorithm links that line and its step only
// (-ffunction-sections, -fdata-sections, --gc-sections). The device client's
// table of every algorithm is client/all_client_algorithms.cc.
#include "algorithm_task.h"
#include "edgeadmm/local_steps.h"
#include "edgeadmm/task_params.h"

namespace edgeadmm::internal {
namespace {

// AlgorithmKind (edgeadmm/algorithm.h) is the wire enum with the same
// numbers, so a task's algorithm converts with IsAlgorithmKind and a cast.
static_assert(static_cast<int>(AlgorithmKind::kProxAdmm) ==
              edgeadmm_wire_Algorithm_ALGORITHM_FEDERATED_PRIVATE_ADMM);
static_assert(static_cast<int>(AlgorithmKind::kLinearizedAdmm) ==
              edgeadmm_wire_Algorithm_ALGORITHM_DP_ADMM);
static_assert(static_cast<int>(AlgorithmKind::kPenaltyPerturbation) ==
              edgeadmm_wire_Algorithm_ALGORITHM_PENALTY_PERTURBATION);
static_assert(static_cast<int>(AlgorithmKind::kDpSgd) ==
              edgeadmm_wire_Algorithm_ALGORITHM_DP_SGD);
static_assert(static_cast<int>(AlgorithmKind::kAdmmSharing) ==
              edgeadmm_wire_Algorithm_ALGORITHM_SHARING);
static_assert(!IsAlgorithmKind(edgeadmm_wire_Algorithm_ALGORITHM_UNSPECIFIED));
// A new wire value fails here until AlgorithmKind (and the checks above) has
// it.
static_assert(_edgeadmm_wire_Algorithm_MAX ==
              edgeadmm_wire_Algorithm_ALGORITHM_SHARING);
static_assert(!IsAlgorithmKind(_edgeadmm_wire_Algorithm_MAX + 1));

// clang-format off
constexpr AlgorithmTask kProxAdmm       {AlgorithmKind::kProxAdmm,       edgeadmm_wire_RoundTask_federated_tag, edgeadmm_wire_UpdateKind_UPDATE_KIND_DELTA_U, RunProxAdmmTask, ValidProxAdmmParams};
constexpr AlgorithmTask kLinearizedAdmm {AlgorithmKind::kLinearizedAdmm, edgeadmm_wire_RoundTask_dp_admm_tag,   edgeadmm_wire_UpdateKind_UPDATE_KIND_MODEL,   RunLinearizedAdmmTask, ValidLinearizedAdmmParams};
constexpr AlgorithmTask kDpSgd          {AlgorithmKind::kDpSgd,          edgeadmm_wire_RoundTask_dp_sgd_tag,    edgeadmm_wire_UpdateKind_UPDATE_KIND_DELTA_U, RunDpSgdTask, ValidDpSgdParams};
constexpr AlgorithmTask kPenaltyPerturbation {AlgorithmKind::kPenaltyPerturbation, edgeadmm_wire_RoundTask_penalty_tag, edgeadmm_wire_UpdateKind_UPDATE_KIND_MODEL, RunPenaltyPerturbationTask, ValidPenaltyPerturbationParams};
constexpr AlgorithmTask kAdmmSharing    {AlgorithmKind::kAdmmSharing,    edgeadmm_wire_RoundTask_sharing_params_tag, edgeadmm_wire_UpdateKind_UPDATE_KIND_SHARE, RunAdmmSharingTask, ValidAdmmSharingParams, /*per_record=*/true, AdmmSharingScoreRecords, edgeadmm_wire_UpdateKind_UPDATE_KIND_SHARE_AND_SCORES, BeginAdmmSharingStream, AccumulateAdmmSharingStream, FinishAdmmSharingStream};
constexpr const AlgorithmTask* kAlgorithmTasks[] = {&kProxAdmm, &kLinearizedAdmm, &kDpSgd, &kPenaltyPerturbation, &kAdmmSharing};
// clang-format on

constexpr bool Registered(AlgorithmKind algorithm) {
  for (const AlgorithmTask* task : kAlgorithmTasks) {
    if (task->algorithm == algorithm) return true;
  }
  return false;
}

// The DeviceClient sizes the trainer workspace for the algorithms of
// kLocalStepRunners: the same set as this table.
constexpr bool SameAsTrainerList() {
  size_t listed = 0;
  for (const LocalStepRunner* runner : kLocalStepRunners) {
    if (!Registered(runner->algorithm)) return false;
    ++listed;
  }
  return listed == sizeof(kAlgorithmTasks) / sizeof(kAlgorithmTasks[0]);
}
static_assert(SameAsTrainerList(),
              "kLocalStepRunners must list the registered algorithms");

}  // namespace

const AlgorithmTask* FindAlgorithmTask(AlgorithmKind algorithm) {
  for (const AlgorithmTask* task : kAlgorithmTasks) {
    if (task->algorithm == algorithm) return task;
  }
  return nullptr;
}

// The lines one by one, for a StaticDeviceClient's shape
// (static_device_client.h): each returns its own line only.
template <AlgorithmKind kAlgorithm>
const AlgorithmTask* AlgorithmTaskOf() {
  constexpr const AlgorithmTask* kTask = [] {
    for (const AlgorithmTask* task : kAlgorithmTasks) {
      if (task->algorithm == kAlgorithm) return task;
    }
    return static_cast<const AlgorithmTask*>(nullptr);
  }();
  static_assert(kTask != nullptr, "no task adapter for this algorithm");
  return kTask;
}
template const AlgorithmTask* AlgorithmTaskOf<AlgorithmKind::kProxAdmm>();
template const AlgorithmTask* AlgorithmTaskOf<AlgorithmKind::kLinearizedAdmm>();
template const AlgorithmTask* AlgorithmTaskOf<AlgorithmKind::kDpSgd>();
template const AlgorithmTask*
AlgorithmTaskOf<AlgorithmKind::kPenaltyPerturbation>();
template const AlgorithmTask* AlgorithmTaskOf<AlgorithmKind::kAdmmSharing>();

}  // namespace edgeadmm::internal

namespace edgeadmm {

Status CheckTaskParams(const edgeadmm_wire_RoundTask& task) {
  if (task.role != edgeadmm_wire_Role_ROLE_PARTICIPATE) return Status::Ok();
  const auto value = static_cast<uint32_t>(task.algorithm);
  const internal::AlgorithmTask* adapter =
      IsAlgorithmKind(value)
          ? internal::FindAlgorithmTask(static_cast<AlgorithmKind>(value))
          : nullptr;
  if (adapter == nullptr) return Status::InvalidArgument();
  return internal::ValidateTaskParams(adapter, task);
}

}  // namespace edgeadmm
