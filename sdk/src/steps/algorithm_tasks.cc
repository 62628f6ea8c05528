// The device client's registration table: one line per algorithm it runs,
// AlgorithmKind -> {RoundTask params it expects, UpdateKind of its upload,
// its task adapter}. An algorithm not listed here is refused (UNIMPLEMENTED).
#include "algorithm_task.h"
#include "edgeadmm/device_client.h"

namespace edgeadmm::internal {
namespace {

// clang-format off
constexpr AlgorithmTask kAlgorithmTasks[] = {
    {AlgorithmKind::kProxAdmm,       edgeadmm_wire_RoundTask_federated_tag, edgeadmm_wire_UpdateKind_UPDATE_KIND_DELTA_U, RunProxAdmmTask},
    {AlgorithmKind::kLinearizedAdmm, edgeadmm_wire_RoundTask_dp_admm_tag,   edgeadmm_wire_UpdateKind_UPDATE_KIND_MODEL,   RunLinearizedAdmmTask},
    {AlgorithmKind::kDpSgd,          edgeadmm_wire_RoundTask_dp_sgd_tag,    edgeadmm_wire_UpdateKind_UPDATE_KIND_DELTA_U, RunDpSgdTask},
    {AlgorithmKind::kPenaltyPerturbation, edgeadmm_wire_RoundTask_penalty_tag, edgeadmm_wire_UpdateKind_UPDATE_KIND_MODEL, RunPenaltyPerturbationTask},
};
// clang-format on

constexpr bool Registered(AlgorithmKind algorithm) {
  for (const AlgorithmTask& task : kAlgorithmTasks) {
    if (task.algorithm == algorithm) return true;
  }
  return false;
}

// DeviceClient sizes the trainer workspace for the algorithms it lists in
// DeviceClient::kAlgorithms: the same set as this table.
constexpr bool SameAsClientList() {
  size_t listed = 0;
  for (const AlgorithmKind algorithm : DeviceClient::kAlgorithms) {
    if (!Registered(algorithm)) return false;
    ++listed;
  }
  return listed == sizeof(kAlgorithmTasks) / sizeof(kAlgorithmTasks[0]);
}
static_assert(SameAsClientList(),
              "DeviceClient::kAlgorithms must list the registered algorithms");

}  // namespace

const AlgorithmTask* FindAlgorithmTask(AlgorithmKind algorithm) {
  for (const AlgorithmTask& task : kAlgorithmTasks) {
    if (task.algorithm == algorithm) return &task;
  }
  return nullptr;
}

}  // namespace edgeadmm::internal
