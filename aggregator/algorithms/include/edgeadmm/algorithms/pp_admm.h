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
// condition 2c₁ < (B_i/C)(ρ/N + 2θV_i) at the worst node) and the relay's
// server update (PpAdmmRelay). Not served yet: it is not in the registry,
// no TOML keys fill JobConfig::pp_admm, and no wire task carries it.
#pragma once

#include <cstdint>
#include <vector>

#include "edgeadmm/host/error.h"
#include "edgeadmm/jobs/job_config.h"
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

}  // namespace edgeadmm::algorithms
