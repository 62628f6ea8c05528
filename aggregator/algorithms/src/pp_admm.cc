#include "edgeadmm/algorithms/pp_admm.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "edgeadmm/penalty_perturbation_accountant.h"
#include "edgeadmm/penalty_perturbation_extra.h"
#include "unit_support.h"

namespace edgeadmm::algorithms {
namespace {

bool Positive(double x) { return std::isfinite(x) && x > 0; }

}  // namespace

host::ErrorOr<VirtualGraph> VirtualGraph::Build(const jobs::PpAdmmConfig& c) {
  const int64_t n = c.nodes;
  VirtualGraph g;
  switch (c.graph) {
    case jobs::VirtualGraphKind::kComplete:
    case jobs::VirtualGraphKind::kRing: {
      const bool ring = c.graph == jobs::VirtualGraphKind::kRing;
      if (n < (ring ? 3 : 2)) {
        return host::Error::InvalidArgument(
            std::string("pp_admm.nodes: a ") + (ring ? "ring" : "complete") +
            " graph needs at least " + (ring ? "3" : "2") + " nodes, got " +
            std::to_string(n));
      }
      if (!c.edges.empty()) {
        return host::Error::InvalidArgument(
            "pp_admm.edges: only for graph = \"edges\"");
      }
      g.complete_ = !ring;
      g.neighbours_.resize(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) {
        auto& v = g.neighbours_[static_cast<size_t>(i)];
        if (ring) {
          v = {(i + n - 1) % n, (i + 1) % n};
          std::sort(v.begin(), v.end());
        } else {
          for (int64_t j = 0; j < n; ++j) {
            if (j != i) v.push_back(j);
          }
        }
      }
      return g;
    }
    case jobs::VirtualGraphKind::kEdgeList:
      break;
  }
  if (n < 2) {
    return host::Error::InvalidArgument(
        "pp_admm.nodes: needs at least 2 nodes, got " + std::to_string(n));
  }
  g.neighbours_.resize(static_cast<size_t>(n));
  for (const auto& [a, b] : c.edges) {
    const std::string edge =
        "{" + std::to_string(a) + ", " + std::to_string(b) + "}";
    if (a < 0 || b < 0 || a >= n || b >= n) {
      return host::Error::InvalidArgument("pp_admm.edges: " + edge +
                                          " has an endpoint out of [0, " +
                                          std::to_string(n) + ")");
    }
    if (a == b) {
      return host::Error::InvalidArgument("pp_admm.edges: " + edge +
                                          " is a self-loop");
    }
    auto& va = g.neighbours_[static_cast<size_t>(a)];
    if (std::find(va.begin(), va.end(), b) != va.end()) {
      return host::Error::InvalidArgument("pp_admm.edges: " + edge +
                                          " is listed twice");
    }
    va.push_back(b);
    g.neighbours_[static_cast<size_t>(b)].push_back(a);
  }
  // Connected: a breadth-first search from node 0 reaches every node.
  std::vector<bool> seen(static_cast<size_t>(n), false);
  std::vector<int64_t> queue = {0};
  seen[0] = true;
  for (size_t k = 0; k < queue.size(); ++k) {
    for (int64_t j : g.neighbours_[static_cast<size_t>(queue[k])]) {
      if (!seen[static_cast<size_t>(j)]) {
        seen[static_cast<size_t>(j)] = true;
        queue.push_back(j);
      }
    }
  }
  if (static_cast<int64_t>(queue.size()) != n) {
    return host::Error::InvalidArgument(
        "pp_admm.edges: the graph is not connected (" +
        std::to_string(queue.size()) + " of " + std::to_string(n) +
        " nodes reachable from node 0)");
  }
  for (auto& v : g.neighbours_) std::sort(v.begin(), v.end());
  g.complete_ = 2 * static_cast<int64_t>(c.edges.size()) == n * (n - 1);
  return g;
}

int64_t VirtualGraph::min_degree() const {
  int64_t least = std::numeric_limits<int64_t>::max();
  for (const auto& v : neighbours_) {
    least = std::min<int64_t>(least, static_cast<int64_t>(v.size()));
  }
  return neighbours_.empty() ? 0 : least;
}

double PpCurvatureBound(jobs::Loss loss) {
  switch (loss) {
    case jobs::Loss::kLogistic:
      return 0.25;
    case jobs::Loss::kSquared:
      return -1;
  }
  return -1;
}

host::Error ValidatePpAdmm(const jobs::JobConfig& config) {
  const jobs::PpAdmmConfig& c = config.pp_admm;
  if (config.dimension < 1) {
    return host::Error::InvalidArgument("job.dimension: must be >= 1");
  }
  if (config.rounds < 1) {
    return host::Error::InvalidArgument("job.rounds: must be >= 1");
  }
  const double c1 = PpCurvatureBound(config.loss);
  if (!(c1 > 0)) {
    return host::Error::InvalidArgument(
        "job.loss: pp-admm needs a loss with |L'| <= 1 and bounded L'' "
        "(paper 001 Assumption 4): logistic");
  }
  if (!Positive(c.loss_weight)) {
    return host::Error::InvalidArgument(
        "pp_admm.loss_weight: C must be finite and > 0");
  }
  if (!Positive(c.reg_weight)) {
    return host::Error::InvalidArgument(
        "pp_admm.reg_weight: rho must be finite and > 0");
  }
  if (!Positive(c.theta)) {
    return host::Error::InvalidArgument(
        "pp_admm.theta: must be finite and > 0");
  }
  if (c.min_samples < 1) {
    return host::Error::InvalidArgument(
        "pp_admm.min_samples: must be >= 1 (the smallest B_i of any node)");
  }
  if (c.loss_weight > static_cast<double>(c.min_samples)) {
    return host::Error::InvalidArgument(
        "pp_admm.loss_weight: C must be <= min_samples (C <= B_i)");
  }
  host::ErrorOr<VirtualGraph> graph = VirtualGraph::Build(c);
  if (!graph.ok()) return graph.error();
  const int64_t v_min = graph->min_degree();
  const Status theta = CheckPpThetaCondition(
      c1, c.loss_weight, static_cast<uint64_t>(c.min_samples), c.reg_weight,
      static_cast<uint32_t>(std::min<int64_t>(c.nodes, UINT32_MAX)), c.theta,
      static_cast<uint32_t>(std::min<int64_t>(v_min, UINT32_MAX)));
  if (!theta.ok()) {
    return host::Error(
        theta.code(),
        "pp_admm.theta: the privacy condition 2*c1 < (B_i/C)(rho/N + "
        "2*theta*V_i) fails at B_i = " +
            std::to_string(c.min_samples) + ", V_i = " + std::to_string(v_min) +
            " (paper 001, Alg. 1)");
  }
  return host::Error::Ok();
}

host::Error PpAdmmRelay::Init(const jobs::JobConfig& config) {
  initialized_ = false;
  host::Error valid = ValidatePpAdmm(config);
  if (!valid.ok()) return valid;
  host::ErrorOr<VirtualGraph> graph = VirtualGraph::Build(config.pp_admm);
  if (!graph.ok()) return graph.error();
  graph_ = std::move(graph).value();
  dimension_ = config.dimension;
  initialized_ = true;
  return host::Error::Ok();
}

Status PpAdmmRelay::CheckUploads(
    const std::vector<std::vector<double>>& uploads) const {
  if (static_cast<int64_t>(uploads.size()) != graph_.nodes()) {
    return Status::InvalidArgument();
  }
  for (const auto& f : uploads) {
    if (static_cast<int64_t>(f.size()) != dimension_) {
      return Status::InvalidArgument();
    }
    for (double x : f) {
      if (!std::isfinite(x)) return Status::InvalidArgument();
    }
  }
  return Status::Ok();
}

Status PpAdmmRelay::NeighbourSums(
    const std::vector<std::vector<double>>& uploads,
    std::vector<std::vector<double>>& sums) const {
  if (!initialized_) return Status::FailedPrecondition();
  EDGEADMM_TRY(CheckUploads(uploads));
  const size_t d = static_cast<size_t>(dimension_);
  std::vector<std::vector<double>> out(uploads.size(),
                                       std::vector<double>(d, 0.0));
  for (int64_t i = 0; i < graph_.nodes(); ++i) {
    auto& s = out[static_cast<size_t>(i)];
    for (int64_t j : graph_.neighbours(i)) {
      const auto& f = uploads[static_cast<size_t>(j)];
      for (size_t k = 0; k < d; ++k) s[k] += f[k];
    }
  }
  sums = std::move(out);
  return Status::Ok();
}

Status PpAdmmRelay::BroadcastSum(
    const std::vector<std::vector<double>>& uploads,
    std::vector<double>& total) const {
  if (!initialized_ || !graph_.complete()) return Status::FailedPrecondition();
  EDGEADMM_TRY(CheckUploads(uploads));
  std::vector<double> out(static_cast<size_t>(dimension_), 0.0);
  for (const auto& f : uploads) {
    for (size_t k = 0; k < out.size(); ++k) out[k] += f[k];
  }
  total = std::move(out);
  return Status::Ok();
}

namespace {
constexpr jobs::NameTable<jobs::VirtualGraphKind> kGraphs = {
    {"complete", jobs::VirtualGraphKind::kComplete},
    {"ring", jobs::VirtualGraphKind::kRing},
    {"edges", jobs::VirtualGraphKind::kEdgeList}};
constexpr jobs::NameTable<jobs::PpMode> kPpModes = {
    {"pp", jobs::PpMode::kPenaltyPerturbation},
    {"dvp", jobs::PpMode::kDualVariablePerturbation}};
}  // namespace

void PpAdmm::ReadTable(jobs::ConfigReader& r, jobs::JobConfig& config) const {
  jobs::PpAdmmConfig& c = config.pp_admm;
  r.Enum("pp_admm.graph", kGraphs, c.graph, false);
  r.Int("pp_admm.nodes", c.nodes, true);
  r.Edges("pp_admm.edges", c.edges);
  r.Double("pp_admm.theta", c.theta, true);
  r.Double("pp_admm.loss_weight", c.loss_weight, true);
  r.Double("pp_admm.reg_weight", c.reg_weight, true);
  r.Int("pp_admm.min_samples", c.min_samples, true);
  r.Enum("pp_admm.mode", kPpModes, c.mode, false);
  r.Bool("pp_admm.noise", c.noise, false);
  r.Int("pp_admm.barrier_retries", c.barrier_retries, false);
}

host::Error PpAdmm::Resolve(jobs::JobConfig& c) const {
  const int64_t n = c.pp_admm.nodes;
  // Every node every round: fixed sampling of all N, committed only whole.
  if (c.m != 0 && c.m != n) {
    return host::Error::InvalidArgument(
        "sampling.m: pp-admm samples every node (omit it or give "
        "pp_admm.nodes)");
  }
  if (c.m_min != 1 && c.m_min != n) {
    return host::Error::InvalidArgument(
        "sampling.m_min: pp-admm commits a round only with every node (omit "
        "it or give pp_admm.nodes)");
  }
  // The noise is the devices' own (paper 001's ε with density ∝
  // exp(−α||ε||)), accounted by P_i on the devices, not by the Gaussian
  // ledgers.
  return ResolveEveryoneWithoutGaussianNoise(
      c, n,
      "privacy.sigma: pp-admm's noise is each device's own penalty "
      "perturbation (paper 001); give neither sigma nor target_epsilon",
      "privacy: central_budget and device_budget do not apply to "
      "pp-admm (its privacy is the nodes' (epsilon, delta), reported "
      "by the devices); omit them or give inf");
}

host::Error PpAdmm::Validate(const jobs::JobConfig& c) const {
  EDGEADMM_HOST_TRY(RefuseProxAdmmOnlyOptions(c));
  if (c.regularizer.kind != RegularizerKind::kNone) {
    return host::Error::InvalidArgument(
        "regularizer.kind: pp-admm's regularizer is (rho/N)/2 ||f||^2 on "
        "every device; give pp_admm.reg_weight and kind = \"none\"");
  }
  EDGEADMM_HOST_TRY(ValidatePpAdmm(c));
  if (c.pp_admm.nodes > UINT32_MAX || c.rounds > UINT32_MAX) {
    return host::Error::InvalidArgument(
        "pp_admm.nodes and job.rounds: must be < 2^32");
  }
  if (c.pp_admm.barrier_retries < 0) {
    return host::Error::InvalidArgument(
        "pp_admm.barrier_retries: must be >= 0");
  }
  return host::Error::Ok();
}

void PpAdmm::FillTask(const jobs::JobConfig& c, int64_t /*n*/,
                      int64_t iteration, edgeadmm_wire_RoundTask& h) const {
  const jobs::PpAdmmConfig& pp = c.pp_admm;
  h.algorithm = edgeadmm_wire_Algorithm_ALGORITHM_PENALTY_PERTURBATION;
  h.which_params = edgeadmm_wire_RoundTask_penalty_tag;
  edgeadmm_wire_PenaltyPerturbationParams& p = h.params.penalty;
  p.theta = pp.theta;
  p.reg_weight = pp.reg_weight;
  p.loss_weight = pp.loss_weight;
  // Round `iteration` (committed so far) computes f_i(iteration + 1).
  p.iteration = static_cast<uint32_t>(iteration + 1);
  p.nodes = static_cast<uint32_t>(pp.nodes);
  p.degree = static_cast<uint32_t>(pp.nodes - 1);
  p.dvp = pp.mode == jobs::PpMode::kDualVariablePerturbation;
  p.noiseless = !pp.noise;
  p.rounds = static_cast<uint32_t>(c.rounds);
}

Status PpAdmm::ApplyRound(const jobs::JobConfig& c, int64_t n,
                          const std::vector<std::vector<double>>& uploads,
                          RoundNoise& /*noise*/, ServerModel& model) const {
  // f̄(t+1) = (1/N) Σ_i f_i(t+1), F/N of PpAdmmRelay::BroadcastSum: the
  // barrier commits a round only with every node's upload.
  if (n != c.pp_admm.nodes || static_cast<int64_t>(uploads.size()) != n) {
    return Status::FailedPrecondition();
  }
  std::vector<double> total =
      SumUploads(uploads, static_cast<size_t>(c.dimension));
  for (double& x : total) x /= static_cast<double>(n);
  model.z = std::move(total);
  return Status::Ok();
}

void PpAdmm::NodeTaskVector(
    const jobs::JobConfig& c, int64_t node,
    const std::vector<std::vector<double>>& last_uploads,
    std::vector<double>& vector) const {
  vector.assign(static_cast<size_t>(c.dimension), 0.0);
  host::ErrorOr<VirtualGraph> graph = VirtualGraph::Build(c.pp_admm);
  if (!graph.ok() || node < 0 || node >= graph->nodes()) return;
  for (int64_t j : graph->neighbours(node)) {
    const size_t at = static_cast<size_t>(j);
    if (at >= last_uploads.size()) continue;
    const std::vector<double>& f = last_uploads[at];
    for (size_t k = 0; k < f.size() && k < vector.size(); ++k) {
      vector[k] += f[k];
    }
  }
}

void PpAdmm::FillNodeTask(const jobs::JobConfig& c, int64_t node,
                          edgeadmm_wire_RoundTask& h) const {
  host::ErrorOr<VirtualGraph> graph = VirtualGraph::Build(c.pp_admm);
  if (!graph.ok() || node < 0 || node >= graph->nodes()) return;
  h.params.penalty.degree = static_cast<uint32_t>(graph->degree(node));
  h.params.penalty.neighbour_sum = true;
}

const char* PpLossExtra::Refusal(const jobs::JobConfig& /*config*/,
                                 int64_t /*iteration*/,
                                 const std::vector<uint8_t>& extra) const {
  double epsilon = 0, delta = 0;
  if (extra.empty() ||
      DecodePpLossExtra(extra.data(), extra.size(), &epsilon, &delta)) {
    return nullptr;
  }
  return "algorithm_extra of pp-admm: 16 bytes, (epsilon, delta)";
}

bool PpLossExtra::Stores(const jobs::JobConfig& config,
                         int64_t iteration) const {
  return iteration + 1 == config.rounds;
}

ReportSection PpLossExtra::Report(
    const jobs::JobConfig& config,
    const std::vector<std::vector<uint8_t>>& stored) const {
  int64_t reported = 0;
  double max_epsilon = 0, max_delta = 0;
  for (const std::vector<uint8_t>& extra : stored) {
    double epsilon = 0, delta = 0;
    if (!DecodePpLossExtra(extra.data(), extra.size(), &epsilon, &delta) ||
        epsilon <= 0) {
      continue;  // 0: not reported
    }
    ++reported;
    max_epsilon = std::max(max_epsilon, epsilon);
    max_delta = std::max(max_delta, delta);
  }
  const long long nodes = static_cast<long long>(config.pp_admm.nodes);
  ReportSection section;
  section.key = "pp_loss";
  char epsilon_text[40], delta_text[40];
  std::snprintf(epsilon_text, sizeof epsilon_text, "%.17g", max_epsilon);
  std::snprintf(delta_text, sizeof delta_text, "%.17g", max_delta);
  section.json = std::string("{\"epsilon\": ") + epsilon_text +
                 ", \"delta\": " + delta_text +
                 ", \"reported\": " + std::to_string(reported) +
                 ", \"nodes\": " + std::to_string(nodes) + ", \"meaning\": \"" +
                 kPpLossLabel + "\"}";
  // The Gaussian ledgers do not apply to pp-admm (inf); its privacy is
  // this pair.
  if (reported == 0) {
    section.text =
        "pp-admm privacy: not reported yet (nodes report (epsilon, delta) "
        "only with the last iteration)\n";
    return section;
  }
  char text[160];
  std::snprintf(text, sizeof text,
                "pp-admm privacy: max_i epsilon_i = %.6g, max_i delta_i = "
                "%.3g from %lld of %lld nodes\n",
                max_epsilon, max_delta, static_cast<long long>(reported),
                nodes);
  section.text = std::string(text) + "  that is: " + kPpLossLabel + "\n";
  return section;
}

const UploadExtra* PpAdmm::upload_extra() const {
  static const PpLossExtra extra;
  return &extra;
}

}  // namespace edgeadmm::algorithms
