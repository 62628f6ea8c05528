#include "edgeadmm/algorithms/dp_ftrl.h"

#include <cmath>
#include <memory>

#include "edgeadmm/algorithms/dp_sgd.h"
#include "edgeadmm/algorithms/sum_grid.h"
#include "edgeadmm/algorithms/tree_aggregation.h"
#include "unit_support.h"

namespace edgeadmm::algorithms {
namespace {

// The [dp_ftrl] table, kept in JobConfig::algorithm_table.
struct DpFtrlTable final : jobs::AlgorithmTable {
  double server_learning_rate = 0;  // η_s > 0
  int64_t max_participations = 0;   // k >= 1 per device and job
};

const DpFtrlTable* TableOf(const jobs::JobConfig& c) {
  // Only this unit stores a table for a dp-ftrl job (ReadTable).
  return static_cast<const DpFtrlTable*>(c.algorithm_table.get());
}

}  // namespace

host::Error DpFtrl::Resolve(jobs::JobConfig& c) const {
  // Keeps the job's accountant under trusted-aggregator (the only policy
  // Validate accepts): one gateway draw per tree node (unit_support.h).
  UseRdpForGridNoise(c);
  return host::Error::Ok();
}

void DpFtrl::ReadTable(jobs::ConfigReader& r, jobs::JobConfig& config) const {
  auto table = std::make_shared<DpFtrlTable>();
  r.Double("dp_ftrl.server_learning_rate", table->server_learning_rate, true);
  r.Int("dp_ftrl.max_participations", table->max_participations, true);
  config.algorithm_table = std::move(table);
}

host::Error DpFtrl::Validate(const jobs::JobConfig& c) const {
  const DpFtrlTable* t = TableOf(c);
  if (t == nullptr) {
    return host::Error::InvalidArgument("dp_ftrl: missing");
  }
  if (!(t->server_learning_rate > 0)) {
    return host::Error::InvalidArgument(
        "dp_ftrl.server_learning_rate: must be > 0");
  }
  if (t->max_participations < 1) {
    return host::Error::InvalidArgument(
        "dp_ftrl.max_participations: must be >= 1");
  }
  if (c.policy != privacy::Policy::kTrustedAggregator) {
    return host::Error::InvalidArgument(
        "privacy.policy: dp-ftrl's noise is the gateway's tree noise; use "
        "trusted-aggregator");
  }
  if (c.noise_in_state) {
    return host::Error::InvalidArgument(
        "privacy.noise_in_state: only prox-admm has this switch");
  }
  if (!c.noise_planned() && !(c.sigma > 0)) {
    return host::Error::InvalidArgument(
        "privacy.sigma: dp-ftrl needs the tree's node noise sigma > 0 (or "
        "privacy.target_epsilon, from which it is planned)");
  }
  if (c.local_steps < 1) {
    return host::Error::InvalidArgument("step.local_steps: must be >= 1");
  }
  return host::Error::Ok();
}

void DpFtrl::FillTask(const jobs::JobConfig& c, int64_t n, int64_t iteration,
                      edgeadmm_wire_RoundTask& h) const {
  // The device runs dp-sgd's step without noise (σ = 0; trusted-aggregator's
  // noise placement, set by the request handler, says the same).
  DpSgd().FillTask(c, n, iteration, h);
  h.params.dp_sgd.sigma = 0;
}

host::UploadBound DpFtrl::HonestUpload(const jobs::JobConfig& c) const {
  return {c.clip, 0.0};  // Δ = Clip(w − z, C), no noise
}

Status DpFtrl::ApplyRound(const jobs::JobConfig& c, int64_t n,
                          const std::vector<std::vector<double>>& uploads,
                          RoundNoise& noise, ServerModel& model) const {
  const size_t p = static_cast<size_t>(c.dimension);
  // Clipped again here: the sensitivity must not rest on the devices.
  std::vector<double> sum(p, 0.0);
  for (const std::vector<double>& u : uploads) {
    double norm2 = 0;
    for (size_t j = 0; j < p; ++j) norm2 += u[j] * u[j];
    const double norm = std::sqrt(norm2);
    const double scale = norm > c.clip ? c.clip / norm : 1.0;
    for (size_t j = 0; j < p; ++j) sum[j] += scale * u[j];
  }
  std::vector<double> prefix;
  EDGEADMM_TRY(TreeAddRound(sum, c.sigma, TreeLevels(c.rounds), noise,
                            model.state, prefix));
  // FTRL from z_0 = 0 (Kairouz et al. 2021, Alg. 1): the step over the
  // noisy prefix, normalised by the expected cohort q·n (not the realized
  // count, which the charge does not cover).
  const double scale =
      TableOf(c)->server_learning_rate / (c.q * static_cast<double>(n));
  for (double& v : prefix) v *= scale;
  ProxInto(c, prefix, model.z);
  return Status::Ok();
}

privacy::LedgerMeaning DpFtrl::CentralMeaning(const jobs::JobConfig& c) const {
  const std::string k = std::to_string(MaxParticipations(c));
  return {
      "gaussian per accepted upload: the gateway's tree-aggregation "
      "noise, nu = sigma / (C sqrt(B(k)/k)) per participation, k = " +
          k + " (no sampling amplification), maximum over devices",
      "zero-out one device's data (user-level, all of its at most " + k +
          " participations)",
      "whoever sees the released models, colluding devices included "
      "(none knows any of the gateway's noise); not the gateway, which "
      "is trusted"};
}

double DpFtrl::ParticipationNoiseMultiplier(const jobs::JobConfig& c) const {
  const int64_t k = MaxParticipations(c);
  const double per_participation =
      TreeSquaredCountBound(k, TreeLevels(c.rounds)) / static_cast<double>(k);
  // sum_grid.h: each round's sum is rounded once to the grid; a node holds
  // the rounded sums of its rounds, and the n of them where the device took
  // part each move by at most C/g + √p grid steps (the rest are the same),
  // so the node moves by n·(C + g·√p): the tree's bound with C + g·√p for
  // C, i.e. the rounded-sum multiplier of ν = σ/C.
  const double nu = SumGridNoiseMultiplier(c.sigma / c.clip,
                                           static_cast<size_t>(c.dimension));
  return nu / std::sqrt(per_participation);
}

int64_t DpFtrl::MaxParticipations(const jobs::JobConfig& c) const {
  const DpFtrlTable* t = TableOf(c);
  return t != nullptr ? t->max_participations : 1;
}

}  // namespace edgeadmm::algorithms
