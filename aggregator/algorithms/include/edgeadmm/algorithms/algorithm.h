// Algorithm: everything the aggregator knows about one job algorithm, in one
// unit per algorithm listed by registry.h. The round engine, the job parser
// and the request handler call through this interface. What only some
// algorithms have is a capability of its own, returned by a getter that is
// null when the algorithm lacks it: UploadExtra (its uploads' own bytes,
// opaque to the generic layers), BarrierRounds, NodeTasks, PartyPrivacy,
// ParticipationCharge and ReportSections (its own parts of the job
// reports); admm-sharing's shares and scores still cross the
// generic layers as vectors (issue 30 item 1). docs/aggregator.md, "Adding
// an algorithm". The device side is sdk/src/steps/<name>_task.cc.
#pragma once

#include <edgeadmm.pb.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "edgeadmm/algorithm.h"
#include "edgeadmm/host/error.h"
#include "edgeadmm/host/upload_bound.h"
#include "edgeadmm/job_types/config_reader.h"
#include "edgeadmm/job_types/job_config.h"
#include "edgeadmm/privacy/ledger_meaning.h"
#include "edgeadmm/result.h"

namespace edgeadmm::algorithms {

// The server's model state, persisted per iteration.
// The gateway's score of a model on its test records, from the round's
// uploads (admm-sharing's scoring phase: the sum of the parties' partial
// scores against the gateway's test labels); records = 0: none.
struct TestScore {
  int64_t records = 0;
  double log_loss = 0;  // mean log(1 + e^{−Y_i t_i})
  double accuracy = 0;  // fraction with Y_i t_i > 0
};

// The server's model state, persisted per iteration.
struct ServerModel {
  std::vector<double> z;      // released model (z for 002, w for 004)
  std::vector<double> state;  // ŝ = (1/n)Σ_i u_i for 002; unused otherwise
  // Set by ApplyRound when the round's uploads carried test scores; stored
  // with the model (models.test_*).
  TestScore test_score;
};

// Gaussian noise for a server update (trusted-aggregator, dp-ftrl): v on
// the grid g = std·2^-kNoiseGridBits plus g·N_Z(0, 4^kNoiseGridBits), the
// exact discrete Gaussian of std `std` (sum_grid.h; the gateway's
// rounds::SamplingRng).
class RoundNoise {
 public:
  virtual Status AddNoise(double stddev, std::vector<double>& v) = 0;

 protected:
  ~RoundNoise() = default;
};

// A section of the job reports (job status, job ledger, job export) that
// an algorithm renders from its own stored data; empty key: none.
struct ReportSection {
  std::string key;   // the export's JSON key
  std::string json;  // its value (a JSON object)
  std::string text;  // the lines job status and job ledger print
};

// Capability of an algorithm whose uploads carry bytes of its own
// (Update.algorithm_extra, at most wire::kMaxAlgorithmExtraBytes): the
// generic layers copy and store them (uploads.extra) without reading them;
// this decodes them, with the algorithm's own checks, and reports on them.
class UploadExtra {
 public:
  // Null when `extra` is acceptable with an upload of the round after
  // `iteration` committed rounds (empty: none sent), else why not: the
  // request handler's 4.00 refusal message.
  virtual const char* Refusal(const jobs::JobConfig& config, int64_t iteration,
                              const std::vector<uint8_t>& extra) const = 0;
  // Whether an accepted upload's extra of that round is stored; one that
  // is not is dropped (the upload is accepted).
  virtual bool Stores(const jobs::JobConfig& config,
                      int64_t iteration) const = 0;
  // The job's report section from every extra stored for it (each one
  // Refusal accepted), in any order.
  virtual ReportSection Report(
      const jobs::JobConfig& config,
      const std::vector<std::vector<uint8_t>>& stored) const = 0;

 protected:
  ~UploadExtra() = default;
};

// The step.* keys a job of this algorithm must give.
struct RequiredStepKeys {
  bool lambda = false;
  bool gamma = false;
  bool rho = false;
};

// Capability of an algorithm whose rounds are barriers (pp-admm,
// admm-sharing): every enrolled device is in every round, a round commits
// only with all of them, and a round short of uploads at its deadline is
// retried (same round id, uploads kept) BarrierRetries times before the
// job fails (rounds::RoundEngine).
class BarrierRounds {
 public:
  virtual ~BarrierRounds() = default;
  virtual int64_t BarrierRetries(const jobs::JobConfig& config) const = 0;
  // Whether the open round survives a restart. Every accepted upload is then
  // written to the store (uploads table, with its local ledger row, in one
  // transaction) before its receipt goes out, and a restarted engine
  // resumes the open round under its id with them; a discarded round's
  // uploads are deleted (docs/aggregator.md, "A restart loses nothing").
  // False: the open round is kept in memory and lost with the process.
  virtual bool ResumesOpenRound(const jobs::JobConfig& /*config*/) const {
    return false;
  }
  // The enrolled device count the job needs (pp-admm: its N nodes); 0: any.
  virtual int64_t RequiredDevices(const jobs::JobConfig& /*config*/) const {
    return 0;
  }
};

// Capability of an algorithm whose devices may each get a task vector of
// their own instead of the released model (pp-admm on a ring or an edge
// list: its neighbour sum; admm-sharing: the party's block); the engine
// then keeps the last committed round's uploads by device.
class NodeTasks {
 public:
  virtual ~NodeTasks() = default;
  // Whether this job's tasks are per node.
  virtual bool PerNodeTasks(const jobs::JobConfig& config) const = 0;
  // The task vector of node `node` (the device's index in the job's device
  // order, sorted by id) from the last committed uploads by node (all
  // empty before the first commit).
  virtual void NodeTaskVector(
      const jobs::JobConfig& config, int64_t node,
      const std::vector<std::vector<double>>& last_uploads,
      std::vector<double>& vector) const = 0;
  // The node's own task parameters, after Algorithm::FillTask.
  virtual void FillNodeTask(const jobs::JobConfig& config, int64_t node,
                            edgeadmm_wire_RoundTask& task) const = 0;
};

// The labels of a per-party ε (PartyPrivacy::DescribePartyLedger).
struct PartyLedgerMeaning {
  std::string status;     // charged, or why +inf
  std::string mechanism;  // per accepted upload, with the ratios
  std::string relation;   // neighbouring relation
  std::string conversion;
  std::string observer;
  double delta = 0;  // PartyDelta
};

// Capability of an algorithm whose privacy is per party
// (admm-sharing: rounds::PartyLedger, scope "party:<id>").
class PartyPrivacy {
 public:
  virtual ~PartyPrivacy() = default;
  // The Gaussian that a device's upload computing iteration `iteration`
  // (1-based) releases, as ν = noise std / sensitivity (ν = 0: a release no
  // Gaussian covers, +inf), or false when the gateway does not charge it (a
  // mode whose claim is not a Gaussian on the upload).
  virtual bool PartyMechanism(const jobs::JobConfig& config, int64_t iteration,
                              double& noise_multiplier) const = 0;
  // The δ the per-party ε is stated at (default privacy.delta).
  virtual double PartyDelta(const jobs::JobConfig& config) const {
    return config.delta;
  }
  // What the per-party ε means (the job reports' labels).
  virtual PartyLedgerMeaning DescribePartyLedger(
      const jobs::JobConfig& config) const = 0;
};

// Capability of an algorithm whose job reports (job status, job ledger, job
// export) carry what only it can say about a job: a section rendered from
// the job's config alone (its privacy plan, say) and what the gateway's test
// score of its models (ServerModel::test_score) is.
class ReportSections {
 public:
  virtual ~ReportSections() = default;
  // The section from the job's config; empty key: none. Its text is printed
  // after the per-party ledger, its JSON is the export's value of its key.
  virtual ReportSection PlanSection(const jobs::JobConfig& config) const = 0;
  // The export's test_score "what": how the score was computed.
  virtual const char* TestScoreMeaning() const = 0;
};

// Capability of an algorithm whose central noise is added by the gateway
// and charged per participation, not per round (dp-ftrl's tree aggregation):
// under trusted-aggregator each accepted upload charges its device's central
// ledger ("central:<id>") a Gaussian with this ν and q = 1, the job's
// central ε is the worst device's, and a device that has taken part
// MaxParticipations times is not sampled again (rounds::LedgerBook).
class ParticipationCharge {
 public:
  virtual ~ParticipationCharge() = default;
  virtual double ParticipationNoiseMultiplier(
      const jobs::JobConfig& config) const = 0;
  virtual int64_t MaxParticipations(const jobs::JobConfig& config) const = 0;
};

// Capability of an algorithm whose round's server update depends on the
// accepted uploads only through their sum and their count: the algorithms
// that can run under privacy.policy "secure-aggregation", where the gateway
// learns the decoded sum of the round's survivors and nothing else
// (docs/privacy.md, "secure-aggregation").
class SumRounds {
 public:
  virtual ~SumRounds() = default;
  // ApplyRound for `count` >= 1 uploads whose sum is `sum` (UploadLength
  // long).
  virtual Status ApplySum(const jobs::JobConfig& config, int64_t n,
                          const std::vector<double>& sum, int64_t count,
                          RoundNoise& noise, ServerModel& model) const = 0;
};

class Algorithm {
 public:
  virtual ~Algorithm() = default;

  virtual AlgorithmKind kind() const = 0;
  // The job.algorithm name in TOML and logs ("prox-admm", ...).
  virtual const char* name() const = 0;
  virtual RequiredStepKeys required_step_keys() const = 0;
  // The algorithm's own TOML table ("dp_admm", ...), read by ReadTable;
  // nullptr: none. A job of another algorithm that has it is refused.
  virtual const char* table() const { return nullptr; }
  // Reads the algorithm's own table into `config` (its required keys
  // "missing" when absent); the job parser calls it after the common
  // tables and before Resolve.
  virtual void ReadTable(jobs::ConfigReader& /*reader*/,
                         jobs::JobConfig& /*config*/) const {}
  // Whether a job gives the Gaussian ledgers' [privacy] and [sampling]
  // keys (privacy.clip, delta, budgets, sampling.scheme, q|m, m_min); false
  // for barrier algorithms, whose Resolve sets what they imply.
  virtual bool takes_gaussian_keys() const { return true; }

  // After parsing, before validation: checks that need the raw keys and
  // fills values derived from other keys. INVALID_ARGUMENT naming the key.
  virtual host::Error Resolve(jobs::JobConfig& config) const;
  // The algorithm's own ranges and the policies it is charged soundly under
  // (docs/privacy.md). INVALID_ARGUMENT naming the first one refused.
  virtual host::Error Validate(const jobs::JobConfig& config) const = 0;

  // Sets the task's algorithm, params oneof and the step parameters for
  // `iteration` (committed rounds so far) of a job with `n` devices.
  virtual void FillTask(const jobs::JobConfig& config, int64_t n,
                        int64_t iteration,
                        edgeadmm_wire_RoundTask& task) const = 0;
  // What the devices' Update.vector holds.
  virtual edgeadmm_wire_UpdateKind update_kind() const = 0;

  // Length of the released model vector (ServerModel::z, stored and sent):
  // p, or admm-sharing's 2N (the broadcast v and y).
  virtual int64_t ModelLength(const jobs::JobConfig& config) const {
    return config.dimension;
  }
  // How many of the task vector's last entries go out as RoundTask.auxiliary
  // (the rest is RoundTask.model, whose length is the task's dimension): 0,
  // or admm-sharing's N (y).
  virtual int64_t TaskAuxiliaryLength(const jobs::JobConfig& /*config*/) const {
    return 0;
  }
  // Length of one upload vector (p; admm-sharing: N).
  virtual int64_t UploadLength(const jobs::JobConfig& config) const {
    return config.dimension;
  }
  // The upload's length and kind in the round after `iteration` committed
  // rounds: UploadLength and update_kind, or a task phase's (admm-sharing's
  // scoring phase in the last round: N + K values, SHARE_AND_SCORES).
  // Checked at decode (the request handler) and by the upload judge.
  virtual int64_t UploadLengthAt(const jobs::JobConfig& config,
                                 int64_t /*iteration*/) const {
    return UploadLength(config);
  }
  virtual edgeadmm_wire_UpdateKind UpdateKindAt(
      const jobs::JobConfig& /*config*/, int64_t /*iteration*/) const {
    return update_kind();
  }
  // The longest upload of any round (sizes the largest Update body).
  virtual int64_t MaxUploadLength(const jobs::JobConfig& config) const {
    return UploadLength(config);
  }
  // What an honest device's upload can be: the signal the step's clip
  // implies and the noise it adds (docs/security.md, "Upload bounds");
  // unbounded (the default) when the step implies no bound.
  virtual host::UploadBound HonestUpload(
      const jobs::JobConfig& /*config*/) const {
    return {};
  }
  // One committed round: `uploads` (each UploadLength long, at least one)
  // become the next model. n: the job's enrolled device count.
  virtual Status ApplyRound(const jobs::JobConfig& config, int64_t n,
                            const std::vector<std::vector<double>>& uploads,
                            RoundNoise& noise, ServerModel& model) const = 0;

  // ν of one device's own noise over the zero-out sensitivity of its upload:
  // the per-round mechanism the ledgers charge (docs/privacy.md, section 2).
  virtual double OwnNoiseMultiplier(const jobs::JobConfig& config) const = 0;
  // σ to send for a σ planned in paper 002's units (noise λσ on the
  // sensitivity 2λC of Δu), so that OwnNoiseMultiplier is the planned ν.
  virtual double SigmaForPlannedSigma(double prox_admm_sigma) const {
    return prox_admm_sigma;
  }

  // Whether an accepted upload charges its device's central ledger
  // ("central:<id>") the device's local curve (replace-one, its own noise:
  // the bound that holds against the gateway and every device) instead of
  // the policy's central mechanism (rounds::LedgerBook::CentralMechanism).
  // True for random-walk-admm: no amplified bound is proven for the view its
  // devices have (docs/privacy.md, "random-walk-admm").
  virtual bool ChargesLocalAsCentral() const { return false; }
  // A per-upload RDP curve on `orders` that is reported next to the charged
  // ε but never charged, stored as a ledger's ε or sent (random-walk-admm:
  // paper 002 Thm. 4's network bound, privacy/network_rdp.h); empty: none.
  virtual std::vector<double> UnchargedNetworkRdp(
      const jobs::JobConfig& /*config*/, int64_t /*n*/,
      const std::vector<double>& /*orders*/) const {
    return {};
  }
  // What the central ledgers' ε bounds (docs/privacy.md, "What each ε
  // means"); default the policy's.
  virtual privacy::LedgerMeaning CentralMeaning(
      const jobs::JobConfig& config) const {
    return privacy::CentralLedgerMeaning(config.policy, config.max_colluders);
  }
  // Whether every enrolled device may fetch the released model (v1/model).
  // False for random-walk-admm: only the walk's holder sees z, in its task.
  virtual bool ReleasesModelToDevices() const { return true; }
  // Capabilities (null: the algorithm has none of it).
  virtual const BarrierRounds* barrier_rounds() const { return nullptr; }
  virtual const NodeTasks* node_tasks() const { return nullptr; }
  virtual const PartyPrivacy* party_privacy() const { return nullptr; }
  virtual const ParticipationCharge* participation_charge() const {
    return nullptr;
  }
  virtual const ReportSections* report_sections() const { return nullptr; }
  virtual const SumRounds* sum_rounds() const { return nullptr; }
  // Its uploads' own bytes (UploadExtra); null: the algorithm sends none
  // and an upload carrying some is refused.
  virtual const UploadExtra* upload_extra() const { return nullptr; }
};

}  // namespace edgeadmm::algorithms
