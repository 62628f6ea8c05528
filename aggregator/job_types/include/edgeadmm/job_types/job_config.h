// JobConfig: what one training job runs, as plain values (the job's common
// settings and each algorithm's table). The unit below the algorithms: they
// read a JobConfig, and the jobs unit above them parses and validates one
// from TOML (edgeadmm/jobs/job_config.h, which shows every table and key;
// docs/aggregator.md documents them). Types only, no code.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "edgeadmm/algorithm.h"
#include "edgeadmm/dataio/dataset_source.h"
#include "edgeadmm/privacy/policy.h"
#include "edgeadmm/regularizer.h"

namespace edgeadmm::jobs {

enum class Loss { kLogistic, kSquared };
// Paper 004's step-size schedules (linearized_admm_step.h).
enum class DpAdmmSchedule { kSmooth, kConvex };

// Paper 004 (dp-admm) settings, the [dp_admm] table. S1 is privacy.clip
// (every per-example gradient is clipped to it, Lemma 1); the regularizer
// is the job's, applied on the devices (λ/N = 1 in paper 004's split).
struct DpAdmmConfig {
  DpAdmmSchedule schedule = DpAdmmSchedule::kSmooth;
  double d_w = 1.0;  // D_w > 0, bound on ||w*||
  double s2 = -1.0;  // ||r'|| bound; < 0: l1·sqrt(p) or l2·D_w
  double s3 = -1.0;  // ||∇²ℓ|| bound; < 0: 1/4 logistic, 1 squared
  double s4 = -1.0;  // ||∇²r|| bound; < 0: l2
  double step_epsilon = 0.0;  // per-iteration ε ∈ (0, 1] (Thm 1)
  double step_delta = -1.0;   // per-iteration δ ∈ (0, 1); < 0: privacy.delta
  int64_t max_records = 0;    // m_max >= 1: no device holds more records
  bool noise = true;          // false: the non-private linearized baseline
};

// Paper 001 (pp-admm) settings, the [pp_admm] table: the virtual peer graph
// the gateway relays over, the public constants of the θ condition
// (algorithms/pp_admm.h) and the barrier's retry count. The penalty schedule
// η_i(t) and the noise schedule α_i(t) stay on the devices and are not part
// of the job. The complete graph has one broadcast reply (the mean f̄); a
// ring or an edge list one per node (its own S_i).
enum class VirtualGraphKind { kComplete, kRing, kEdgeList };
// pp: the devices' private growing penalty; dvp: η_i(t) ≡ θ (the baseline).
enum class PpMode { kPenaltyPerturbation, kDualVariablePerturbation };
struct PpAdmmConfig {
  VirtualGraphKind graph = VirtualGraphKind::kComplete;
  int64_t nodes = 0;  // N >= 2 (kRing: N >= 3)
  // kEdgeList only: undirected edges {i, j}, 0 <= i, j < N, i != j, each
  // listed once; the graph must be connected.
  std::vector<std::pair<int64_t, int64_t>> edges;
  double loss_weight = 1.0;  // C > 0, C <= every B_i
  double reg_weight = 1.0;   // ρ > 0, weight of ½||f||² in the ERM objective
  double theta = 0.5;        // dual step θ > 0
  int64_t min_samples = 0;   // B_min >= 1: no node holds fewer records
  PpMode mode = PpMode::kPenaltyPerturbation;
  bool noise = true;  // false: the non-private M-ADMM baseline (no P_i)
  // Barrier: a round missing a node at its deadline is retried (same round
  // id, stored uploads kept) this many times, then the job fails.
  int64_t barrier_retries = 2;
};
// Papers 000/003 (ADMM sharing over distributed features) settings, the
// [admm_sharing] table of job "admm-sharing" (algorithms/admm_sharing.h,
// docs/aggregator.md "admm-sharing"). Party m is the m-th
// enrolled device by id and holds columns [Σ_{k<m} columns[k], + columns[m])
// of the same `records` records; the gateway holds their labels.
enum class SharingNoiseMode { kNone, kPaper, kRigorous };
// The scoring phase's release of the partial scores (docs/privacy.md,
// "admm-sharing: the partial scores"): Gaussian noise charged to the
// devices' ledgers, or exact (uncovered, the operator's explicit choice).
enum class SharingScoreNoise { kGaussian = 1, kExact = 2 };
struct AdmmSharingConfig {
  int64_t parties = 0;           // M >= 2 (= enrolled devices)
  std::vector<int64_t> columns;  // d_m >= 1 per party; Σ = job.dimension
  int64_t records = 0;           // N: the first N records of every party
  double rho = 0.0;              // ρ > 0 (in the units of c·l, c = 1/N)
  double lambda = 0.0;           // λ > 0 of (λ/2)||x_m||²
  std::string labels;            // gateway-held LIBSVM file: first N labels
  SharingNoiseMode noise = SharingNoiseMode::kNone;
  // kRigorous: N(0, σ²I_N) on every released share, clipped on the device
  // to ||D_m x̃_m||₂ ≤ share_clip C, so Δ = 2C is the L2 sensitivity under
  // any change of the party's data (algorithms::SharingShareSensitivity;
  // docs/privacy.md, "Bounded shares"). `sensitivity`, if given, must be
  // 2C (or, alone, sets C = Δ/2: the device enforces it either way).
  double sigma = 0.0;
  double sensitivity = 0.0;
  double share_clip = 0.0;
  // kPaper: Lemma 1's C given (> 0), or derived from (b1, c1) per party:
  // C_m = 3/(d_m ρ)·(λ c1 + (1 + Mρ) b1) — heuristic (digest A8.4).
  double paper_c = 0.0;
  double paper_b1 = 0.0;
  double paper_c1 = 0.0;
  double target_epsilon = 0.0;  // kPaper: ε' over job.rounds (Cor. 1)
  double target_delta = 0.0;    // kPaper: Tδ + δ' in (0, 1)
  int64_t barrier_retries = 2;
  // Scoring phase (0 test records: none): in the last round every party
  // appends its partial scores D_test,m x̃_m(T) of the first test_records
  // records of the test set (its column block, aligned by record id) and
  // the gateway scores their sums against the first test_records labels
  // of `test_labels` (a LIBSVM file it holds).
  std::string test_labels;
  int64_t test_records = 0;
  SharingScoreNoise score_noise = SharingScoreNoise::kGaussian;
  bool score_noise_given = false;  // score_noise must be chosen explicitly
  double score_sigma = 0.0;        // kGaussian: σ_s > 0 per partial score
  double score_sensitivity = 0.0;  // kGaussian: Δ_s = 2·score_clip
  double score_clip = 0.0;  // kGaussian: C_s, ||D_test,m x̃_m||₂ ≤ C_s
};
enum class SamplingScheme { kPoisson, kFixed };

// [secure_aggregation]: the SecAgg+ round of a job under privacy.policy
// "secure-aggregation" (docs/aggregator.md; the noise and the modulus are
// chosen from the job's target epsilon: secure_aggregation/ddg_parameters.h).
struct SecureAggregationConfig {
  int64_t neighbours = 0;     // k of the masking graph; 0: chosen from m
  int64_t dropouts = 0;       // D: the round aborts below m - D survivors
  int64_t max_bits = 32;      // the modulus 2^b, b <= max_bits
  double log2_wrap = -40;     // per round, P(the sum wraps) <= 2^log2_wrap
  double phase_seconds = 10;  // each phase's deadline
};

// How the central ledgers' ε is computed (docs/privacy.md, "The job's
// accountant"): PLD of the charged schedule (never above RDP), or RDP with
// the improved conversion. Local ledgers always use RDP, as devices do.
enum class CentralAccountant { kPld, kRdp };
// Whose data the validation set is (docs/privacy.md, "Model selection"):
// only operator data held by the gateway may choose among released models.
enum class ValidationHolder { kGateway, kDevices };
// The parsed table of an algorithm unit that keeps its parameters to itself
// (Algorithm::ReadTable creates it, the same unit reads it back): the
// generic layers copy it and never look inside.
class AlgorithmTable {
 public:
  virtual ~AlgorithmTable() = default;
};

// What "best" means: higher accuracy, or lower mean loss / objective.
enum class SelectionMetric { kAccuracy, kLoss, kObjective };
// The model a job releases by default (`edgeadmm job export`).
enum class ReleaseChoice { kBest, kLast };

struct JobConfig {
  std::string name;
  // One of the algorithms aggregator/algorithms serves (registry.h).
  AlgorithmKind algorithm = AlgorithmKind::kProxAdmm;
  Loss loss = Loss::kLogistic;
  int64_t dimension = 0;  // p
  int64_t rounds = 0;     // K, committed rounds to run
  // The job enrols the devices enabled at its creation whose id begins
  // with this ("" = every enabled device); fixed for the job after that.
  std::string device_prefix;

  // r(w) = l1·||w||₁ + (l2/2)·||w||₂², its prox applied by the server (002).
  Regularizer regularizer;

  double lambda = 1.0;      // λ (002) / λ of the regularizer split (004)
  double gamma = 1.0;       // γ, the prox step (002) or SGD step
  double rho = 1.0;         // ρ (004)
  int64_t local_steps = 1;  // E, local gradient steps per round (dp-sgd)
  DpAdmmConfig dp_admm;     // dp-admm only
  PpAdmmConfig pp_admm;     // pp-admm only
  AdmmSharingConfig admm_sharing;  // admm-sharing only
  // Null unless the algorithm's unit stores its table here.
  std::shared_ptr<const AlgorithmTable> algorithm_table;

  // participation, participation-own-noise, trusted-aggregator or
  // secure-aggregation (local-dp is the devices' own ledger, charged under
  // every policy).
  privacy::Policy policy = privacy::Policy::kParticipation;
  SecureAggregationConfig secure_aggregation;  // secure-aggregation only
  // Sent to devices in every task (FederatedAdmmParams.noise_in_state): true
  // lets a device add its noise to its persisted u_i as paper 002 prints it.
  // `participation` is proven only for false and refuses true.
  bool noise_in_state = false;
  double clip = 1.0;             // C
  double sigma = -1.0;           // σ; < 0 until resolved from the target
  double target_epsilon = -1.0;  // > 0 when σ is to be planned
  double delta = 1e-5;
  // t: how many devices of a round's cohort may pool their own noises
  // against the others (each knows its own). `participation` charges the
  // noise of m_k - t uploads and needs m_min > t to plan σ (docs/privacy.md,
  // "Colluding devices"); 0 trusts every device of the cohort not to observe.
  int64_t max_colluders = 1;
  CentralAccountant accountant = CentralAccountant::kPld;
  // ε; inf (TOML `inf`) only in an audit job (`audit`).
  double central_budget = 0.0;
  // The job is a measurement (an audit, a non-private baseline): its
  // central ledgers may have no cap (central_budget = inf), and its status
  // and export say so.
  bool audit = false;
  double device_budget = 0.0;  // ε; may be inf

  SamplingScheme sampling = SamplingScheme::kPoisson;
  double q = 0.0;     // Poisson rate
  int64_t m = 0;      // fixed cohort size
  int64_t m_min = 1;  // smallest committed round
  double deadline_seconds = 0.0;
  // Reproducible cohorts for tests and reference runs; 0 = kernel CSPRNG.
  uint64_t sampling_seed = 0;

  std::string validation_data;  // empty: no validation metrics
  // How the gateway loads it (dataio/include/edgeadmm/dataio/dataset_source.h):
  // the devices must load their data with the same format and normalization.
  DataFormat validation_format = DataFormat::kLibsvm;
  RowNormalization validation_normalize = RowNormalization::kNone;
  ValidationHolder validation_held_by = ValidationHolder::kGateway;
  // Default: accuracy for logistic jobs, objective for squared loss.
  SelectionMetric selection_metric = SelectionMetric::kAccuracy;
  // Default: best with gateway-held validation data, else last.
  ReleaseChoice release = ReleaseChoice::kLast;
  // > 0: the job completes after this many committed rounds without a
  // better validation score (gateway-held data only); 0: off.
  int64_t early_stop_rounds = 0;

  bool noise_planned() const { return target_epsilon > 0; }
  // Under participation, a round of m_k <= max_colluders accepted uploads
  // hides a device behind its own noise alone (docs/privacy.md, "Colluding
  // devices"); true when m_min allows such rounds.
  bool rounds_may_be_colluders_only() const {
    return policy == privacy::Policy::kParticipation && m_min <= max_colluders;
  }
  // Validation on operator data may select among the released models.
  bool selects_on_validation() const {
    return !validation_data.empty() &&
           validation_held_by == ValidationHolder::kGateway;
  }
};

}  // namespace edgeadmm::jobs
