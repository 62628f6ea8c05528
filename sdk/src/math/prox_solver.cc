// ProxSolver: the parts shared by both methods. The closed form is in
// prox_closed_form.cc, Newton-CG in prox_newton_cg.cc (see prox_solver.h).
#include "edgeadmm/prox_solver.h"

#include <cmath>

#include "edgeadmm/config.h"
#include "edgeadmm/vector_checks.h"
#include "vector_ops.h"

namespace edgeadmm {

Status ProxSolver::Init(Workspace& ws, const DatasetView& data,
                        const Loss& loss, ProxMethod method) {
  initialized_ = false;
  switch (Resolve(loss.kind, method)) {
    case ProxMethod::kClosedForm:
      return InitClosedForm(ws, data, loss);
    case ProxMethod::kNewtonCg:
      return InitNewtonCg(ws, data, loss);
    case ProxMethod::kAuto:
      break;
  }
  return Status::InvalidArgument();
}

Status ProxSolver::BeginInit(const Workspace& ws, const DatasetView& data,
                             const Loss& loss, ProxMethod method) {
  initialized_ = false;
  factor_step_ = 0;
  solve_ = nullptr;
  if (data.samples() == 0 || data.dim() == 0) return Status::InvalidArgument();
  EDGEADMM_TRY(loss.Validate());
  if (method == ProxMethod::kClosedForm && loss.kind != LossKind::kSquared) {
    return Status::InvalidArgument();
  }
  if (ws.capacity() - ws.used() <
      WorkspaceBytes(loss.kind, method, data.samples(), data.dim())) {
    return Status::ResourceExhausted();
  }
  data_ = data;
  loss_ = loss;
  method_ = method;
  factor_ = atb_ = margins_ = temp_ = per_record_ = grad_ = dir_ = cg_r_ =
      cg_p_ = cg_hp_ = Span<Real>();
  return Status::Ok();
}

Status ProxSolver::ValidateSolveArguments(Span<const Real> v, Real s,
                                          Span<const Real> x) const {
  if (!initialized_) return Status::FailedPrecondition();
  if (!IsPositive(s) || !IsFiniteVector(v, data_.dim()) ||
      !IsFiniteVector(x, data_.dim())) {
    return Status::InvalidArgument();
  }
  return Status::Ok();
}

Real ProxSolver::ResidualScale(Span<const Real> v, Real s) {
  return std::fmax(Real{1}, internal::Norm(v) / s);
}

Result<ProxReport> ProxSolver::Solve(Span<const Real> v, Real s, Span<Real> x) {
  EDGEADMM_TRY(ValidateSolveArguments(v, s, x));
  return (this->*solve_)(v, s, x);
}

}  // namespace edgeadmm
