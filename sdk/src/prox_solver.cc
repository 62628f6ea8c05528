#include "edgeadmm/prox_solver.h"

#include <cmath>
#include <limits>

#include "dense_cholesky.h"
#include "edgeadmm/config.h"
#include "edgeadmm/linear_model.h"
#include "span_map.h"

namespace edgeadmm {
namespace {

using internal::AsVector;
using internal::Index;

constexpr Real kArmijo = 1e-4;
constexpr int kMaxBacktracks = 50;
constexpr int kMaxRefinements = 2;

bool AllFinite(Span<const Real> values) {
  for (const Real value : values) {
    if (!std::isfinite(value)) return false;
  }
  return true;
}

Real Tolerance(Span<const Real> v, Real s) {
  return Real{EDGEADMM_CFG_NEWTON_TOLERANCE} *
         std::fmax(Real{1}, AsVector(v).norm() / s);
}

}  // namespace

Status ProxSolver::Init(Workspace& ws, const DatasetView& data,
                        const Loss& loss, ProxMethod method) {
  initialized_ = false;
  factor_step_ = 0;
  if (data.samples() == 0 || data.dim() == 0) return Status::InvalidArgument();
  EDGEADMM_TRY(loss.Validate());
  if (method != ProxMethod::kAuto && method != ProxMethod::kClosedForm &&
      method != ProxMethod::kNewtonCg) {
    return Status::InvalidArgument();
  }
  const ProxMethod resolved = Resolve(loss.kind, method);
  if (resolved == ProxMethod::kClosedForm && loss.kind != LossKind::kSquared) {
    return Status::InvalidArgument();
  }
  const size_t m = data.samples();
  const size_t p = data.dim();
  if (ws.capacity() - ws.used() < WorkspaceBytes(loss.kind, resolved, m, p)) {
    return Status::ResourceExhausted();
  }
  data_ = data;
  loss_ = loss;
  method_ = resolved;
  factor_ = atb_ = derivatives_ = curvatures_ = dir_ = cg_r_ = cg_p_ = cg_hp_ =
      Span<Real>();
  EDGEADMM_TRY_ASSIGN(margins_, ws.Allocate<Real>(m));
  EDGEADMM_TRY_ASSIGN(temp_, ws.Allocate<Real>(m));
  EDGEADMM_TRY_ASSIGN(grad_, ws.Allocate<Real>(p));
  if (resolved == ProxMethod::kClosedForm) {
    const size_t n = m < p ? m : p;
    EDGEADMM_TRY_ASSIGN(factor_, ws.Allocate<Real>(n * n));
    EDGEADMM_TRY_ASSIGN(atb_, ws.Allocate<Real>(p));
    AsVector(atb_).noalias() = data_.Features().transpose() * data_.Labels();
    AsVector(atb_) *= 1 / static_cast<Real>(m);
  } else {
    EDGEADMM_TRY_ASSIGN(derivatives_, ws.Allocate<Real>(m));
    EDGEADMM_TRY_ASSIGN(curvatures_, ws.Allocate<Real>(m));
    EDGEADMM_TRY_ASSIGN(dir_, ws.Allocate<Real>(p));
    EDGEADMM_TRY_ASSIGN(cg_r_, ws.Allocate<Real>(p));
    EDGEADMM_TRY_ASSIGN(cg_p_, ws.Allocate<Real>(p));
    EDGEADMM_TRY_ASSIGN(cg_hp_, ws.Allocate<Real>(p));
  }
  initialized_ = true;
  return Status::Ok();
}

Status ProxSolver::ValidateSolveArguments(Span<const Real> v, Real s,
                                          Span<const Real> x) const {
  if (!initialized_) return Status::FailedPrecondition();
  if (!std::isfinite(s) || !(s > 0) || v.size() != data_.dim() ||
      x.size() != data_.dim() || !AllFinite(v) || !AllFinite(x)) {
    return Status::InvalidArgument();
  }
  return Status::Ok();
}

Result<ProxReport> ProxSolver::Solve(Span<const Real> v, Real s, Span<Real> x) {
  EDGEADMM_TRY(ValidateSolveArguments(v, s, x));
  if (method_ == ProxMethod::kClosedForm) return SolveClosedForm(v, s, x);
  return SolveNewtonCg(v, s, x);
}

Real ProxSolver::KktResidual(Span<const Real> v, Real s, Span<const Real> x) {
  LocalGradient(data_, loss_, x, margins_, grad_);
  AsVector(grad_) += (AsVector(x) - AsVector(v)) / s;
  return AsVector(grad_).norm();
}

// ---------------------------------------------------------------------------
// Closed form (squared loss).

Status ProxSolver::Factor(Real s) {
  const ConstMatrixMap a = data_.Features();
  const size_t m = data_.samples();
  const size_t n = UsesWoodbury() ? m : data_.dim();
  MatrixMap k(factor_.data(), Index(n), Index(n));
  k.setZero();
  if (UsesWoodbury()) {
    // K = A·Aᵀ + (m/s)·I (lower triangle), by row dot products.
    for (Eigen::Index i = 0; i < Index(n); ++i) {
      for (Eigen::Index j = 0; j <= i; ++j) k(i, j) = a.row(i).dot(a.row(j));
      k(i, i) += static_cast<Real>(m) / s;
    }
  } else {
    // K = AᵀA/m + I/s (lower triangle), one rank-1 update per record; zero
    // features (most of a one-hot record) are skipped.
    for (Eigen::Index j = 0; j < Index(m); ++j) {
      for (Eigen::Index i = 0; i < Index(n); ++i) {
        const Real aji = a(j, i);
        if (aji != 0) k.row(i).head(i + 1) += aji * a.row(j).head(i + 1);
      }
    }
    k *= 1 / static_cast<Real>(m);
    k.diagonal().array() += 1 / s;
  }
  if (!internal::CholeskyFactorInPlace(k)) {
    factor_step_ = 0;
    return Status::Internal();
  }
  factor_step_ = s;
  return Status::Ok();
}

void ProxSolver::ApplyInverse(Span<Real> r) {
  VectorMap rhs = AsVector(r);
  if (!UsesWoodbury()) {
    const size_t p = data_.dim();
    internal::CholeskySolveInPlace(
        MatrixMap(factor_.data(), Index(p), Index(p)), rhs);
    return;
  }
  // (I/s + AᵀA/m)⁻¹ r = s·(r − Aᵀ (AAᵀ + (m/s)I)⁻¹ A r)  (Woodbury).
  const size_t m = data_.samples();
  const ConstMatrixMap a = data_.Features();
  VectorMap t = AsVector(temp_);
  t.noalias() = a * rhs;
  internal::CholeskySolveInPlace(MatrixMap(factor_.data(), Index(m), Index(m)),
                                 t);
  rhs.noalias() -= a.transpose() * t;
  rhs *= factor_step_;
}

Result<ProxReport> ProxSolver::SolveClosedForm(Span<const Real> v, Real s,
                                               Span<Real> x) {
  if (s != factor_step_) EDGEADMM_TRY(Factor(s));
  // (AᵀA/m + I/s)x = Aᵀb/m + v/s.
  AsVector(x) = AsVector(atb_) + AsVector(v) / s;
  ApplyInverse(x);
  const Real tolerance = Tolerance(v, s);
  ProxReport report{1, KktResidual(v, s, x), false};
  // grad_ = M·x − rhs exactly, so x ← x − M⁻¹·grad_ refines the solution.
  while (report.kkt_residual > tolerance &&
         report.iterations <= kMaxRefinements) {
    ApplyInverse(grad_);
    AsVector(x) -= AsVector(grad_);
    report.kkt_residual = KktResidual(v, s, x);
    ++report.iterations;
  }
  report.converged = report.kkt_residual <= tolerance;
  return report;
}

// ---------------------------------------------------------------------------
// Newton-CG (any loss).

void ProxSolver::HessianTimes(Span<const Real> u, Real s, Span<Real> out) {
  const ConstMatrixMap a = data_.Features();
  VectorMap t = AsVector(temp_);
  t.noalias() = a * AsVector(u);
  t.array() *= AsVector(curvatures_).array();  // already divided by m
  VectorMap hu = AsVector(out);
  hu.noalias() = a.transpose() * t;
  hu += AsVector(u) / s;
}

void ProxSolver::TruncatedCg(Real s, Real forcing) {
  VectorMap d = AsVector(dir_);
  VectorMap r = AsVector(cg_r_);
  VectorMap p = AsVector(cg_p_);
  const VectorMap hp = AsVector(cg_hp_);
  d.setZero();
  r = -AsVector(grad_);
  p = r;
  Real rr = r.squaredNorm();
  const Real stop = forcing * forcing * rr;
  for (int i = 0; i < EDGEADMM_CFG_CG_MAX_ITERATIONS && rr > stop; ++i) {
    HessianTimes(cg_p_, s, cg_hp_);
    const Real php = p.dot(hp);
    if (!(php > 0)) break;  // H ⪰ I/s: only round-off can get here
    const Real alpha = rr / php;
    d += alpha * p;
    r -= alpha * hp;
    const Real rr_next = r.squaredNorm();
    p = r + (rr_next / rr) * p;
    rr = rr_next;
  }
}

Real ProxSolver::LineSearch(Span<const Real> v, Real s, Span<const Real> x,
                            Real value) {
  VectorMap d = AsVector(dir_);
  const ConstVectorMap b = data_.Labels();
  const ConstVectorMap t = AsVector(Span<const Real>(margins_));
  Real slope = AsVector(grad_).dot(d);
  if (!(slope < 0)) {  // not a descent direction (round-off): steepest descent
    d = -AsVector(grad_);
    slope = -AsVector(grad_).squaredNorm();
  }
  // Along x + α·d: margins t + α·Ad, and ||x + αd − v||² = c0 + 2αc1 + α²c2,
  // so each trial costs O(m), not a GEMV.
  VectorMap ad = AsVector(temp_);
  ad.noalias() = data_.Features() * d;
  const auto diff = AsVector(x) - AsVector(v);
  const Real c0 = diff.squaredNorm();
  const Real c1 = diff.dot(d);
  const Real c2 = d.squaredNorm();
  const Real phi0 = value + c0 / (2 * s);
  // Round-off allowance: near the optimum the decrease is below the
  // accuracy of φ itself.
  const Real allowance =
      64 * std::numeric_limits<Real>::epsilon() * (1 + std::fabs(phi0));
  const Real inv_m = 1 / static_cast<Real>(data_.samples());
  Real alpha = 1;
  for (int k = 0; k < kMaxBacktracks; ++k, alpha *= Real{0.5}) {
    Real sum = 0;
    for (Eigen::Index j = 0; j < t.size(); ++j) {
      sum += loss_.Value(t(j) + alpha * ad(j), b(j));
    }
    const Real phi =
        sum * inv_m + (c0 + 2 * alpha * c1 + alpha * alpha * c2) / (2 * s);
    if (phi <= phi0 + kArmijo * alpha * slope + allowance) return alpha;
  }
  return 0;
}

Result<ProxReport> ProxSolver::SolveNewtonCg(Span<const Real> v, Real s,
                                             Span<Real> x) {
  const Real scale = std::fmax(Real{1}, AsVector(v).norm() / s);
  const Real tolerance = Real{EDGEADMM_CFG_NEWTON_TOLERANCE} * scale;
  const Real inv_m = 1 / static_cast<Real>(data_.samples());
  const ConstVectorMap b = data_.Labels();
  ProxReport report{0, 0, false};
  for (;;) {
    const Real value =
        LocalLossAndDerivatives(data_, loss_, x, margins_, derivatives_);
    VectorMap g = AsVector(grad_);
    g.noalias() = data_.Features().transpose() * AsVector(derivatives_);
    g *= inv_m;
    g += (AsVector(x) - AsVector(v)) / s;
    report.kkt_residual = g.norm();
    if (report.kkt_residual <= tolerance ||
        report.iterations >= EDGEADMM_CFG_NEWTON_MAX_ITERATIONS) {
      break;
    }
    for (size_t j = 0; j < data_.samples(); ++j) {
      curvatures_[j] = loss_.Curvature(margins_[j], b(Index(j))) * inv_m;
    }
    const Real forcing =
        std::fmin(Real{0.5}, std::sqrt(report.kkt_residual / scale));
    TruncatedCg(s, forcing);
    const Real alpha = LineSearch(v, s, x, value);
    if (alpha == 0) break;  // no decrease possible at working precision
    AsVector(x) += alpha * AsVector(dir_);
    ++report.iterations;
  }
  report.converged = report.kkt_residual <= tolerance;
  return report;
}

}  // namespace edgeadmm
