// Valid sample RoundTasks of every algorithm, one builder each (the wire
// tests, and the adapters' params checks in tests/unit/sdk/steps). Needs
// nothing but the generated messages, so it builds for the MCU too.
#pragma once

#include <edgeadmm.pb.h>

#include <cstddef>
#include <cstdint>

#include "edgeadmm/wire/protocol.h"

namespace edgeadmm::wire::testing {

// A valid paper-002 task of dimension p (vectors are bound by the encoder).
inline edgeadmm_wire_RoundTask FederatedTask(uint32_t p) {
  edgeadmm_wire_RoundTask t = edgeadmm_wire_RoundTask_init_zero;
  t.version = kProtocolVersion;
  t.job_id = 7;
  t.round_id = 42;
  t.role = edgeadmm_wire_Role_ROLE_PARTICIPATE;
  t.algorithm = edgeadmm_wire_Algorithm_ALGORITHM_FEDERATED_PRIVATE_ADMM;
  t.loss = edgeadmm_wire_Loss_LOSS_LOGISTIC;
  t.regularizer = edgeadmm_wire_Regularizer_REGULARIZER_L1;
  t.regularizer_weight = 1e-3;
  t.noise_placement = edgeadmm_wire_NoisePlacement_NOISE_PLACEMENT_DEVICE;
  t.which_params = edgeadmm_wire_RoundTask_federated_tag;
  t.params.federated.lambda = 0.5;
  t.params.federated.gamma = 2.0;
  t.params.federated.clip = 1.0;
  t.params.federated.sigma = 3.5;
  t.dimension = p;
  t.deadline_ms = 30000;
  return t;
}

// admm-sharing: party 1 of 2 with 57 columns; the task's dimension is N.
inline edgeadmm_wire_RoundTask SharingTask(uint32_t n) {
  edgeadmm_wire_RoundTask t = FederatedTask(n);
  t.algorithm = edgeadmm_wire_Algorithm_ALGORITHM_SHARING;
  t.which_params = edgeadmm_wire_RoundTask_sharing_params_tag;
  auto& q = t.params.sharing_params;
  q = edgeadmm_wire_SharingParams_init_zero;
  q.parties = 2;
  q.party = 1;
  q.first_column = 66;
  q.columns = 57;
  q.records = n;
  q.rho = 4e-4;
  q.lambda = 1e-2;
  q.noise = 2;
  q.sigma = 0.01;
  q.sensitivity = 1e-3;
  q.iteration = 3;
  q.rounds = 10;
  return t;
}

// paper 004's DP-ADMM (job "dp-admm").
inline edgeadmm_wire_RoundTask DpAdmmTask(uint32_t p) {
  edgeadmm_wire_RoundTask t = FederatedTask(p);
  t.algorithm = edgeadmm_wire_Algorithm_ALGORITHM_DP_ADMM;
  t.which_params = edgeadmm_wire_RoundTask_dp_admm_tag;
  auto& d = t.params.dp_admm;
  d.schedule = edgeadmm_wire_DpAdmmSchedule_DP_ADMM_SCHEDULE_SMOOTH;
  d.rho = 1.0;
  d.reg_weight = 0.01;
  d.num_devices = 100;
  d.iteration = 9;
  d.d_w = 2.5;
  d.s1 = 1.0;
  d.s2 = 3.74;
  d.s3 = 0.25;
  d.s4 = 1.0;
  d.epsilon = 0.1;
  d.delta = 1e-3;
  d.max_records = 210;
  return t;
}

// The DP-SGD baseline (job "dp-sgd").
inline edgeadmm_wire_RoundTask DpSgdTask(uint32_t p) {
  edgeadmm_wire_RoundTask t = FederatedTask(p);
  t.algorithm = edgeadmm_wire_Algorithm_ALGORITHM_DP_SGD;
  t.which_params = edgeadmm_wire_RoundTask_dp_sgd_tag;
  t.params.dp_sgd = {0.5, 2, 1.0, 0.8};
  return t;
}

// paper 001 (job "pp-admm"): node of 5 on the complete graph, t = 3.
inline edgeadmm_wire_RoundTask PenaltyTask(uint32_t p) {
  edgeadmm_wire_RoundTask t = FederatedTask(p);
  t.algorithm = edgeadmm_wire_Algorithm_ALGORITHM_PENALTY_PERTURBATION;
  t.which_params = edgeadmm_wire_RoundTask_penalty_tag;
  auto& q = t.params.penalty;
  q.theta = 0.5;
  q.reg_weight = 0.01;
  q.loss_weight = 1.0;
  q.iteration = 3;
  q.nodes = 5;
  q.degree = 4;
  q.rounds = 10;
  return t;
}

// The scoring phase of SharingTask(n): at t = T, K = 7 test records with
// gaussian noise.
inline edgeadmm_wire_RoundTask ScoringTask(uint32_t n) {
  edgeadmm_wire_RoundTask t = SharingTask(n);
  auto& q = t.params.sharing_params;
  q.iteration = q.rounds;
  q.score_records = 7;
  q.score_noise = 1;
  q.score_sigma = 0.5;
  q.score_sensitivity = 0.1;
  return t;
}

// `t` in a secure-aggregation round: a valid distributed discrete Gaussian
// plan (2^20, gamma 2^-8, sigma_g^2 = 9/4, clip 1) and a rotation seed.
inline edgeadmm_wire_RoundTask WithSecureAggregation(
    edgeadmm_wire_RoundTask t) {
  t.has_secure_aggregation = true;
  auto& s = t.secure_aggregation;
  s = edgeadmm_wire_SecureAggregationPlan_init_zero;
  s.bits = 20;
  s.gamma = 1.0 / 256;
  s.sigma2_num = 9;
  s.sigma2_den = 4;
  s.beta = 0.5;
  s.clip = 1.0;
  for (size_t i = 0; i < sizeof(s.rotation_seed); ++i) {
    s.rotation_seed[i] = static_cast<pb_byte_t>(0xA0 + i);
  }
  return t;
}

}  // namespace edgeadmm::wire::testing
