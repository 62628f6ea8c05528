#include "edgeadmm/algorithms/registry.h"

#include <cmath>
#include <limits>

#include "edgeadmm/algorithms/admm_sharing.h"
#include "edgeadmm/algorithms/dp_admm.h"
#include "edgeadmm/algorithms/dp_ftrl.h"
#include "edgeadmm/algorithms/dp_sgd.h"
#include "edgeadmm/algorithms/pp_admm.h"
#include "edgeadmm/algorithms/prox_admm.h"
#include "edgeadmm/algorithms/random_walk_admm.h"
#include "edgeadmm/assert.h"
#include "unit_support.h"

namespace edgeadmm::algorithms {

const std::vector<const Algorithm*>& All() {
  // One line per served algorithm.
  static const ProxAdmm prox_admm;
  static const DpAdmm dp_admm;
  static const DpSgd dp_sgd;
  static const RandomWalkAdmm random_walk_admm;
  static const PpAdmm pp_admm;
  static const AdmmSharing admm_sharing;
  static const DpFtrl dp_ftrl;
  static const std::vector<const Algorithm*> all = {
      &prox_admm, &dp_admm,      &dp_sgd, &random_walk_admm,
      &pp_admm,   &admm_sharing, &dp_ftrl};
  return all;
}

const Algorithm* Find(AlgorithmKind kind) {
  for (const Algorithm* a : All()) {
    if (a->kind() == kind) return a;
  }
  return nullptr;
}

const Algorithm* FindByName(std::string_view name) {
  for (const Algorithm* a : All()) {
    if (name == a->name()) return a;
  }
  return nullptr;
}

const Algorithm& Get(AlgorithmKind kind) {
  const Algorithm* a = Find(kind);
  EDGEADMM_ASSERT(a != nullptr);
  return *a;
}

const char* NameOf(AlgorithmKind kind) {
  const Algorithm* a = Find(kind);
  return a != nullptr ? a->name() : "?";
}

std::string Names() {
  std::string names;
  for (const Algorithm* a : All()) {
    names += names.empty() ? "" : ", ";
    names += a->name();
  }
  return names;
}

host::Error Algorithm::Resolve(jobs::JobConfig& /*config*/) const {
  return host::Error::Ok();
}

host::Error RefuseProxAdmmOnlyOptions(const jobs::JobConfig& c) {
  if (c.noise_in_state) {
    return host::Error::InvalidArgument(
        "privacy.noise_in_state: only prox-admm has this switch");
  }
  if (c.policy == privacy::Policy::kTrustedAggregator) {
    return host::Error::InvalidArgument(
        "privacy.policy: trusted-aggregator is implemented for "
        "prox-admm only");
  }
  return host::Error::Ok();
}

void UseRdpForGridNoise(jobs::JobConfig& config) {
  // trusted-aggregator: one gateway draw per released value, bridged.
  if (config.policy == privacy::Policy::kTrustedAggregator) return;
  config.accountant = jobs::CentralAccountant::kRdp;
}

void ProxInto(const jobs::JobConfig& config, const std::vector<double>& v,
              std::vector<double>& out) {
  out.resize(v.size());
  config.regularizer.Prox(Span<const Real>(v.data(), v.size()), config.gamma,
                          Span<Real>(out.data(), out.size()));
}

host::Error ResolveEveryoneWithoutGaussianNoise(jobs::JobConfig& c, int64_t n,
                                                const char* sigma_error,
                                                const char* budget_error) {
  c.sampling = jobs::SamplingScheme::kFixed;
  c.m = n;
  c.m_min = n;
  if (c.sigma > 0 || c.noise_planned()) {
    return host::Error::InvalidArgument(sigma_error);
  }
  c.sigma = 0;
  for (double* budget : {&c.central_budget, &c.device_budget}) {
    if (*budget != 0 && !std::isinf(*budget)) {
      return host::Error::InvalidArgument(budget_error);
    }
    *budget = std::numeric_limits<double>::infinity();
  }
  return host::Error::Ok();
}

std::vector<double> SumUploads(const std::vector<std::vector<double>>& uploads,
                               size_t length) {
  std::vector<double> sum(length, 0.0);
  for (const std::vector<double>& u : uploads) {
    for (size_t j = 0; j < length; ++j) sum[j] += u[j];
  }
  return sum;
}

}  // namespace edgeadmm::algorithms
