// ProxSolver, closed form for the squared loss (see prox_solver.h):
// (AᵀA/m + I/s)x = Aᵀb/m + v/s, by a cached Cholesky factor of the p x p
// system or of the m x m Woodbury system (Sherman–Morrison for m = 1).
#include <cmath>

#include "dense_cholesky.h"
#include "edgeadmm/config.h"
#include "edgeadmm/dataset_maps.h"
#include "edgeadmm/linear_model.h"
#include "edgeadmm/prox_solver.h"
#include "edgeadmm/prox_tolerance.h"
#include "span_map.h"
#include "vector_ops.h"

namespace edgeadmm {
namespace {

using internal::AsVector;
using internal::Index;

constexpr int kMaxRefinements = 2;

}  // namespace

Status ProxSolver::InitClosedForm(Workspace& ws, const DatasetView& data,
                                  const Loss& loss) {
  EDGEADMM_TRY(BeginInit(ws, data, loss, ProxMethod::kClosedForm));
  const size_t m = data.samples();
  const size_t p = data.dim();
  const size_t n = m < p ? m : p;
  EDGEADMM_TRY_ASSIGN(margins_, ws.Allocate<Real>(m));
  EDGEADMM_TRY_ASSIGN(temp_, ws.Allocate<Real>(m));
  EDGEADMM_TRY_ASSIGN(grad_, ws.Allocate<Real>(p));
  EDGEADMM_TRY_ASSIGN(factor_, ws.Allocate<Real>(n * n));
  EDGEADMM_TRY_ASSIGN(atb_, ws.Allocate<Real>(p));
  internal::MultiplyTransposed(data_, data_.labels(), atb_);
  internal::Scale(1 / static_cast<Real>(m), atb_);
  solve_ = &ProxSolver::SolveClosedForm;
  initialized_ = true;
  return Status::Ok();
}

Real ProxSolver::KktResidual(Span<const Real> v, Real s, Span<const Real> x) {
  LocalGradient(data_, loss_, x, margins_, grad_);
  AsVector(grad_) += (AsVector(x) - AsVector(v)) / s;
  return AsVector(grad_).norm();
}

Status ProxSolver::Factor(Real s) {
  const ConstMatrixMap a = FeaturesMap(data_);
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
  internal::MultiplyRows(data_, r, temp_);
  VectorMap t = AsVector(temp_);
  internal::CholeskySolveInPlace(MatrixMap(factor_.data(), Index(m), Index(m)),
                                 t);
  for (size_t j = 0; j < m; ++j) internal::Axpy(-temp_[j], data_.Row(j), r);
  rhs *= factor_step_;
}

Result<ProxReport> ProxSolver::SolveClosedForm(Span<const Real> v, Real s,
                                               Span<Real> x) {
  if (s != factor_step_) EDGEADMM_TRY(Factor(s));
  // (AᵀA/m + I/s)x = Aᵀb/m + v/s.
  AsVector(x) = AsVector(atb_) + AsVector(v) / s;
  ApplyInverse(x);
  const Real tolerance = internal::ProxTolerance() * ResidualScale(v, s);
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

}  // namespace edgeadmm
