// Registration: the wire shape of each algorithm's round task
// (task_params_shapes.h), one line per algorithm.
#include "task_params_shapes.h"

namespace edgeadmm::wire::internal {
namespace {

// clang-format off
constexpr TaskParamsShape kShapes[] = {
    {edgeadmm_wire_Algorithm_ALGORITHM_FEDERATED_PRIVATE_ADMM, edgeadmm_wire_RoundTask_federated_tag, false, false},
    {edgeadmm_wire_Algorithm_ALGORITHM_DP_ADMM, edgeadmm_wire_RoundTask_dp_admm_tag, false, false},
    {edgeadmm_wire_Algorithm_ALGORITHM_PENALTY_PERTURBATION, edgeadmm_wire_RoundTask_penalty_tag, false, false},
    {edgeadmm_wire_Algorithm_ALGORITHM_DP_SGD, edgeadmm_wire_RoundTask_dp_sgd_tag, false, false},
    {edgeadmm_wire_Algorithm_ALGORITHM_SHARING, edgeadmm_wire_RoundTask_sharing_params_tag, true, true},
};
// clang-format on

}  // namespace

Span<const TaskParamsShape> TaskParamsShapes() {
  return Span<const TaskParamsShape>(kShapes,
                                     sizeof(kShapes) / sizeof(kShapes[0]));
}

}  // namespace edgeadmm::wire::internal
