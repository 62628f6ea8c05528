// Each algorithm's params check, reached as the device client reaches it:
// through the adapter registered for the task's algorithm
// (FindAlgorithmTask, ValidateTaskParams). The codec checks only the
// generic fields and the params variant (wire/round_task.cc); a value out of
// its algorithm's range must still be refused here, for every algorithm.
// Runs on the host and on the MCU.
#include "edgeadmm/task_params.h"

#include <gtest/gtest.h>

#include <limits>

#include "edgeadmm/secure_aggregation_task.h"
#include "sample_tasks.h"
#include "steps/algorithm_task.h"

namespace edgeadmm::internal {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Valid tasks of each algorithm (tests/unit/protocol/wire/sample_tasks.h).
namespace samples = wire::testing;
edgeadmm_wire_RoundTask ProxAdmm() { return samples::FederatedTask(4); }
edgeadmm_wire_RoundTask LinearizedAdmm() { return samples::DpAdmmTask(4); }
edgeadmm_wire_RoundTask DpSgd() { return samples::DpSgdTask(4); }
edgeadmm_wire_RoundTask Penalty() { return samples::PenaltyTask(4); }
edgeadmm_wire_RoundTask Sharing() { return samples::SharingTask(4); }
edgeadmm_wire_RoundTask Scoring() { return samples::ScoringTask(4); }

// The check of `t`'s algorithm through the registration table, as the
// client (ValidateTaskParams on the adapter it found) and the aggregator's
// encoder (CheckTaskParams) reach it: the two must agree.
Status Check(const edgeadmm_wire_RoundTask& t) {
  const AlgorithmTask* task =
      FindAlgorithmTask(static_cast<AlgorithmKind>(t.algorithm));
  EXPECT_NE(task, nullptr);
  const Status client = ValidateTaskParams(task, t);
  EXPECT_EQ(CheckTaskParams(t), client);
  return client;
}

// `good` is accepted; `good` with `edit` applied is refused.
template <typename Edit>
Status Edited(edgeadmm_wire_RoundTask t, Edit edit) {
  edit(t);
  return Check(t);
}

constexpr Status kBad = Status::InvalidArgument();

TEST(TaskParamsTest, ValidTasksOfEveryAlgorithmPass) {
  EXPECT_EQ(Check(ProxAdmm()), Status::Ok());
  EXPECT_EQ(Check(LinearizedAdmm()), Status::Ok());
  EXPECT_EQ(Check(DpSgd()), Status::Ok());
  EXPECT_EQ(Check(Penalty()), Status::Ok());
  EXPECT_EQ(Check(Sharing()), Status::Ok());
  EXPECT_EQ(Check(Scoring()), Status::Ok());
}

TEST(TaskParamsTest, ProxAdmmOutOfRangeIsRefused) {
  EXPECT_EQ(
      Edited(ProxAdmm(), [](auto& t) { t.params.federated.sigma = kNaN; }),
      kBad);
  EXPECT_EQ(
      Edited(ProxAdmm(), [](auto& t) { t.params.federated.lambda = 1.5; }),
      kBad);  // outside (0, 1]
  EXPECT_EQ(Edited(ProxAdmm(), [](auto& t) { t.params.federated.gamma = 0; }),
            kBad);
  EXPECT_EQ(Edited(ProxAdmm(), [](auto& t) { t.params.federated.clip = -1; }),
            kBad);
}

TEST(TaskParamsTest, LinearizedAdmmOutOfRangeIsRefused) {
  const auto bad = [](auto edit) { return Edited(LinearizedAdmm(), edit); };
  EXPECT_EQ(bad([](auto& t) { t.params.dp_admm.max_records = 0; }), kBad);
  EXPECT_EQ(bad([](auto& t) { t.params.dp_admm.epsilon = 1.5; }), kBad);
  EXPECT_EQ(bad([](auto& t) { t.params.dp_admm.delta = 1.0; }), kBad);
  EXPECT_EQ(bad([](auto& t) { t.params.dp_admm.num_devices = 0; }), kBad);
  EXPECT_EQ(bad([](auto& t) {
              t.params.dp_admm.schedule =
                  static_cast<edgeadmm_wire_DpAdmmSchedule>(7);
            }),
            kBad);
}

TEST(TaskParamsTest, DpSgdOutOfRangeIsRefused) {
  const auto bad = [](auto edit) { return Edited(DpSgd(), edit); };
  EXPECT_EQ(bad([](auto& t) { t.params.dp_sgd.local_steps = 0; }), kBad);
  EXPECT_EQ(bad([](auto& t) { t.params.dp_sgd.clip = 0; }), kBad);
  EXPECT_EQ(bad([](auto& t) { t.params.dp_sgd.sigma = -1; }), kBad);
  EXPECT_EQ(bad([](auto& t) { t.params.dp_sgd.learning_rate = -0.5; }), kBad);
}

TEST(TaskParamsTest, PenaltyPerturbationOutOfRangeIsRefused) {
  const auto bad = [](auto edit) { return Edited(Penalty(), edit); };
  EXPECT_EQ(bad([](auto& t) { t.params.penalty.degree = 3; }), kBad);  // N-1
  EXPECT_EQ(bad([](auto& t) { t.params.penalty.iteration = 11; }), kBad);
  EXPECT_EQ(bad([](auto& t) { t.params.penalty.nodes = 1; }), kBad);
  EXPECT_EQ(bad([](auto& t) { t.params.penalty.theta = 0; }), kBad);
  // With neighbour_sum any 1 <= V_i <= N - 1 passes.
  EXPECT_EQ(bad([](auto& t) {
              t.params.penalty.neighbour_sum = true;
              t.params.penalty.degree = 2;
            }),
            Status::Ok());
}

TEST(TaskParamsTest, SharingOutOfRangeIsRefused) {
  const auto bad = [](auto edit) {
    return Edited(Sharing(), [&](auto& t) { edit(t.params.sharing_params); });
  };
  EXPECT_EQ(bad([](auto& q) { q.records = 5; }), kBad);  // N != dimension
  EXPECT_EQ(bad([](auto& q) { q.parties = 1; }), kBad);
  EXPECT_EQ(bad([](auto& q) { q.party = 2; }), kBad);
  EXPECT_EQ(bad([](auto& q) { q.columns = 0; }), kBad);
  EXPECT_EQ(bad([](auto& q) { q.rho = 0; }), kBad);
  EXPECT_EQ(bad([](auto& q) { q.lambda = -1; }), kBad);
  EXPECT_EQ(bad([](auto& q) { q.noise = 3; }), kBad);
  EXPECT_EQ(bad([](auto& q) { q.sensitivity = 0; }), kBad);  // rigorous: Δ
  EXPECT_EQ(bad([](auto& q) { q.noise = 0; }), kBad);        // none with σ
  EXPECT_EQ(bad([](auto& q) { q.noise = 1; }), kBad);        // paper with Δ
  EXPECT_EQ(bad([](auto& q) { q.iteration = 11; }), kBad);
  EXPECT_EQ(bad([](auto& q) {
              q.noise = 0;
              q.sigma = 0;
              q.sensitivity = 0;
            }),
            Status::Ok());
}

TEST(TaskParamsTest, SharingScoringPhaseOutOfRangeIsRefused) {
  const auto bad = [](auto edit) {
    return Edited(Scoring(), [&](auto& t) { edit(t.params.sharing_params); });
  };
  EXPECT_EQ(bad([](auto& q) { q.iteration = q.rounds - 1; }), kBad);
  EXPECT_EQ(bad([](auto& q) { q.score_sigma = 0; }), kBad);
  EXPECT_EQ(bad([](auto& q) { q.score_sensitivity = -1; }), kBad);
  EXPECT_EQ(bad([](auto& q) { q.score_noise = 2; }), kBad);  // exact with σ_s
  EXPECT_EQ(bad([](auto& q) { q.score_noise = 3; }), kBad);
  EXPECT_EQ(
      bad([](auto& q) { q.score_records = wire::kMaxRecordDimension - 3; }),
      kBad);  // N + K above the wire's limit
  EXPECT_EQ(bad([](auto& q) {
              q.score_records = 0;
              q.score_noise = 1;
            }),
            kBad);  // score fields without records
  EXPECT_EQ(bad([](auto& q) {
              q.score_noise = 2;
              q.score_sigma = 0;
              q.score_sensitivity = 0;
            }),
            Status::Ok());
}

TEST(TaskParamsTest, OnlyAParticipatingTaskOfARegisteredAlgorithmIsChecked) {
  edgeadmm_wire_RoundTask t = DpSgd();
  t.params.dp_sgd.clip = 0;
  EXPECT_EQ(ValidateTaskParams(nullptr, t), Status::Ok());  // not run here
  t.role = edgeadmm_wire_Role_ROLE_IDLE;
  EXPECT_EQ(ValidateTaskParams(AlgorithmTaskOf<AlgorithmKind::kDpSgd>(), t),
            Status::Ok());
  EXPECT_EQ(CheckTaskParams(t), Status::Ok());
  // The encoder's check refuses an algorithm no unit runs.
  t.role = edgeadmm_wire_Role_ROLE_PARTICIPATE;
  t.algorithm = edgeadmm_wire_Algorithm_ALGORITHM_UNSPECIFIED;
  EXPECT_EQ(CheckTaskParams(t), kBad);
  t.algorithm = edgeadmm_wire_Algorithm_ALGORITHM_DP_SGD;
  t.role = edgeadmm_wire_Role_ROLE_PARTICIPATE;
  EXPECT_EQ(ValidateTaskParams(AlgorithmTaskOf<AlgorithmKind::kDpSgd>(), t),
            kBad);
}

// RoundTask.secure_aggregation: the device's view of a valid plan, and
// every plan the device cannot run refused with the params (by the client
// and by the gateway's encoder alike), for any algorithm.
TEST(TaskParamsTest, SecureAggregationPlanIsChecked) {
  const edgeadmm_wire_RoundTask good =
      samples::WithSecureAggregation(ProxAdmm());
  EXPECT_EQ(Check(good), Status::Ok());
  SecureAggregationTask view;
  ASSERT_EQ(SecureAggregationTaskOf(good, view), Status::Ok());
  EXPECT_TRUE(view.enabled);
  EXPECT_EQ(view.plan.bits, 20u);
  EXPECT_EQ(view.plan.gamma, 1.0 / 256);
  EXPECT_EQ(view.plan.sigma2_num, 9u);
  EXPECT_EQ(view.plan.sigma2_den, 4u);
  EXPECT_EQ(view.plan.beta, 0.5);
  EXPECT_EQ(view.plan.clip, 1.0);
  EXPECT_EQ(view.plan.dimension, good.dimension);
  for (size_t i = 0; i < 32; ++i) {
    EXPECT_EQ(static_cast<uint8_t>(view.seed()[i]), 0xA0 + i);
  }
  ASSERT_EQ(SecureAggregationTaskOf(ProxAdmm(), view), Status::Ok());
  EXPECT_FALSE(view.enabled);

  using Plan = edgeadmm_wire_SecureAggregationPlan;
  const auto plan = [&](void (*edit)(Plan&)) {
    return Edited(good, [edit](edgeadmm_wire_RoundTask& t) {
      edit(t.secure_aggregation);
    });
  };
  EXPECT_EQ(plan([](Plan& p) { p.bits = 0; }), kBad);
  EXPECT_EQ(plan([](Plan& p) { p.bits = 33; }), kBad);
  EXPECT_EQ(plan([](Plan& p) { p.gamma = 0; }), kBad);
  EXPECT_EQ(plan([](Plan& p) { p.gamma = kNaN; }), kBad);
  EXPECT_EQ(plan([](Plan& p) { p.sigma2_num = 0; }), kBad);
  EXPECT_EQ(plan([](Plan& p) { p.sigma2_den = 0; }), kBad);
  EXPECT_EQ(plan([](Plan& p) { p.sigma2_num = 1, p.sigma2_den = 5; }), kBad);
  // A sigma_g^2 the plan check accepts but the exact sampler cannot draw.
  EXPECT_EQ(plan([](Plan& p) { p.sigma2_num = uint64_t{1} << 61; }), kBad);
  EXPECT_EQ(plan([](Plan& p) { p.beta = 0; }), kBad);
  EXPECT_EQ(plan([](Plan& p) { p.beta = 1; }), kBad);
  EXPECT_EQ(plan([](Plan& p) { p.clip = 0; }), kBad);
  EXPECT_EQ(plan([](Plan& p) { p.clip = kNaN; }), kBad);
  EXPECT_EQ(plan([](Plan& p) { p.clip = 3e6; }), kBad);  // clip/gamma > 2^29
  EXPECT_EQ(plan([](Plan& p) {
              for (pb_byte_t& b : p.rotation_seed) b = 0;  // an empty seed
            }),
            kBad);
  // sigma_g = 1/2 exactly and a one-byte seed are accepted.
  EXPECT_EQ(plan([](Plan& p) {
              p.sigma2_num = 1, p.sigma2_den = 4;
              for (pb_byte_t& b : p.rotation_seed) b = 0;
              p.rotation_seed[31] = 1;
            }),
            Status::Ok());
  // The same refusal for another algorithm's task.
  edgeadmm_wire_RoundTask sgd = samples::WithSecureAggregation(DpSgd());
  EXPECT_EQ(Check(sgd), Status::Ok());
  sgd.secure_aggregation.bits = 0;
  EXPECT_EQ(Check(sgd), kBad);
  ASSERT_EQ(SecureAggregationTaskOf(sgd, view), kBad);
  EXPECT_FALSE(view.enabled);
  // A task the device does not compute is not checked.
  sgd.role = edgeadmm_wire_Role_ROLE_IDLE;
  EXPECT_EQ(Check(sgd), Status::Ok());
}

// The device's own noise in a secure round, for its ledger: replace-one
// sensitivity 2B grid steps (B the rounding's norm bound, never below
// clip/gamma) and sigma_g = sqrt(num/den) grid steps.
TEST(TaskParamsTest, SecureAggregationChargeIsTheEncodersMechanism) {
  SecureAggregationTask view;
  ASSERT_EQ(
      SecureAggregationTaskOf(samples::WithSecureAggregation(ProxAdmm()), view),
      Status::Ok());
  double sensitivity = 0;
  double noise_std = 0;
  ASSERT_EQ(SecureAggregationChargeOf(view, sensitivity, noise_std),
            Status::Ok());
  EXPECT_EQ(sensitivity, 2 * DdgPlanNormBound(view.plan));
  EXPECT_GE(sensitivity, 2 * view.plan.clip / view.plan.gamma);  // 512
  EXPECT_EQ(noise_std, 1.5);                                     // sqrt(9/4)
  // The gateway sends no step noise in such a round (sigma 0): accepted.
  EXPECT_EQ(Edited(samples::WithSecureAggregation(ProxAdmm()),
                   [](auto& t) { t.params.federated.sigma = 0; }),
            Status::Ok());
  EXPECT_EQ(Edited(samples::WithSecureAggregation(DpSgd()),
                   [](auto& t) { t.params.dp_sgd.sigma = 0; }),
            Status::Ok());
  EXPECT_EQ(SecureAggregationChargeOf(SecureAggregationTask(), sensitivity,
                                      noise_std),
            Status::InvalidArgument());
  EXPECT_EQ(sensitivity, 0);
}

}  // namespace
}  // namespace edgeadmm::internal
