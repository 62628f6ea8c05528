// Task adapter of paper 001's M-ADMM with penalty perturbation (job
// "pp-admm", ALGORITHM_PENALTY_PERTURBATION) over the virtual graph the
// gateway relays (digest 001, B6 option A). The task carries the public
// constants and, for the complete graph, the mean f̄(t) = (1/N) Σ_j f_j(t)
// (S_i = N f̄ − f_i below), or for a ring or an edge list (neighbour_sum)
// the node's own S_i(t) and V_i; the device's private
// schedules η_i(t), α_i(t) come from its own TrainerConfig and are never
// sent. Per task t (1-based, computing f_i(t)):
//   S_i(t−1) = N f̄(t−1) − f_i(t−1)                      (its neighbour sum)
//   λ_i(t−1) = λ_i(t−2) + (θ/2)(V_i f_i(t−1) − S_i(t−1))  (eq. 11; t ≥ 2)
//   f_i(t) = the step on S_i(t−1), λ_i(t−1)                (eq. 10 / 25)
// A noiseless step whose prox solve did not meet the KKT tolerance, or a
// noisy one the step refuses (rounding margin or gradient-solve floor at γ),
// is refused (ABORTED); a noisy step uploads the approximate-minima release
// (pp_output_perturbation.h), which is also the f_i(t) its dual update and
// next step use. The node's (ε, δ) (paper 001's P_i plus the releases and
// the sampler's total variation, one sample) is reported with the last
// iteration T only, in the upload's algorithm_extra
// (penalty_perturbation_extra.h). A device with a cap β_max
// (PenaltySchedule::max_loss) refuses every new iteration of a job whose
// ε_i(T) would exceed it (RESOURCE_EXHAUSTED, before any solve): (ε, δ) is a
// deterministic function of the schedule, so the whole job is known at
// iteration 1 and the barrier fails it before anyone spends work.
#include <cmath>

#include "algorithm_task.h"
#include "edgeadmm/penalty_perturbation_accountant.h"
#include "edgeadmm/penalty_perturbation_extra.h"
#include "edgeadmm/result.h"

namespace edgeadmm::internal {

// Paper 001, Alg. 1: the public constants only (theta, rho, C > 0), 1-based
// t <= T, N >= 2 nodes and V_i = N - 1 neighbours (complete graph) or, with
// neighbour_sum, 1 <= V_i <= N - 1. The schedules eta_i, alpha_i are
// device-only.
bool ValidPenaltyPerturbationParams(const edgeadmm_wire_RoundTask& h) {
  const edgeadmm_wire_PenaltyPerturbationParams& p = h.params.penalty;
  const bool degree_ok = p.neighbour_sum
                             ? p.degree >= 1 && p.degree <= p.nodes - 1
                             : p.degree == p.nodes - 1;
  return PositiveFinite(p.theta) && PositiveFinite(p.reg_weight) &&
         PositiveFinite(p.loss_weight) && p.iteration >= 1 && p.nodes >= 2 &&
         degree_ok && p.rounds >= p.iteration;
}
namespace {

// The node's (ε, δ) after `iterations` released steps: paper 001's P_i
// (eq. (26)) plus the approximate-minima releases and the sampler's total
// variation (PenaltyPerturbationAccountant::ChargeRelease), at the schedule's
// δ, summed by the accountant so that the cap and the report agree.
Result<PpPrivacy> NodePrivacy(const PenaltyPerturbationParams& params,
                              const edgeadmm_wire_RoundTask& h,
                              uint64_t samples, size_t dim, uint32_t iterations,
                              double delta) {
  PenaltyPerturbationAccountant accountant;
  const Loss loss{h.loss == edgeadmm_wire_Loss_LOSS_SQUARED
                      ? LossKind::kSquared
                      : LossKind::kLogistic};
  EDGEADMM_TRY(accountant.Init(params, loss.CurvatureBound(), samples));
  for (uint32_t r = 1; r <= iterations; ++r) {
    EDGEADMM_TRY(accountant.ChargeRelease(params, r, dim));
  }
  return accountant.Privacy(delta);
}

}  // namespace

Status RunPenaltyPerturbationTask(const TaskInput& task, LocalTrainer& trainer,
                                  Span<Real> upload, TaskOutput& out) {
  const edgeadmm_wire_RoundTask& h = task.header;
  const edgeadmm_wire_PenaltyPerturbationParams& w = h.params.penalty;
  const PenaltySchedule& schedule = trainer.penalty_schedule();
  PenaltyPerturbationParams params;
  params.loss_weight = w.loss_weight;
  params.reg_weight = w.reg_weight;
  params.nodes = w.nodes;
  params.degree = w.degree;
  params.theta = w.theta;
  params.eta1 = schedule.eta1;
  params.eta_growth = schedule.eta_growth;
  params.eta_max = schedule.eta_max;
  params.alpha1 = schedule.alpha1;
  params.alpha_growth = schedule.alpha_growth;
  params.add_noise = !w.noiseless;
  params.mode = w.dvp ? PenaltyMode::kDualVariablePerturbation
                      : PenaltyMode::kPenaltyPerturbation;
  params.output_radius = schedule.output_radius;
  params.output_noise_multiplier = schedule.output_noise_multiplier;

  const uint32_t done = trainer.state().local_iteration;  // steps taken
  const size_t d = upload.size();
  if (task.model.size() != d) return Status::InvalidArgument();
  const Span<const Real> f = trainer.state().primary;
  if (done == w.iteration) {
    // f_i(t) exists already: the round was lost (aggregator restart) and is
    // asked again. Resend it; a fresh solve would draw new noise.
    for (size_t k = 0; k < d; ++k) upload[k] = f[k];
  } else {
    // A node that missed an iteration cannot rejoin (the barrier).
    if (done + 1 != w.iteration) return Status::FailedPrecondition();
    if (!(schedule.max_loss >= 0)) return Status::InvalidArgument();
    if (params.add_noise && !std::isinf(schedule.max_loss)) {
      EDGEADMM_TRY_ASSIGN(
          const PpPrivacy planned,
          NodePrivacy(params, h, task.samples, d, w.rounds, schedule.delta));
      if (planned.epsilon > schedule.max_loss) {
        return Status::ResourceExhausted();
      }
    }
    // S_i(t−1): the task's own neighbour sum (ring, edge list), or
    // N f̄(t−1) − f_i(t−1) (complete graph); built in `upload` (the step
    // reads it before it writes f_i(t) there).
    for (size_t k = 0; k < d; ++k) {
      upload[k] = w.neighbour_sum
                      ? task.model[k]
                      : static_cast<Real>(w.nodes) * task.model[k] - f[k];
    }
    if (done > 0) {
      EDGEADMM_TRY(ApplyPenaltyPerturbationDual(trainer, params, upload));
    }
    EDGEADMM_TRY_ASSIGN(
        const PenaltyPerturbationReport report,
        RunPenaltyPerturbation(trainer, params, h.round_id, upload, upload));
    // With noise the step certifies or proves its distance to x* itself.
    if (!params.add_noise && !report.prox.converged) return Status::Aborted();
  }
  // (ε, δ) of the steps taken, a deterministic function of the schedule:
  // recharged from iteration 1 (the trainer persists t, not the sums).
  if (params.add_noise && w.iteration == w.rounds) {
    EDGEADMM_TRY_ASSIGN(
        const PpPrivacy spent,
        NodePrivacy(params, h, task.samples, d, w.iteration, schedule.delta));
    // Update.algorithm_extra: pp-admm's own encoding, read by its unit on
    // the aggregator (the client copies the bytes).
    if (out.extra.size() < kPpLossExtraBytes) {
      return Status::ResourceExhausted();
    }
    EncodePpLossExtra(spent.epsilon, spent.delta, out.extra.data());
    out.extra_size = kPpLossExtraBytes;
  }
  return Status::Ok();
}

}  // namespace edgeadmm::internal
