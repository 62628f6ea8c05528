// ProxSolver, Newton-CG for any loss (see prox_solver.h): inexact Newton on
// φ(x) = f(x) + ||x − v||²/(2s) with Hessian-free products
// H u = Aᵀ(D·(Au))/m + u/s, truncated CG and Armijo backtracking. Each pass
// over the records recomputes a_jᵀx instead of storing the margins.
#include <cmath>
#include <limits>

#include "edgeadmm/config.h"
#include "edgeadmm/prox_solver.h"
#include "edgeadmm/prox_tolerance.h"
#include "vector_ops.h"

namespace edgeadmm {
namespace {

using internal::Axpy;
using internal::Dot;

constexpr Real kArmijo = ToReal(1e-4);
constexpr int kMaxBacktracks = 50;

}  // namespace

Status ProxSolver::InitNewtonCg(Workspace& ws, const DatasetView& data,
                                const Loss& loss) {
  EDGEADMM_TRY(BeginInit(ws, data, loss, ProxMethod::kNewtonCg));
  const size_t p = data.dim();
  EDGEADMM_TRY_ASSIGN(per_record_, ws.Allocate<Real>(data.samples()));
  EDGEADMM_TRY_ASSIGN(grad_, ws.Allocate<Real>(p));
  EDGEADMM_TRY_ASSIGN(dir_, ws.Allocate<Real>(p));
  EDGEADMM_TRY_ASSIGN(cg_r_, ws.Allocate<Real>(p));
  EDGEADMM_TRY_ASSIGN(cg_p_, ws.Allocate<Real>(p));
  EDGEADMM_TRY_ASSIGN(cg_hp_, ws.Allocate<Real>(p));
  solve_ = &ProxSolver::SolveNewtonCg;
  initialized_ = true;
  return Status::Ok();
}

Real ProxSolver::NewtonPass(Span<const Real> v, Real s, Span<const Real> x) {
  const size_t m = data_.samples();
  const Real inv_m = 1 / static_cast<Real>(m);
  Span<Real> g = grad_;
  for (Real& gi : g) gi = 0;
  Real sum = 0;
  for (size_t j = 0; j < m; ++j) {
    const Span<const Real> a = data_.Row(j);
    const Real b = data_.Label(j);
    const Real t = Dot(a, x);
    Real derivative = 0;
    sum += loss_.ValueAndDerivative(t, b, &derivative);
    Axpy(derivative, a, g);  // ∇f = Σ_j ℓ'(a_jᵀx; b_j)·a_j / m
    per_record_[j] = loss_.Curvature(t, b) * inv_m;
  }
  internal::Scale(inv_m, g);
  for (size_t i = 0; i < g.size(); ++i) g[i] += (x[i] - v[i]) / s;
  return sum / static_cast<Real>(m);
}

void ProxSolver::HessianTimes(Span<const Real> u, Real s, Span<Real> out) {
  for (Real& value : out) value = 0;
  for (size_t j = 0; j < data_.samples(); ++j) {
    const Span<const Real> a = data_.Row(j);
    Axpy(per_record_[j] * Dot(a, u), a, out);  // D_j already divided by m
  }
  for (size_t i = 0; i < out.size(); ++i) out[i] += u[i] / s;
}

void ProxSolver::TruncatedCg(Real s, Real forcing) {
  const Span<Real> d = dir_;
  const Span<Real> r = cg_r_;
  const Span<Real> p = cg_p_;
  for (size_t i = 0; i < d.size(); ++i) {
    d[i] = 0;
    r[i] = -grad_[i];
    p[i] = r[i];
  }
  Real rr = Dot(r, r);
  const Real stop = forcing * forcing * rr;
  for (int k = 0; k < EDGEADMM_CFG_CG_MAX_ITERATIONS && rr > stop; ++k) {
    HessianTimes(p, s, cg_hp_);
    const Real php = Dot(p, cg_hp_);
    if (!(php > 0)) break;  // H ⪰ I/s: only round-off can get here
    const Real alpha = rr / php;
    Axpy(alpha, p, d);
    Axpy(-alpha, cg_hp_, r);
    const Real rr_next = Dot(r, r);
    const Real beta = rr_next / rr;
    for (size_t i = 0; i < p.size(); ++i) p[i] = r[i] + beta * p[i];
    rr = rr_next;
  }
}

Real ProxSolver::LineSearch(Span<const Real> v, Real s, Span<const Real> x,
                            Real value) {
  const Span<Real> d = dir_;
  Real slope = Dot(grad_, d);
  if (!(slope < 0)) {  // not a descent direction (round-off): steepest descent
    for (size_t i = 0; i < d.size(); ++i) d[i] = -grad_[i];
    slope = -Dot(grad_, grad_);
  }
  // Along x + α·d: margins a_jᵀx + α·a_jᵀd, and
  // ||x + αd − v||² = c0 + 2αc1 + α²c2, so each trial costs O(m·p) dot
  // products but no stored margins.
  const size_t m = data_.samples();
  for (size_t j = 0; j < m; ++j) per_record_[j] = Dot(data_.Row(j), d);
  Real c0 = 0;
  Real c1 = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const Real diff = x[i] - v[i];
    c0 += diff * diff;
    c1 += diff * d[i];
  }
  const Real c2 = Dot(d, d);
  const Real phi0 = value + c0 / (2 * s);
  // Round-off allowance: near the optimum the decrease is below the
  // accuracy of φ itself.
  const Real allowance =
      64 * std::numeric_limits<Real>::epsilon() * (1 + std::fabs(phi0));
  const Real inv_m = 1 / static_cast<Real>(m);
  Real alpha = 1;
  for (int k = 0; k < kMaxBacktracks; ++k, alpha *= Real{0.5}) {
    Real sum = 0;
    for (size_t j = 0; j < m; ++j) {
      const Real t = Dot(data_.Row(j), x);
      sum += loss_.Value(t + alpha * per_record_[j], data_.Label(j));
    }
    const Real phi =
        sum * inv_m + (c0 + 2 * alpha * c1 + alpha * alpha * c2) / (2 * s);
    if (phi <= phi0 + kArmijo * alpha * slope + allowance) return alpha;
  }
  return 0;
}

Result<ProxReport> ProxSolver::SolveNewtonCg(Span<const Real> v, Real s,
                                             Span<Real> x) {
  const Real scale = ResidualScale(v, s);
  const Real tolerance = internal::ProxTolerance() * scale;
  ProxReport report{0, 0, false};
  for (;;) {
    const Real value = NewtonPass(v, s, x);
    report.kkt_residual = internal::Norm(grad_);
    if (report.kkt_residual <= tolerance ||
        report.iterations >= EDGEADMM_CFG_NEWTON_MAX_ITERATIONS) {
      break;
    }
    const Real forcing =
        std::fmin(Real{0.5}, std::sqrt(report.kkt_residual / scale));
    TruncatedCg(s, forcing);
    const Real alpha = LineSearch(v, s, x, value);
    if (alpha == 0) break;  // no decrease possible at working precision
    Axpy(alpha, dir_, x);
    ++report.iterations;
  }
  report.converged = report.kkt_residual <= tolerance;
  return report;
}

}  // namespace edgeadmm
