// Writes a seed corpus for the wire fuzz targets into the folder argv[1]:
// valid encodings of every message (each algorithm, small and large
// dimensions), so the fuzzers start from the real structure.
#include <sys/stat.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "edgeadmm/penalty_perturbation_extra.h"
#include "edgeadmm/wire/protocol.h"
#include "edgeadmm/wire/released_model.h"
#include "edgeadmm/wire/round_task.h"
#include "edgeadmm/wire/status_body.h"
#include "edgeadmm/wire/update.h"

namespace edgeadmm::wire {
namespace {

std::string g_dir;
int g_failures = 0;

void Write(const char* name, const std::vector<uint8_t>& bytes,
           StatusWithSize n) {
  if (!n.ok()) {
    std::fprintf(stderr, "seed %s: %s\n", name, n.status().str());
    ++g_failures;
    return;
  }
  FILE* f = std::fopen((g_dir + "/" + name).c_str(), "wb");
  if (f == nullptr || std::fwrite(bytes.data(), 1, n.size(), f) != n.size()) {
    ++g_failures;
  }
  if (f != nullptr) std::fclose(f);
}

ByteSpan Out(std::vector<uint8_t>& v) {
  return ByteSpan(reinterpret_cast<std::byte*>(v.data()), v.size());
}

std::vector<Real> Ramp(size_t n) {
  std::vector<Real> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = (double(i % 7) - 3.0) * 0.5;
  return v;
}

void Tasks() {
  for (uint32_t p : {3u, 123u}) {
    const std::vector<Real> model = Ramp(p);
    std::vector<uint8_t> out(MaxRoundTaskBytes(p));
    edgeadmm_wire_RoundTask t = edgeadmm_wire_RoundTask_init_zero;
    t.job_id = 5;
    t.round_id = 9;
    t.role = edgeadmm_wire_Role_ROLE_PARTICIPATE;
    t.loss = edgeadmm_wire_Loss_LOSS_SQUARED;
    t.regularizer = edgeadmm_wire_Regularizer_REGULARIZER_L2;
    t.regularizer_weight = 0.1;
    t.noise_placement = edgeadmm_wire_NoisePlacement_NOISE_PLACEMENT_DEVICE;
    t.dimension = p;
    t.deadline_ms = 1000;
    const Span<const Real> m(model.data(), p);
    const std::string suffix = "_" + std::to_string(p);

    t.algorithm = edgeadmm_wire_Algorithm_ALGORITHM_FEDERATED_PRIVATE_ADMM;
    t.which_params = edgeadmm_wire_RoundTask_federated_tag;
    t.params.federated = {0.5, 1.0, 1.0, 2.0, false};
    Write(("task_federated" + suffix).c_str(), out,
          EncodeRoundTask(t, m, {}, Out(out)));

    t.algorithm = edgeadmm_wire_Algorithm_ALGORITHM_DP_ADMM;
    t.which_params = edgeadmm_wire_RoundTask_dp_admm_tag;
    t.params.dp_admm = edgeadmm_wire_DpAdmmParams_init_zero;
    t.params.dp_admm.schedule =
        edgeadmm_wire_DpAdmmSchedule_DP_ADMM_SCHEDULE_CONVEX;
    t.params.dp_admm.rho = t.params.dp_admm.d_w = t.params.dp_admm.s1 = 1.0;
    t.params.dp_admm.num_devices = 10;
    t.params.dp_admm.epsilon = 0.1;
    t.params.dp_admm.delta = 1e-3;
    t.params.dp_admm.max_records = 32;
    Write(("task_dp_admm" + suffix).c_str(), out,
          EncodeRoundTask(t, m, {}, Out(out)));

    t.algorithm = edgeadmm_wire_Algorithm_ALGORITHM_DP_SGD;
    t.which_params = edgeadmm_wire_RoundTask_dp_sgd_tag;
    t.params.dp_sgd = {0.5, 1, 1.0, 0.8};
    Write(("task_dp_sgd" + suffix).c_str(), out,
          EncodeRoundTask(t, m, {}, Out(out)));

    t.algorithm = edgeadmm_wire_Algorithm_ALGORITHM_PENALTY_PERTURBATION;
    t.which_params = edgeadmm_wire_RoundTask_penalty_tag;
    t.params.penalty = edgeadmm_wire_PenaltyPerturbationParams_init_zero;
    t.params.penalty.theta = 0.5;
    t.params.penalty.reg_weight = 0.1;
    t.params.penalty.loss_weight = 1.0;
    t.params.penalty.iteration = 2;
    t.params.penalty.nodes = 5;
    t.params.penalty.degree = 4;
    t.params.penalty.rounds = 2;
    t.params.penalty.dvp = true;
    Write(("task_penalty" + suffix).c_str(), out,
          EncodeRoundTask(t, m, {}, Out(out)));
    // A ring node: its own S_i and V_i = 2.
    t.params.penalty.neighbour_sum = true;
    t.params.penalty.degree = 2;
    Write(("task_penalty_ring" + suffix).c_str(), out,
          EncodeRoundTask(t, m, {}, Out(out)));
    // admm-sharing: u_m (model) and y (auxiliary), N = the dimension.
    t.algorithm = edgeadmm_wire_Algorithm_ALGORITHM_SHARING;
    t.which_params = edgeadmm_wire_RoundTask_sharing_params_tag;
    t.params.sharing_params = edgeadmm_wire_SharingParams_init_zero;
    t.params.sharing_params.parties = 2;
    t.params.sharing_params.columns = 3;
    t.params.sharing_params.records = t.dimension;
    t.params.sharing_params.rho = 0.4;
    t.params.sharing_params.lambda = 0.01;
    t.params.sharing_params.noise = 2;
    t.params.sharing_params.sigma = 0.01;
    t.params.sharing_params.sensitivity = 0.001;
    t.params.sharing_params.iteration = 1;
    t.params.sharing_params.rounds = 2;
    Write(("task_sharing" + suffix).c_str(), out,
          EncodeRoundTask(t, m, m, Out(out)));
    // Its last iteration with a scoring phase (gaussian partial scores).
    t.params.sharing_params.iteration = 2;
    t.params.sharing_params.score_records = 7;
    t.params.sharing_params.score_noise = 1;
    t.params.sharing_params.score_sigma = 0.05;
    t.params.sharing_params.score_sensitivity = 0.01;
    Write(("task_sharing_score" + suffix).c_str(), out,
          EncodeRoundTask(t, m, m, Out(out)));
    // A secure-aggregation plan (field 20, after the vectors and field 19),
    // its integers at their longest.
    t.has_secure_aggregation = true;
    t.secure_aggregation = {~0u, 1.0 / 256, ~uint64_t{0}, ~uint64_t{0}, 0.5,
                            1.0, {}};
    for (size_t i = 0; i < 32; ++i) {
      t.secure_aggregation.rotation_seed[i] = static_cast<pb_byte_t>(i + 1);
    }
    Write(("task_sharing_secagg" + suffix).c_str(), out,
          EncodeRoundTask(t, m, m, Out(out)));
    t.has_secure_aggregation = false;
  }
  edgeadmm_wire_RoundTask idle = edgeadmm_wire_RoundTask_init_zero;
  idle.role = edgeadmm_wire_Role_ROLE_IDLE;
  idle.job_id = 5;
  std::vector<uint8_t> out(MaxRoundTaskBytes(0));
  Write("task_idle", out, EncodeRoundTask(idle, {}, {}, Out(out)));
}

void Others() {
  const std::vector<Real> v = Ramp(123);
  edgeadmm_wire_Update u = edgeadmm_wire_Update_init_zero;
  u.job_id = 5;
  u.round_id = 9;
  std::strcpy(u.device_id, "device-7");
  u.kind = edgeadmm_wire_UpdateKind_UPDATE_KIND_DELTA_U;
  u.dimension = 123;
  u.has_ledger = true;
  u.ledger = {2, 0.5, 1e-6,
              edgeadmm_wire_RdpConversion_RDP_CONVERSION_IMPROVED};
  std::vector<uint8_t> out(MaxUpdateBytes(123));
  Write("update_123", out,
        EncodeUpdate(u, Span<const Real>(v.data(), 123), Out(out)));
  // pp-admm's last upload: f_i(T) and the node's (ε, δ), its own 16 bytes
  // in algorithm_extra.
  u.kind = edgeadmm_wire_UpdateKind_UPDATE_KIND_MODEL;
  EncodePpLossExtra(0.75, 1e-5, u.algorithm_extra.bytes);
  u.algorithm_extra.size = kPpLossExtraBytes;
  out.assign(MaxUpdateBytes(123), 0);
  Write("update_pp_123", out,
        EncodeUpdate(u, Span<const Real>(v.data(), 123), Out(out)));
  // admm-sharing: a party's share (one value per record).
  u.kind = edgeadmm_wire_UpdateKind_UPDATE_KIND_SHARE;
  u.algorithm_extra.size = 0;
  out.assign(MaxUpdateBytes(123), 0);
  Write("update_share_123", out,
        EncodeUpdate(u, Span<const Real>(v.data(), 123), Out(out)));
  // admm-sharing's scoring phase: the share (N) and the partial scores.
  u.kind = edgeadmm_wire_UpdateKind_UPDATE_KIND_SHARE_AND_SCORES;
  out.assign(MaxUpdateBytes(123), 0);
  Write("update_share_scores_123", out,
        EncodeUpdate(u, Span<const Real>(v.data(), 123), Out(out)));

  edgeadmm_wire_ReleasedModel m = edgeadmm_wire_ReleasedModel_init_zero;
  m.job_id = 5;
  m.round_id = 8;
  m.dimension = 123;
  m.participants = 40;
  m.epsilon = 2.0;
  m.delta = 1e-5;
  m.policy = edgeadmm_wire_PrivacyPolicy_PRIVACY_POLICY_PARTICIPATION;
  m.conversion = edgeadmm_wire_RdpConversion_RDP_CONVERSION_IMPROVED;
  out.assign(MaxReleasedModelBytes(123), 0);
  Write("model_123", out,
        EncodeReleasedModel(m, Span<const Real>(v.data(), 123), Out(out)));

  out.assign(kMaxStatusBodyBytes, 0);
  edgeadmm_wire_StatusBody body =
      MakeStatusBody(Status::AlreadyExists(), "duplicate upload", 5, 9);
  body.duplicate = true;
  Write("status_conflict", out, EncodeStatusBody(body, Out(out)));
}

}  // namespace
}  // namespace edgeadmm::wire

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUTPUT_DIR\n", argv[0]);
    return 2;
  }
  mkdir(argv[1], 0755);  // may exist already
  edgeadmm::wire::g_dir = argv[1];
  edgeadmm::wire::Tasks();
  edgeadmm::wire::Others();
  return edgeadmm::wire::g_failures == 0 ? 0 : 1;
}
