#include "edgeadmm/wire/round_task.h"

#include <cfloat>

#include "edgeadmm/algorithm.h"
#include "edgeadmm/wire/protocol.h"
#include "edgeadmm/wire/vector_field.h"
#include "message.h"

namespace edgeadmm::wire {

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

namespace {

using internal::EnumValue;
using internal::InRange;

bool Positive(double v) { return InRange(v, DBL_MIN, DBL_MAX); }
bool NonNegative(double v) { return InRange(v, 0.0, DBL_MAX); }

// Paper 002, Alg. 3: lambda in (0, 1], gamma > 0, C > 0, sigma >= 0.
bool ValidFederated(const edgeadmm_wire_FederatedAdmmParams& p) {
  return Positive(p.lambda) && p.lambda <= 1.0 && Positive(p.gamma) &&
         Positive(p.clip) && NonNegative(p.sigma);
}

// Paper 004, Thms 1, 3, 4: the schedule constants and eps in (0, 1],
// delta in (0, 1).
bool ValidDpAdmm(const edgeadmm_wire_DpAdmmParams& p) {
  const int32_t schedule = EnumValue(p.schedule);
  const bool schedule_ok =
      schedule == edgeadmm_wire_DpAdmmSchedule_DP_ADMM_SCHEDULE_CONVEX ||
      schedule == edgeadmm_wire_DpAdmmSchedule_DP_ADMM_SCHEDULE_SMOOTH;
  return schedule_ok && Positive(p.rho) && NonNegative(p.reg_weight) &&
         p.num_devices >= 1 && Positive(p.d_w) && Positive(p.s1) &&
         NonNegative(p.s2) && NonNegative(p.s3) && NonNegative(p.s4) &&
         Positive(p.epsilon) && p.epsilon <= 1.0 && Positive(p.delta) &&
         p.delta < 1.0 && NonNegative(p.clip) && p.max_records >= 1;
}

// DP-SGD baseline (dp_sgd_step.h): eta > 0, E >= 1, C > 0, sigma >= 0.
bool ValidDpSgd(const edgeadmm_wire_DpSgdParams& p) {
  return Positive(p.learning_rate) && p.local_steps >= 1 && Positive(p.clip) &&
         NonNegative(p.sigma);
}

// Paper 001, Alg. 1 (job "pp-admm"): the public constants only (theta, rho,
// C > 0), 1-based t <= T, N >= 2 nodes and V_i = N - 1 neighbours (complete
// graph) or, with neighbour_sum, 1 <= V_i <= N - 1. The schedules eta_i,
// alpha_i are device-only.
bool ValidPenalty(const edgeadmm_wire_PenaltyPerturbationParams& p) {
  const bool degree_ok = p.neighbour_sum
                             ? p.degree >= 1 && p.degree <= p.nodes - 1
                             : p.degree == p.nodes - 1;
  return Positive(p.theta) && Positive(p.reg_weight) &&
         Positive(p.loss_weight) && p.iteration >= 1 && p.nodes >= 2 &&
         degree_ok && p.rounds >= p.iteration;
}

// Papers 000/003 (job "admm-sharing"): M >= 2 parties, m < M, a column
// block, N = the task's dimension (model u_m and auxiliary y are N long),
// rho, lambda > 0, a known noise mode with sigma > 0 (0 for none), the
// sensitivity only for rigorous (> 0), 1-based t <= T; a scoring phase
// only at t = T, N + score_records within the wire's vector limit, with
// gaussian (sigma, Delta > 0) or exact (both 0) noise.
bool ValidSharingScore(const edgeadmm_wire_SharingParams& p) {
  if (p.score_records == 0) {
    return p.score_noise == 0 && p.score_sigma == 0.0 &&
           p.score_sensitivity == 0.0;
  }
  const bool noise_ok =
      p.score_noise == 1
          ? Positive(p.score_sigma) && Positive(p.score_sensitivity)
          : p.score_noise == 2 && p.score_sigma == 0.0 &&
                p.score_sensitivity == 0.0;
  return noise_ok && p.iteration == p.rounds &&
         static_cast<uint64_t>(p.records) + p.score_records <=
             kMaxSharingRecords;
}

bool ValidSharing(const edgeadmm_wire_RoundTask& t) {
  const edgeadmm_wire_SharingParams& p = t.params.sharing_params;
  const bool noise_ok =
      p.noise == 0 ? p.sigma == 0.0 && p.sensitivity == 0.0
      : p.noise == 1
          ? Positive(p.sigma) && p.sensitivity == 0.0
          : p.noise == 2 && Positive(p.sigma) && Positive(p.sensitivity);
  return p.parties >= 2 && p.party < p.parties && p.columns >= 1 &&
         p.records >= 1 && p.records == t.dimension && Positive(p.rho) &&
         Positive(p.lambda) && noise_ok && p.iteration >= 1 &&
         p.rounds >= p.iteration && ValidSharingScore(p);
}

// The params each algorithm's task carries, their check, and whether it
// carries an auxiliary vector (`dimension` entries) or none. An algorithm
// not listed (UNSPECIFIED, a removed or unknown value) is refused.
struct ParamsRule {
  edgeadmm_wire_Algorithm algorithm;
  pb_size_t params_tag;
  bool (*valid)(const edgeadmm_wire_RoundTask& t);
  bool auxiliary;
};

// clang-format off
constexpr ParamsRule kParamsRules[] = {
    {edgeadmm_wire_Algorithm_ALGORITHM_FEDERATED_PRIVATE_ADMM, edgeadmm_wire_RoundTask_federated_tag,
     [](const edgeadmm_wire_RoundTask& t) { return ValidFederated(t.params.federated); }, false},
    {edgeadmm_wire_Algorithm_ALGORITHM_DP_ADMM, edgeadmm_wire_RoundTask_dp_admm_tag,
     [](const edgeadmm_wire_RoundTask& t) { return ValidDpAdmm(t.params.dp_admm); }, false},
    {edgeadmm_wire_Algorithm_ALGORITHM_PENALTY_PERTURBATION, edgeadmm_wire_RoundTask_penalty_tag,
     [](const edgeadmm_wire_RoundTask& t) { return ValidPenalty(t.params.penalty); }, false},
    {edgeadmm_wire_Algorithm_ALGORITHM_DP_SGD, edgeadmm_wire_RoundTask_dp_sgd_tag,
     [](const edgeadmm_wire_RoundTask& t) { return ValidDpSgd(t.params.dp_sgd); }, false},
    {edgeadmm_wire_Algorithm_ALGORITHM_SHARING, edgeadmm_wire_RoundTask_sharing_params_tag,
     ValidSharing, true},
};
// clang-format on

// The params variant, validity and auxiliary length each algorithm needs.
Status ValidateParams(const edgeadmm_wire_RoundTask& t, size_t aux_size) {
  const int32_t algorithm = EnumValue(t.algorithm);
  for (const ParamsRule& rule : kParamsRules) {
    if (rule.algorithm != algorithm) continue;
    const size_t expected_aux = rule.auxiliary ? t.dimension : 0;
    if (t.which_params != rule.params_tag || !rule.valid(t) ||
        aux_size != expected_aux) {
      return Status::InvalidArgument();
    }
    return Status::Ok();
  }
  return Status::InvalidArgument();
}

}  // namespace

size_t AuxiliaryLength(const edgeadmm_wire_RoundTask& t) {
  const int32_t algorithm = EnumValue(t.algorithm);
  for (const ParamsRule& rule : kParamsRules) {
    if (rule.algorithm == algorithm) return rule.auxiliary ? t.dimension : 0;
  }
  return 0;
}

Status ValidateRoundTask(const edgeadmm_wire_RoundTask& t, size_t model_size,
                         size_t auxiliary_size) {
  if (t.version != kProtocolVersion) return Status::InvalidArgument();
  const int32_t role = EnumValue(t.role);
  if (role < edgeadmm_wire_Role_ROLE_PARTICIPATE ||
      role > edgeadmm_wire_Role_ROLE_DONE) {
    return Status::InvalidArgument();
  }
  const bool sharing =
      EnumValue(t.algorithm) == edgeadmm_wire_Algorithm_ALGORITHM_SHARING;
  if (t.dimension > MaxMessageDimension(sharing)) return Status::OutOfRange();
  if (role != edgeadmm_wire_Role_ROLE_PARTICIPATE) {
    // Idle / done: nothing to compute; a model, if sent, must match.
    return model_size == 0 || model_size == t.dimension
               ? Status::Ok()
               : Status::InvalidArgument();
  }
  if (t.dimension == 0) return Status::OutOfRange();
  if (model_size != t.dimension) return Status::InvalidArgument();
  const int32_t loss = EnumValue(t.loss);
  if (loss != edgeadmm_wire_Loss_LOSS_LOGISTIC &&
      loss != edgeadmm_wire_Loss_LOSS_SQUARED) {
    return Status::InvalidArgument();
  }
  const int32_t regularizer = EnumValue(t.regularizer);
  if (regularizer < edgeadmm_wire_Regularizer_REGULARIZER_NONE ||
      regularizer > edgeadmm_wire_Regularizer_REGULARIZER_L2 ||
      !NonNegative(t.regularizer_weight)) {
    return Status::InvalidArgument();
  }
  const int32_t noise = EnumValue(t.noise_placement);
  if (noise != edgeadmm_wire_NoisePlacement_NOISE_PLACEMENT_DEVICE &&
      noise != edgeadmm_wire_NoisePlacement_NOISE_PLACEMENT_AGGREGATOR) {
    return Status::InvalidArgument();
  }
  return ValidateParams(t, auxiliary_size);
}

StatusWithSize EncodeRoundTask(const edgeadmm_wire_RoundTask& header,
                               Span<const Real> model,
                               Span<const Real> auxiliary, ByteSpan out) {
  edgeadmm_wire_RoundTask task = header;
  task.version = kProtocolVersion;
  const Status valid = ValidateRoundTask(task, model.size(), auxiliary.size());
  if (!valid.ok()) return StatusWithSize(valid, 0);
  VectorEncodeContext model_context{model, Status::Ok()};
  VectorEncodeContext aux_context{auxiliary, Status::Ok()};
  BindVectorEncode(task.model, model_context);
  BindVectorEncode(task.auxiliary, aux_context);
  return internal::EncodeMessage(edgeadmm_wire_RoundTask_fields, &task, out,
                                 &model_context, &aux_context);
}

Status DecodeRoundTask(ConstByteSpan bytes, Span<Real> model_buffer,
                       Span<Real> auxiliary_buffer, DecodedRoundTask& out) {
  out.header = edgeadmm_wire_RoundTask_init_zero;
  VectorDecodeContext model_context;
  model_context.buffer = model_buffer;
  VectorDecodeContext aux_context;
  aux_context.buffer = auxiliary_buffer;
  BindVectorDecode(out.header.model, model_context);
  BindVectorDecode(out.header.auxiliary, aux_context);
  const Status decoded =
      internal::DecodeMessage(edgeadmm_wire_RoundTask_fields, &out.header,
                              bytes, &model_context, &aux_context);
  out.header.model = pb_callback_t{};
  out.header.auxiliary = pb_callback_t{};
  if (!decoded.ok()) return decoded;
  out.model = model_buffer.first(model_context.count);
  out.auxiliary = auxiliary_buffer.first(aux_context.count);
  return ValidateRoundTask(out.header, model_context.count, aux_context.count);
}

}  // namespace edgeadmm::wire
