// admm-sharing (papers 000/003, Hu et al.; digest 000 part A) on the
// aggregator: the job checks of the [admm_sharing] table, the per-party
// privacy plan of both noise modes, the labels the gateway holds, one
// barrier round of the central node (eqs. 7, 8 through AdmmSharingServer,
// state persisted as (z, y)) and the gateway's scoring from the parties'
// partial scores.
//
// The job algorithm "admm-sharing" (AdmmSharing, in the registry) serves it
// to Linux devices: barrier rounds (every party every round), the task to
// party m carries u_m = Σ_{k≠m} s_k − z (model) and y (auxiliary), N values
// each, the upload is its share s_m (N values); the released model vector
// is the broadcast (v, y) (2N values) and the server state (z, y).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "edgeadmm/algorithms/admm_sharing_ledger.h"
#include "edgeadmm/algorithms/algorithm.h"
#include "edgeadmm/host/error.h"
#include "edgeadmm/job_types/job_config.h"
#include "edgeadmm/status.h"

namespace edgeadmm::algorithms {

// Loss weight c of l(z) = c·Σ_i log(1 + e^{−Y_i z_i}): c = 1/N keeps the
// paper's (1/N)Σ_i l_i + λR (digest A1).
double SharingLossWeight(const jobs::AdmmSharingConfig& config);

// The job checks, INVALID_ARGUMENT naming the key: a logistic loss,
// job.rounds >= 1, parties >= 2, one column count >= 1 per party summing to
// job.dimension, records in [1, EDGEADMM_CFG_MAX_RECORD_DIMENSION] (the wire
// limit: the task's v and y and the upload are N-vectors), ρ and λ finite and >
// 0, a labels path, barrier_retries >= 0, and per noise mode: none (no noise
// keys), rigorous (sigma finite and > 0, share_clip C finite and > 0 or,
// alone, sensitivity Δ > 0 meaning C = Δ/2; both given: Δ = 2C or refused),
// gaussian scores likewise (score_clip, score_sensitivity), paper (C > 0 or
// b1, c1 > 0; target_epsilon > 0 and target_delta in (0, 1), planned with
// Paper000PlanStepEpsilon: a per-iteration ε above 1 is refused).
host::Error ValidateAdmmSharing(const jobs::JobConfig& config);

// Reads the [admm_sharing] table (every key typed; parties, columns,
// records, rho, lambda, labels and noise required); the checks are
// ValidateAdmmSharing's.
void ReadAdmmSharingTable(jobs::ConfigReader& reader,
                          jobs::AdmmSharingConfig& out);

// What one party's ledger reports (docs/privacy.md, "admm-sharing").
struct SharingPartyPrivacy {
  int64_t party = 0;
  int64_t first_column = 0;  // 0-based, in the full feature order
  int64_t columns = 0;
  jobs::SharingNoiseMode mode = jobs::SharingNoiseMode::kNone;
  double sigma = 0;  // σ sent to the party (paper: of ξ; rigorous: share)
  double sensitivity = 0;   // paper: C_m (Lemma 1, heuristic); rigorous:
                            // Δ = 2·share_clip (derived, device-enforced)
  double step_epsilon = 0;  // paper: per iteration; rigorous: 0
  double step_delta = 0;    // paper: per iteration; rigorous: 0
  double epsilon = 0;       // over job.rounds iterations; inf for none
  double delta = 0;         // paper: Tδ + δ'; rigorous: the job's target
  std::string relation;     // the neighbouring relation
  std::string conversion;   // how ε was obtained
  // The scoring phase's release (test_records > 0): "none", "gaussian"
  // (σ_s, Δ_s; in rigorous mode `epsilon` composes it with the T shares)
  // or "exact" (uncovered: score_epsilon inf).
  std::string score_release = "none";
  double score_sigma = 0;
  double score_sensitivity = 0;
  double score_epsilon = 0;  // the score release alone, at `delta`
};

// The plan of every party (ValidateAdmmSharing's errors). For rigorous mode
// the T releases are the Gaussian mechanism with L2 sensitivity Δ: RDP
// α·TΔ²/(2σ²), i.e. ρ-zCDP with ρ = TΔ²/(2σ²), converted by
// ε = ρ + 2√(ρ ln(1/δ)) at δ = SharingDelta.
host::ErrorOr<std::vector<SharingPartyPrivacy>> PlanSharingPrivacy(
    const jobs::JobConfig& config);

// Every party's planned privacy (column block, noise mode, σ, sensitivity,
// ε, δ, neighbouring relation, conversion) as JSON, the job reports' plan
// section (AdmmSharing::PlanSection); "null" for an invalid plan.
std::string SharingPlanJson(const jobs::JobConfig& config);

// The first `records` labels of the gateway's LIBSVM file (read with the
// job's dimension), each ±1. INVALID_ARGUMENT naming admm_sharing.labels
// for an unreadable file or fewer records.
host::ErrorOr<std::vector<double>> LoadSharingLabels(
    const jobs::JobConfig& config);
// The scoring phase's: the first test_records labels of test_labels
// (INVALID_ARGUMENT naming admm_sharing.test_labels).
host::ErrorOr<std::vector<double>> LoadSharingTestLabels(
    const jobs::JobConfig& config);

// The central node's persisted state and its broadcast.
struct SharingState {
  std::vector<double> z;  // N
  std::vector<double> y;  // N
};
struct SharingBroadcast {
  std::vector<double> v;  // Σ_m s_m − z (the task's model)
  std::vector<double> y;  // y (the task's auxiliary vector)
};

// One committed barrier round: exactly M shares (party order), each N long
// and finite; `state` advances by eqs. (7), (8) (AdmmSharingServer) and
// `broadcast` is what every party's next task carries. INVALID_ARGUMENT
// (state unchanged) for a missing share, a wrong length or a non-finite
// value; `state` empty means x = y = z = 0 (the first round).
Status ApplySharingRound(const jobs::JobConfig& config,
                         const std::vector<double>& labels,
                         const std::vector<std::vector<double>>& shares,
                         SharingState& state, SharingBroadcast& broadcast);

// The gateway's prediction: the parties' partial scores D_m^test x̃_m (one
// vector per party, each as long as `labels`) summed into margins.
struct SharingScore {
  double log_loss = 0;  // mean log(1 + e^{−Y_i t_i})
  double accuracy = 0;  // fraction with Y_i t_i > 0
};
host::ErrorOr<SharingScore> ScorePartialSums(
    const std::vector<std::vector<double>>& partial_scores,
    const std::vector<double>& labels);

// The last round of a job with a scoring phase: each upload is the share
// (N) followed by the partial scores (K = test_records). Splits them,
// applies the round (ApplySharingRound) and scores the sums against
// `test_labels` (K). INVALID_ARGUMENT (state unchanged) for a wrong length
// or a non-finite value.
Status ApplyScoredSharingRound(const jobs::JobConfig& config,
                               const std::vector<double>& labels,
                               const std::vector<double>& test_labels,
                               const std::vector<std::vector<double>>& uploads,
                               SharingState& state, SharingBroadcast& broadcast,
                               SharingScore& score);

// The job algorithm "admm-sharing": one round = one Jacobi iteration of
// every party (barrier). Party m is the m-th enrolled device by id.
class AdmmSharing final : public Algorithm,
                          public BarrierRounds,
                          public NodeTasks,
                          public PartyPrivacy,
                          public ReportSections {
 public:
  AlgorithmKind kind() const override { return AlgorithmKind::kAdmmSharing; }
  const char* name() const override { return "admm-sharing"; }
  RequiredStepKeys required_step_keys() const override { return {}; }
  const char* table() const override { return "admm_sharing"; }
  void ReadTable(jobs::ConfigReader& reader,
                 jobs::JobConfig& config) const override {
    ReadAdmmSharingTable(reader, config.admm_sharing);
  }
  bool takes_gaussian_keys() const override { return false; }
  // Fixed sampling of every party (m = m_min = M), σ = 0 and infinite
  // Gaussian budgets (the parties' noise is the job's own, planned per
  // party: PlanSharingPrivacy); INVALID_ARGUMENT for keys that contradict it.
  host::Error Resolve(jobs::JobConfig& config) const override;
  // ValidateAdmmSharing, the label file readable with N labels,
  // regularizer.kind none (λ is admm_sharing.lambda), no validation data
  // (the model is not one vector of p), M and N below 2^32.
  host::Error Validate(const jobs::JobConfig& config) const override;
  void FillTask(const jobs::JobConfig& config, int64_t n, int64_t iteration,
                edgeadmm_wire_RoundTask& task) const override;
  edgeadmm_wire_UpdateKind update_kind() const override {
    return edgeadmm_wire_UpdateKind_UPDATE_KIND_SHARE;
  }
  int64_t ModelLength(const jobs::JobConfig& config) const override {
    return 2 * config.admm_sharing.records;
  }
  int64_t TaskAuxiliaryLength(const jobs::JobConfig& config) const override {
    return config.admm_sharing.records;
  }
  int64_t UploadLength(const jobs::JobConfig& config) const override {
    return config.admm_sharing.records;
  }
  // The scoring phase (test_records = K > 0): the last round's upload is
  // the share followed by the K partial scores (SHARE_AND_SCORES).
  int64_t UploadLengthAt(const jobs::JobConfig& config,
                         int64_t iteration) const override;
  edgeadmm_wire_UpdateKind UpdateKindAt(const jobs::JobConfig& config,
                                        int64_t iteration) const override;
  int64_t MaxUploadLength(const jobs::JobConfig& config) const override {
    return config.admm_sharing.records + config.admm_sharing.test_records;
  }
  // Exactly M shares (the barrier) in party order; labels read once per
  // file and N (cached). The last round of a job with a scoring phase: each
  // upload is N + K long; the shares advance (z, y) and the sums of the
  // partial scores are scored against the gateway's test labels
  // (model.test_score).
  Status ApplyRound(const jobs::JobConfig& config, int64_t n,
                    const std::vector<std::vector<double>>& uploads,
                    RoundNoise& noise, ServerModel& model) const override;
  double OwnNoiseMultiplier(const jobs::JobConfig& /*config*/) const override {
    return 0.0;
  }
  int64_t BarrierRetries(const jobs::JobConfig& config) const override {
    return config.admm_sharing.barrier_retries;
  }
  int64_t RequiredDevices(const jobs::JobConfig& config) const override {
    return config.admm_sharing.parties;
  }
  // A party cannot upload an acknowledged share again: it dropped it, a
  // rigorous party cannot redraw its noise (a fresh draw would be a second
  // release) and it refuses an iteration it already computed. So a restart
  // resumes the open round with the stored shares.
  bool ResumesOpenRound(const jobs::JobConfig& /*config*/) const override {
    return true;
  }
  // Each party's task: u_m = v − s_m (its own last released share taken
  // out, so a rigorous party needs no copy of it) and y; its column block
  // and σ_m in its params.
  bool PerNodeTasks(const jobs::JobConfig& /*config*/) const override {
    return true;
  }
  void NodeTaskVector(const jobs::JobConfig& config, int64_t node,
                      const std::vector<std::vector<double>>& last_uploads,
                      std::vector<double>& vector) const override;
  void FillNodeTask(const jobs::JobConfig& config, int64_t node,
                    edgeadmm_wire_RoundTask& task) const override;
  bool ReleasesModelToDevices() const override { return false; }
  const BarrierRounds* barrier_rounds() const override { return this; }
  const NodeTasks* node_tasks() const override { return this; }
  const PartyPrivacy* party_privacy() const override { return this; }
  bool PartyMechanism(const jobs::JobConfig& config, int64_t iteration,
                      double& noise_multiplier) const override {
    return SharingPartyMechanism(config, iteration, noise_multiplier);
  }
  double PartyDelta(const jobs::JobConfig& config) const override {
    return SharingDelta(config);
  }
  PartyLedgerMeaning DescribePartyLedger(
      const jobs::JobConfig& config) const override {
    return DescribeSharingLedger(config);
  }
  const ReportSections* report_sections() const override { return this; }
  // Key "admm_sharing": SharingPlanJson, at job creation for job.rounds
  // iterations.
  ReportSection PlanSection(const jobs::JobConfig& config) const override;
  // The scoring phase's: the sum of the parties' partial scores.
  const char* TestScoreMeaning() const override;
};

}  // namespace edgeadmm::algorithms
