// pp-admm: paper 001 (Zhang, Khalili, Liu, ICML 2018) M-ADMM with penalty
// perturbation, with the gateway as the relay of a virtual peer graph
// (digest 001, B6 option A). Each round every node uploads f_i(t+1) (d
// values); the gateway returns S_i(t+1) = Σ_{j∈V_i} f_j(t+1), or, for the
// complete graph, broadcasts F = Σ_j f_j and each device subtracts its own
// (S_i = F − f_i, V_i = N − 1). The device step (PenaltyPerturbationStep),
// its dual update (11), the private η_i(t) and α_i(t) schedules and the
// accountant (PenaltyPerturbationAccountant) stay on the device.
//
// This unit holds the job checks (ValidatePpAdmm: the graph and the θ
// condition 2c₁ < (B_i/C)(ρ/N + 2θV_i) at the worst node), the relay's
// server update (PpAdmmRelay) and the job algorithm "pp-admm" (PpAdmm).
// The released model is the mean f̄(t) = F/N; on the complete graph every
// task carries it (S_i = N f̄ − f_i on the device), on a ring or an edge
// list each node's task carries its own S_i (PerNodeTasks). Rounds are a
// barrier (every node every round; BarrierRetries).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "edgeadmm/algorithms/algorithm.h"
#include "edgeadmm/host/error.h"
#include "edgeadmm/job_types/job_config.h"
#include "edgeadmm/status.h"

namespace edgeadmm::algorithms {

// The virtual peer graph: undirected, simple, connected.
class VirtualGraph {
 public:
  // INVALID_ARGUMENT naming the key: N < 2 (ring: N < 3), an edge with an
  // endpoint out of range, a self-loop or a repeated edge, edges given for a
  // complete graph or ring, or a disconnected graph.
  static host::ErrorOr<VirtualGraph> Build(const jobs::PpAdmmConfig& config);

  int64_t nodes() const { return static_cast<int64_t>(neighbours_.size()); }
  bool complete() const { return complete_; }
  // 𝒱_i (excludes i), ascending.
  const std::vector<int64_t>& neighbours(int64_t i) const {
    return neighbours_[static_cast<size_t>(i)];
  }
  int64_t degree(int64_t i) const {
    return static_cast<int64_t>(neighbours(i).size());
  }
  int64_t min_degree() const;

 private:
  bool complete_ = false;
  std::vector<std::vector<int64_t>> neighbours_;
};

// c₁ of the job's loss for paper 001 (Assumption 4: strictly convex, C²,
// |ℒ'| ≤ 1, 0 < ℒ'' ≤ c₁): ¼ for logistic; −1 for a loss it does not
// cover (squared: ℒ' is unbounded).
double PpCurvatureBound(jobs::Loss loss);

// The job checks for pp-admm: dimension and rounds ≥ 1, a logistic loss,
// C, ρ, θ finite and positive, B_min ≥ 1 and C ≤ B_min, a valid graph, and
// the θ condition at the worst node (B_min, the smallest degree), the same
// check the device repeats with its own B_i and V_i (CheckPpThetaCondition).
// INVALID_ARGUMENT naming the key; FAILED_PRECONDITION for the θ condition.
host::Error ValidatePpAdmm(const jobs::JobConfig& config);

// The relay's per-round server update.
class PpAdmmRelay {
 public:
  // As ValidatePpAdmm; builds the graph.
  host::Error Init(const jobs::JobConfig& config);

  // uploads[i] = f_i(t+1) of node i (one per node, each `dimension` long,
  // finite); sums[i] = S_i(t+1) = Σ_{j∈𝒱_i} f_j(t+1). FAILED_PRECONDITION
  // before Init; INVALID_ARGUMENT (sums untouched) for a missing node, a
  // wrong length or a non-finite value: a round needs every node (barrier).
  Status NeighbourSums(const std::vector<std::vector<double>>& uploads,
                       std::vector<std::vector<double>>& sums) const;

  // Complete graph only: F = Σ_j f_j(t+1), the one broadcast vector
  // (S_i = F − f_i on the device). FAILED_PRECONDITION before Init or for
  // any other graph; INVALID_ARGUMENT as NeighbourSums.
  Status BroadcastSum(const std::vector<std::vector<double>>& uploads,
                      std::vector<double>& total) const;

  const VirtualGraph& graph() const { return graph_; }

 private:
  Status CheckUploads(const std::vector<std::vector<double>>& uploads) const;

  bool initialized_ = false;
  int64_t dimension_ = 0;
  VirtualGraph graph_;
};

// What pp-admm's reported pair is (job status, ledger and export):
// docs/privacy.md, "pp-admm".
inline constexpr const char* kPpLossLabel =
    "(epsilon, delta)-DP per node, one sample of one node replaced, against "
    "every device and the gateway (the whole transcript of releases): "
    "approximate-minima perturbation (Iyengar et al. 2019) of paper 001's "
    "penalty perturbation, i.e. paper 001's Thm. 4.1 sum (pure) plus the "
    "RDP of the exact grid Gaussian on each solve within gamma of the exact "
    "minimiser (the Gamma draw's rounding reserved out of gamma), converted "
    "at the node's delta, plus the Gamma sampler's total variation "
    "(skipped uniforms, rounding-flipped decisions) in delta; max over the "
    "nodes' reports of each; assumed: the residual's factor-2 margin on a "
    "residual-certified solve, and a refusal (rounding margin above gamma) "
    "as negligible (docs/privacy.md)";

// pp-admm's upload extra: the device's (ε, δ) with the job's last
// iteration (penalty_perturbation_extra.h: 16 bytes, two float64 LE, ε
// finite and >= 0, δ in [0, 1]), and the report section "pp_loss": the
// network's max_i ε_i and max_i δ_i over the nodes' reports (ε = 0 counts
// as not reported).
class PpLossExtra final : public UploadExtra {
 public:
  // "algorithm_extra of pp-admm: 16 bytes, (epsilon, delta)" for anything but
  // none or such a value.
  const char* Refusal(const jobs::JobConfig& config, int64_t iteration,
                      const std::vector<uint8_t>& extra) const override;
  // The job's last iteration only (a value sent earlier is the device's
  // own leak; it is not recorded).
  bool Stores(const jobs::JobConfig& config, int64_t iteration) const override;
  // {"epsilon": max_i ε_i, "delta": max_i δ_i, "reported": ...,
  //  "nodes": N, "meaning": kPpLossLabel}.
  ReportSection Report(
      const jobs::JobConfig& config,
      const std::vector<std::vector<uint8_t>>& stored) const override;
};

// The job algorithm "pp-admm": one round = one M-ADMM iteration of every
// node. The task (PenaltyPerturbationParams) carries θ, ρ, C, N, V_i, t, T,
// the mode and whether to add noise; the model is f̄(t) (complete graph) or
// the node's S_i(t) (ring, edge list: PerNodeTasks). The upload is
// f_i(t+1); the server update is f̄(t+1) = (1/N) Σ_i f_i(t+1) (PpAdmmRelay's
// broadcast sum over N). The Gaussian ledgers do not apply (OwnNoiseMultiplier
// 0, budgets inf): the privacy of a pp-admm job is the nodes' (ε_i, δ_i)
// (paper 001's P_i plus the approximate-minima releases), which the devices
// report with their last upload.
class PpAdmm final : public Algorithm, public BarrierRounds, public NodeTasks {
 public:
  AlgorithmKind kind() const override {
    return AlgorithmKind::kPenaltyPerturbation;
  }
  const char* name() const override { return "pp-admm"; }
  RequiredStepKeys required_step_keys() const override { return {}; }
  const char* table() const override { return "pp_admm"; }
  void ReadTable(jobs::ConfigReader& reader,
                 jobs::JobConfig& config) const override;
  bool takes_gaussian_keys() const override { return false; }
  // Fixed sampling of every node (m = m_min = N), σ = 0, Gaussian budgets
  // inf; INVALID_ARGUMENT for keys that contradict that.
  host::Error Resolve(jobs::JobConfig& config) const override;
  host::Error Validate(const jobs::JobConfig& config) const override;
  void FillTask(const jobs::JobConfig& config, int64_t n, int64_t iteration,
                edgeadmm_wire_RoundTask& task) const override;
  edgeadmm_wire_UpdateKind update_kind() const override {
    return edgeadmm_wire_UpdateKind_UPDATE_KIND_MODEL;
  }
  // Exactly N uploads (the barrier), one per node.
  Status ApplyRound(const jobs::JobConfig& config, int64_t n,
                    const std::vector<std::vector<double>>& uploads,
                    RoundNoise& noise, ServerModel& model) const override;
  double OwnNoiseMultiplier(const jobs::JobConfig& /*config*/) const override {
    return 0.0;
  }
  int64_t BarrierRetries(const jobs::JobConfig& config) const override {
    return config.pp_admm.barrier_retries;
  }
  int64_t RequiredDevices(const jobs::JobConfig& config) const override {
    return config.pp_admm.nodes;
  }
  // P_i(T) with the last upload (PpLossExtra).
  const UploadExtra* upload_extra() const override;
  const BarrierRounds* barrier_rounds() const override { return this; }
  const NodeTasks* node_tasks() const override { return this; }
  // A ring or an edge list: each node's task carries its own neighbour sum
  // S_i(t) = Σ_{j∈𝒱_i} f_j(t) (PpAdmmRelay::NeighbourSums; zeros before the
  // first commit) and its degree V_i, with neighbour_sum set.
  bool PerNodeTasks(const jobs::JobConfig& config) const override {
    return config.pp_admm.graph != jobs::VirtualGraphKind::kComplete;
  }
  void NodeTaskVector(const jobs::JobConfig& config, int64_t node,
                      const std::vector<std::vector<double>>& last_uploads,
                      std::vector<double>& vector) const override;
  void FillNodeTask(const jobs::JobConfig& config, int64_t node,
                    edgeadmm_wire_RoundTask& task) const override;
};

}  // namespace edgeadmm::algorithms
