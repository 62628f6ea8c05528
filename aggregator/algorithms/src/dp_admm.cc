#include "edgeadmm/algorithms/dp_admm.h"

#include <cmath>
#include <cstdint>

#include "edgeadmm/grid_gaussian.h"
#include "unit_support.h"

namespace edgeadmm::algorithms {

double DpAdmmNoiseMultiplier(const jobs::JobConfig& c) {
  const jobs::DpAdmmConfig& d = c.dp_admm;
  if (!d.noise || !(d.step_epsilon > 0) || !(d.step_delta > 0)) return 0.0;
  return std::sqrt(2 * std::log(1.25 / d.step_delta)) / d.step_epsilon;
}

namespace {
constexpr jobs::NameTable<jobs::DpAdmmSchedule> kSchedules = {
    {"smooth", jobs::DpAdmmSchedule::kSmooth},
    {"convex", jobs::DpAdmmSchedule::kConvex}};
}  // namespace

void DpAdmm::ReadTable(jobs::ConfigReader& r, jobs::JobConfig& config) const {
  jobs::DpAdmmConfig& c = config.dp_admm;
  r.Enum("dp_admm.schedule", kSchedules, c.schedule, false);
  r.Double("dp_admm.d_w", c.d_w, true);
  r.Double("dp_admm.s2", c.s2, false);
  r.Double("dp_admm.s3", c.s3, false);
  r.Double("dp_admm.s4", c.s4, false);
  r.Double("dp_admm.step_epsilon", c.step_epsilon, true);
  r.Double("dp_admm.step_delta", c.step_delta, false);
  r.Int("dp_admm.max_records", c.max_records, true);
  r.Bool("dp_admm.noise", c.noise, false);
}

host::Error DpAdmm::Resolve(jobs::JobConfig& c) const {
  if (c.sigma >= 0) {
    return host::Error::InvalidArgument(
        "privacy.sigma: dp-admm's noise is set by "
        "dp_admm.step_epsilon and step_delta (paper 004 Thm 1); "
        "use dp_admm.noise = false for none");
  }
  if (c.noise_planned()) return host::Error::Ok();  // refused by Validate
  UseRdpForGridNoise(c);  // the devices' noise is on a grid
  // The defaults that depend on other keys, and σ = paper 004's noise
  // multiplier (the jobs table's sigma column).
  jobs::DpAdmmConfig& d = c.dp_admm;
  const Regularizer& r = c.regularizer;
  if (d.s2 < 0) {
    d.s2 = r.kind == RegularizerKind::kL1
               ? r.l1 * std::sqrt(static_cast<double>(c.dimension))
               : r.l2 * d.d_w;
  }
  if (d.s3 < 0) d.s3 = c.loss == jobs::Loss::kLogistic ? 0.25 : 1.0;
  if (d.s4 < 0) d.s4 = r.l2;
  if (d.step_delta < 0) d.step_delta = c.delta;
  c.sigma = DpAdmmNoiseMultiplier(c);
  return host::Error::Ok();
}

host::Error DpAdmm::Validate(const jobs::JobConfig& c) const {
  EDGEADMM_HOST_TRY(RefuseProxAdmmOnlyOptions(c));
  if (c.regularizer.kind == RegularizerKind::kElasticNet) {
    return host::Error::InvalidArgument(
        "regularizer.kind: dp-admm applies the regularizer on the "
        "devices; use none, l1 or l2");
  }
  if (c.policy != privacy::Policy::kParticipationOwnNoise) {
    // Paper 004 eq. (3a) linearizes at the device's own noisy w~_i, so a
    // device's state carries its past noise: the sqrt(m_k) charge of
    // `participation` is not proven for that (docs/privacy.md).
    return host::Error::InvalidArgument(
        "privacy.policy: dp-admm devices keep their own noise in "
        "their state (paper 004 eq. 3a linearizes at the noisy "
        "w~), so only participation-own-noise is sound for it");
  }
  if (c.noise_planned()) {
    return host::Error::InvalidArgument(
        "privacy.target_epsilon: not planned for dp-admm; its "
        "noise is set by dp_admm.step_epsilon and step_delta");
  }
  const jobs::DpAdmmConfig& d = c.dp_admm;
  if (!(d.d_w > 0)) {
    return host::Error::InvalidArgument("dp_admm.d_w: must be > 0");
  }
  if (!(d.s2 >= 0) || !(d.s3 >= 0) || !(d.s4 >= 0)) {
    return host::Error::InvalidArgument("dp_admm: s2, s3 and s4 must be >= 0");
  }
  if (!(d.step_epsilon > 0 && d.step_epsilon <= 1)) {
    return host::Error::InvalidArgument(
        "dp_admm.step_epsilon: must be in (0, 1]");
  }
  if (!(d.step_delta > 0 && d.step_delta < 1)) {
    return host::Error::InvalidArgument(
        "dp_admm.step_delta: must be in (0, 1)");
  }
  if (d.max_records < 1 || d.max_records > UINT32_MAX) {
    return host::Error::InvalidArgument(
        "dp_admm.max_records: must be in [1, 2^32)");
  }
  return host::Error::Ok();
}

void DpAdmm::FillTask(const jobs::JobConfig& c, int64_t n, int64_t iteration,
                      edgeadmm_wire_RoundTask& h) const {
  // Paper 004 with the job's regularizer r on every device: its split
  // (λ/N)·R with λ = N, R = r (the task's regularizer and weight).
  const jobs::DpAdmmConfig& d = c.dp_admm;
  edgeadmm_wire_DpAdmmParams& w = h.params.dp_admm;
  h.algorithm = edgeadmm_wire_Algorithm_ALGORITHM_DP_ADMM;
  h.which_params = edgeadmm_wire_RoundTask_dp_admm_tag;
  w.schedule = d.schedule == jobs::DpAdmmSchedule::kConvex
                   ? edgeadmm_wire_DpAdmmSchedule_DP_ADMM_SCHEDULE_CONVEX
                   : edgeadmm_wire_DpAdmmSchedule_DP_ADMM_SCHEDULE_SMOOTH;
  w.rho = c.rho;
  w.num_devices = static_cast<uint32_t>(n);
  w.reg_weight = static_cast<double>(n);
  w.iteration = static_cast<uint32_t>(iteration);
  w.d_w = d.d_w;
  w.s1 = w.clip = c.clip;
  w.s2 = d.s2;
  w.s3 = d.s3;
  w.s4 = d.s4;
  w.epsilon = d.step_epsilon;
  w.delta = d.step_delta;
  w.noiseless = !d.noise;
  w.max_records = static_cast<uint32_t>(d.max_records);
}

Status DpAdmm::ApplyRound(const jobs::JobConfig& c, int64_t /*n*/,
                          const std::vector<std::vector<double>>& uploads,
                          RoundNoise& /*noise*/, ServerModel& model) const {
  // Paper 004's trainer step w = mean(w̃_i) − mean(γ_i)/ρ: devices send
  // only w̃ (protocol), and Σ_i γ_i stays 0 from γ⁰ = 0 when every device
  // takes part, so w = mean(w̃_i).
  const size_t p = static_cast<size_t>(c.dimension);
  const double m = static_cast<double>(uploads.size());
  const std::vector<double> w_sum = SumUploads(uploads, p);
  for (size_t j = 0; j < p; ++j) model.z[j] = w_sum[j] / m;
  return Status::Ok();
}

double DpAdmm::OwnNoiseMultiplier(const jobs::JobConfig& c) const {
  // w̃ = w_i + ξ, σ_k = 2 S1 ν₀₀₄/(m_i(ρ + 1/η_k)) (paper 004 Thm 1); w_i
  // moves by at most S1/(ρ + 1/η_k) when the device's data are zeroed (the
  // mean clipped gradient, eq. 3a): 2ν₀₀₄/m_i ≥ 2ν₀₀₄/m_max. The device
  // rounds that part to its grid (sdk grid_gaussian.h, linearized_admm_step.h)
  // before the noise: sensitivity + g·√p/2, charged as for prox-admm
  // (GridNoiseMultiplier is increasing in ν, so m_max stays the worst case).
  return GridNoiseMultiplier(
      2 * DpAdmmNoiseMultiplier(c) / static_cast<double>(c.dp_admm.max_records),
      static_cast<size_t>(c.dimension));
}

}  // namespace edgeadmm::algorithms
