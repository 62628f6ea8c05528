// DeviceClient: the transport-agnostic state machine of one device in a
// federated job (docs/device.md). The same code runs on a Linux board, in the
// fleet simulator and on an MCU; only the Transport and Storage ports change.
//
// One round, as seen by the device (docs/device.md, "DeviceClient"):
//   task (Observe notification or GET v1/task, validated once at decode)
//   -> skip it if this (job, round) was already computed
//   -> local step with the LocalTrainer; a step that would exceed the local
//      privacy budget (or that the device cannot run) is refused and reported
//      with POST v1/status (a StatusBody)
//   -> PERSIST: one atomic Storage::Write of a ClientRecord holding both the
//      new trainer state and the encoded Update
//   -> POST v1/update with those bytes (Block1 is the transport's business)
//   -> 2.04 (first copy or duplicate receipt): clear the pending upload;
//      4.12 stale round: drop it and fetch the current task; other 4.xx:
//      refused, drop it; transport failure, 4.29, 5.xx: back off and resend
//      the SAME bytes.
// A secure-aggregation round (a task with a plan, a client configured for
// those) replaces the upload: the words are encoded once and stored, the
// record persisted, then sent through the SecAgg+ phases (SECURE_ROUND;
// docs/sdk.md, "DeviceClient in a secure round").
// On Init the record is loaded: a pending upload is resent verbatim, so a
// (job, round) is never computed twice with fresh noise (LocalTrainer refuses
// that too, with ALREADY_EXISTS).
//
// Driven by Poll(now_ms) from the caller's loop; never blocks, never
// allocates, no threads. The caller also polls the transport (a fleet polls
// one shared I/O context for all its devices). The LocalTrainer, its
// workspace and the compute scratch may be shared by clients that are polled
// from one thread: the trainer is re-initialised from the persisted record
// before each local step and nothing in them is kept between Poll() calls.
//
// Supported algorithms (jobs): every one registered, each through its task
// adapter (sdk/src/steps/*_task.cc, one line in
// sdk/src/steps/algorithm_tasks.cc) and its step's runner (one line in
// edgeadmm/local_steps.h); docs/sdk.md lists them. A ClientAlgorithmTable
// may run fewer; a task of an algorithm the table does not run is refused
// and reported as UNIMPLEMENTED.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>

#include "edgeadmm/algorithm.h"
#include "edgeadmm/client_record.h"
#include "edgeadmm/dataset_view.h"
#include "edgeadmm/entropy_source.h"
#include "edgeadmm/local_steps.h"
#include "edgeadmm/real.h"
#include "edgeadmm/result.h"
#include "edgeadmm/span.h"
#include "edgeadmm/status.h"
#include "edgeadmm/storage.h"
#include "edgeadmm/streamed_share_upload.h"
#include "edgeadmm/transport.h"
#include "edgeadmm/wire/protocol.h"
#include "edgeadmm/wire/round_task.h"
#include "edgeadmm/workspace.h"

namespace edgeadmm {

class DeviceClient;
namespace internal {
struct AlgorithmTask;   // a task adapter (sdk/src/steps/algorithm_task.h)
class ClientStreaming;  // the streaming party
                        // (sdk/src/client/streaming_party.h)
class StreamingParty;
struct ClientSecAgg;      // a secure round's state (device_client_secagg.cc)
struct SecureRoundHooks;  // sdk/src/client/secure_round_hooks.h
// Bytes the StreamingParty object itself takes (checked at compile time in
// streaming_party.cc).
inline constexpr size_t kStreamingPartyObjectBytes = 2048;
// Creates the streaming part of `client` in `memory`
// (ClientAlgorithmTable::create_streaming of a table with a streamed step;
// sdk/src/client/streaming_party.cc).
Result<ClientStreaming*> CreateClientStreaming(DeviceClient& client,
                                               Workspace& memory);
}  // namespace internal

// The algorithms a DeviceClient runs, as two hooks: the task adapter of an
// algorithm (nullptr: not run, the task is refused as UNIMPLEMENTED) and the
// trainer's Init for a task. DeviceClient::Init(config, memory) uses every
// registered algorithm (AllClientAlgorithms: links every step); a
// StaticDeviceClient passes the table of its shape, so firmware links only
// the steps and prox methods of the algorithms and losses it runs.
struct ClientAlgorithmTable {
  const internal::AlgorithmTask* (*find)(AlgorithmKind algorithm) = nullptr;
  Status (*init_trainer)(LocalTrainer& trainer, ByteSpan workspace,
                         const DatasetView& data,
                         const TrainerConfig& config) = nullptr;
  // Creates a client's streaming part (DeviceClientConfig::stream_rows > 0)
  // in its memory; null when the table has no algorithm with a streamed
  // step (then nothing of streaming is linked, and Init refuses
  // stream_rows > 0).
  Result<internal::ClientStreaming*> (*create_streaming)(
      DeviceClient& client, Workspace& memory) = nullptr;
  // Secure-aggregation rounds (DeviceClient::kSecureRoundHooks); null: a
  // task with a plan is refused as UNIMPLEMENTED and nothing of SecAgg+ is
  // linked.
  const internal::SecureRoundHooks* secure_rounds = nullptr;
};
// Every algorithm of kLocalStepRunners, with LocalTrainer::Init
// (sdk/src/client/all_client_algorithms.cc); no secure-aggregation rounds.
const ClientAlgorithmTable& AllClientAlgorithms();
// The same with secure-aggregation rounds (DeviceClientConfig::
// secagg_max_neighbours > 0 needs it): links SecAgg+ and its crypto.
const ClientAlgorithmTable& AllClientAlgorithmsWithSecureRounds();

enum class ClientState : uint8_t {
  kStart,         // Init done; the next Poll() loads the record
  kIdle,          // waiting for a task, or about to act on one
  kFetchingTask,  // GET v1/task in flight
  kUploading,     // POST v1/update in flight
  kReporting,     // POST v1/status (a refusal report) in flight
  kBackoff,       // waiting before retrying what failed, or before a
                  // round's upload or secure round's phase 0 (its share of
                  // the upload spread)
  kSecureRound,   // the phases of a secure-aggregation round in flight
  kHalted,        // stopped: halt_after_persist, or a corrupt record
  kDone,          // the job is finished (ROLE_DONE)
};

// The name of a state, e.g. "UPLOADING".
const char* ClientStateName(ClientState state);

struct DeviceClientConfig {
  // The device id = the DTLS PSK identity (1..64 printable ASCII).
  const char* device_id = "";
  Transport* transport = nullptr;
  Storage* storage = nullptr;
  EntropySource* entropy = nullptr;  // seeds the trainer's DRBG per step
  DatasetView data;                  // the device's local records
  // A scoring phase (an algorithm whose last task asks for partial scores;
  // Linux): the device's column block of the job's K test records (same columns
  // as `data`, records aligned by id with the gateway's test labels); empty
  // when the device holds none (a task with a scoring phase is then refused).
  DatasetView test_data;
  // Re-initialised (workspace, data, job) before each local step; may be
  // shared by clients polled from one thread. The workspace must hold
  // LocalStepWorkspaceBytes(algorithm, loss, samples, dim) for the
  // jobs the device runs (DeviceClient::TrainerWorkspaceBytes: any job);
  // a task whose step does not fit is refused with RESOURCE_EXHAUSTED.
  LocalTrainer* trainer = nullptr;
  ByteSpan trainer_workspace;
  // DeviceClient::ComputeScratchBytes(dim, vector); may be shared like the
  // trainer.
  ByteSpan compute_scratch;
  // The longest task or update vector the client takes: 0 means the data
  // dimension; a party of an algorithm with per-record vectors (Linux)
  // gives its record count N, since its task and its upload then carry N
  // values each (N + K in the last iteration of a job with a scoring phase
  // of K test records). MemoryBytes/ComputeScratchBytes must
  // be sized with the same value.
  size_t max_vector = 0;
  // Streaming party (an algorithm with a streamed step; docs/sdk.md,
  // "Streaming party"): 0 = off. B > 0: the device never holds an N-vector. A
  // task larger than the client's task buffer is fetched into a sink (Block2):
  // its vector rows are accumulated B at a time into the step, and the
  // upload is produced while it is sent (Block1) from the step's result and
  // the round's noise key, which the record keeps in place of the upload. Needs
  // a transport whose streams_bodies() is true, and a trainer, workspace and
  // compute scratch of its own (the step spans many Poll() calls); memory
  // MemoryBytes(dim, max_vector, B). Smaller tasks (other algorithms) run
  // as usual.
  size_t stream_rows = 0;
  // Local privacy budget (ε, δ) the device never exceeds, per job.
  double epsilon_budget = 1.0;
  double delta = 1e-5;
  // Lifetime budget: ε at `delta` of all the device's jobs together (the
  // record keeps the ledger of its earlier jobs); a round that would exceed
  // it is refused like one beyond epsilon_budget. +inf: no lifetime limit
  // (the earlier jobs' ledger is kept all the same).
  double lifetime_epsilon_budget = std::numeric_limits<double>::infinity();
  bool allow_unaccounted_steps = false;  // see TrainerConfig
  PenaltySchedule penalty_schedule;      // see TrainerConfig
  // Task delivery: Observe on v1/task (re-registered on a new session when
  // no notification came for the refresh interval after the registration
  // was answered: the aggregator may have restarted and forgotten the
  // session; an unanswered registration is left to the transport, which
  // answers or fails it within its retransmission limit, for up to
  // kUnansweredRegistrationRefreshes intervals), or a GET every
  // task_refresh_ms. The refresh interval is the largest of
  // task_refresh_ms, doubled by every refresh no pushed notification
  // followed, twice the recent gap between notifications and twice the
  // gateway's heartbeat (RoundTask.heartbeat_ms), at most task_refresh_max_ms
  // (never below task_refresh_ms), plus a fixed per-device spread of up to 25%
  // (docs/device.md, "Refresh interval"): a device that hears every round
  // does not refresh between them, and a busy or restarted gateway is not
  // re-registered by the whole fleet at once.
  bool use_observe = true;
  uint32_t task_refresh_ms = 30000;
  uint32_t task_refresh_max_ms = 120000;
  // Exponential backoff after a failure: retry_min_ms doubling up to
  // retry_max_ms, with a deterministic per-device spread of up to 50%.
  uint32_t retry_min_ms = 1000;
  uint32_t retry_max_ms = 60000;
  const char* storage_key = "client";
  // The job this client serves on a gateway that runs several
  // (docs/protocol.md, "Several jobs"): its task is v1/task/<name>, so the
  // client hears only that job's rounds. Empty: v1/task, the gateway chooses
  // among the device's jobs. A device
  // that runs several jobs gives each client its own storage_key.
  const char* job = "";
  // Fault injection (tests, fleet reboots, the device program's
  // --halt-after-persist): stop in kHalted right after the record with a new
  // upload was persisted, before sending it, as a power cut would.
  bool halt_after_persist = false;
  // Secure-aggregation rounds (docs/sdk.md, "DeviceClient in a secure
  // round"): the most graph neighbours k of a round the client joins
  // (whatever the round's number of devices n); the padded dimension d'
  // follows from the data dimension. 0: off (a task with a plan is refused
  // as UNIMPLEMENTED); otherwise 1 <= k <= kSecAggMaxNeighbours (254,
  // secagg/neighbour_graph.h; INVALID_ARGUMENT at Init). Memory:
  // MemoryBytes plus SecAggMemoryBytes(dim, k).
  size_t secagg_max_neighbours = 0;
  // In a secure round, an open phase's message is resent this often (> 0;
  // DeviceClient::kSecureRoundPollMs by default). Every device of an open
  // phase sends one request per interval until the phase closes: a fleet
  // of n devices raises it so the gateway sees n / interval requests.
  uint32_t secagg_poll_ms = 50;
};

struct DeviceClientCounters {
  uint32_t tasks_received = 0;     // decoded valid tasks
  uint32_t tasks_invalid = 0;      // task bodies refused at decode
  uint32_t steps_computed = 0;     // local steps run by this instance
  uint32_t steps_refused = 0;      // tasks refused (budget, unsupported, ...)
  uint32_t upload_attempts = 0;    // POST v1/update started
  uint32_t uploads_accepted = 0;   // 2.04, first copy
  uint32_t uploads_duplicate = 0;  // 2.04 with duplicate = true
  uint32_t uploads_stale = 0;      // 4.12: the round had closed
  uint32_t uploads_rejected = 0;   // other 4.xx: dropped
  uint32_t resumed_uploads = 0;    // pending upload found by Init
  uint32_t transport_errors = 0;   // exchanges without a CoAP response
  uint32_t storage_errors = 0;     // failed Storage::Write
  uint32_t reports_sent = 0;       // POST v1/status answered
};

class DeviceClient {
 public:
  // An Observe registration that got no answer at all is repeated after
  // this many task_refresh_ms (docs/device.md, "Observe").
  static constexpr uint32_t kUnansweredRegistrationRefreshes = 10;
  // Quiet refreshes double the refresh interval at most this many times
  // (task_refresh_max_ms caps it before that with the defaults).
  static constexpr uint8_t kMaxRefreshDoublings = 16;
  // The default DeviceClientConfig::secagg_poll_ms (an open phase's
  // resend interval, SecAggPhaseClient::poll_interval_ms); IdleMs returns
  // at most the configured interval in a secure round.
  static constexpr uint32_t kSecureRoundPollMs = 50;

  // Per-client memory Init needs for a model of `dim` coordinates: the task
  // body, the persisted record and the small request/response bodies; with
  // stream_rows = B > 0 also the streaming buffers (B-row blocks in and out,
  // x̃, the task header and the upload's recipe): a formula in dim and B,
  // never in N.
  static constexpr size_t MemoryBytes(size_t dim, size_t vector = 0,
                                      size_t stream_rows = 0) {
    const size_t v = VectorLength(dim, vector);
    return Workspace::Bytes<std::byte>(wire::MaxRoundTaskBytes(v)) +
           Workspace::Bytes<std::byte>(RecordBytes(dim, vector, stream_rows)) +
           2 * Workspace::Bytes<std::byte>(wire::kMaxStatusBodyBytes) +
           (stream_rows == 0
                ? 0
                : Workspace::Bytes<std::byte>(
                      internal::kStreamingPartyObjectBytes) +
                      2 * Workspace::Bytes<Real>(stream_rows) +
                      Workspace::Bytes<Real>(dim) +
                      Workspace::Bytes<std::byte>(wire::MaxRoundTaskBytes(0)) +
                      Workspace::Bytes<std::byte>(kMaxUpdatePrefixBytes) +
                      Workspace::Bytes<std::byte>(kMaxStreamedRecipeBytes));
  }
  // The secure-round part of the client, for a ClientAlgorithmTable
  // (AllClientAlgorithms names it).
  static const internal::SecureRoundHooks kSecureRoundHooks;
  // The extra memory of a client configured for secure rounds (at most k
  // neighbours): the session, its buffers and frames, the encoder's scratch
  // and the input record, for d' = DdgPaddedDimension(dim)
  // (SecureRoundMemoryBytes, edgeadmm/device_client_secagg.h).
  static size_t SecAggMemoryBytes(size_t dim, size_t k);
  // Scratch of one local step: model, auxiliary vector and update (the
  // longest vector each), the state blob and the encoded update.
  static constexpr size_t ComputeScratchBytes(size_t dim, size_t vector = 0) {
    const size_t v = VectorLength(dim, vector);
    return 3 * Workspace::Bytes<Real>(v) +
           Workspace::Bytes<std::byte>(LocalTrainer::StateBytes(dim)) +
           Workspace::Bytes<std::byte>(wire::MaxUpdateBytes(v));
  }
  // The longest vector: `vector` (DeviceClientConfig::max_vector) or dim.
  static constexpr size_t VectorLength(size_t dim, size_t vector) {
    return vector > dim ? vector : dim;
  }
  // Trainer workspace that fits every algorithm the client runs
  // (kLocalStepSizes) with either loss.
  static constexpr size_t TrainerWorkspaceBytes(size_t samples, size_t dim) {
    size_t most = 0;
    for (const LocalStepSize& s : kLocalStepSizes) {
      for (LossKind l : {LossKind::kLogistic, LossKind::kSquared}) {
        const size_t bytes = LocalTrainer::WorkspaceBytes(
            s.workspace_bytes(l, samples, dim), dim);
        most = bytes > most ? bytes : most;
      }
    }
    return most;
  }
  // The encoded Update's bytes before its vector values, at most
  // (wire::EncodeUpdatePrefix: the scalar fields, the vector's key and
  // length), and the recipe of a streamed upload that holds them.
  static constexpr size_t kMaxUpdatePrefixBytes =
      wire::MaxUpdateBytes(0) + wire::VectorFieldBytes(1) - 4;
  static constexpr size_t kMaxStreamedRecipeBytes =
      internal::StreamedShareRecipeBytes(kMaxUpdatePrefixBytes);
  // The least trainer workspace any algorithm the client runs needs (Init
  // refuses less; each task's step checks its own need).
  static constexpr size_t SmallestTrainerWorkspaceBytes(size_t samples,
                                                        size_t dim) {
    size_t least = SIZE_MAX;
    for (const LocalStepSize& s : kLocalStepSizes) {
      for (LossKind l : {LossKind::kLogistic, LossKind::kSquared}) {
        const size_t bytes = LocalTrainer::WorkspaceBytes(
            s.workspace_bytes(l, samples, dim), dim);
        least = bytes < least ? bytes : least;
      }
    }
    return least;
  }
  static constexpr size_t RecordBytes(size_t dim, size_t vector = 0,
                                      size_t stream_rows = 0) {
    const size_t upload = wire::MaxUpdateBytes(VectorLength(dim, vector));
    return ClientRecordBytes(LocalTrainer::StateBytes(dim),
                             stream_rows > 0 && kMaxStreamedRecipeBytes > upload
                                 ? kMaxStreamedRecipeBytes
                                 : upload);
  }

  DeviceClient() = default;
  DeviceClient(const DeviceClient&) = delete;
  DeviceClient& operator=(const DeviceClient&) = delete;

  // Checks the config and carves the buffers from `memory` (the data's dim
  // sizes them). Nothing is read or sent until the first Poll(). May be
  // called again to restart (a simulated reboot): any exchange in flight is
  // cancelled. INVALID_ARGUMENT for a bad config (missing port, bad device
  // id or storage key, empty data, bad budget); RESOURCE_EXHAUSTED if
  // `memory`, the trainer workspace or the compute scratch is too small.
  Status Init(const DeviceClientConfig& config, ByteSpan memory);
  // As Init, running only the algorithms of `algorithms` (which must outlive
  // the client); INVALID_ARGUMENT if a hook is missing.
  Status Init(const DeviceClientConfig& config, ByteSpan memory,
              const ClientAlgorithmTable& algorithms);

  // Advances the state machine at monotonic time `now_ms` (any epoch; it
  // must not go backwards). Returns OK, or the error that halted the client:
  // DATA_LOSS for a corrupt persisted record (the device refuses to start
  // over and under-count its privacy loss), UNAVAILABLE if the record cannot
  // be read, FAILED_PRECONDITION before Init.
  Status Poll(uint64_t now_ms);

  ClientState state() const { return state_; }
  const DeviceClientCounters& counters() const { return counters_; }
  // The last error seen (transport, response, storage or step), OK if none.
  Status last_error() const { return last_error_; }
  // (job, round) of the last local step, false if none yet.
  bool last_step(uint64_t& job_id, uint64_t& round_id) const;
  // The phase of the secure round in flight (SecAggDevicePhase: 1 keys
  // advertised, 2 shares sent, 3 masked input sent, 4 shares revealed),
  // whose blob is in Storage; 0 when none is (a client without secure rounds,
  // or one still asking to join).
  uint8_t secure_round_phase() const;
  // The encoded Update waiting for a receipt (empty if none, or if the
  // pending upload is a streamed share: see upload_pending()).
  ConstByteSpan pending_upload() const;
  // True while an upload (whole or streamed) waits for its receipt.
  bool upload_pending() const {
    return !pending_upload_.empty() || pending_streamed_;
  }
  // Milliseconds until the client has something to do on its own (a retry or
  // a task refresh); 0 if it should be polled again right away. A loop may
  // sleep this long when the transport has nothing to report.
  uint64_t IdleMs(uint64_t now_ms) const;

 private:
  // task_path_ from config_.job; false for an invalid job name.
  bool SetTaskPath(const char* job);
  Status LoadRecord();
  // Sets record_size_ after record_ changed and re-parses the pending upload.
  void SetRecordSize(size_t size);
  void CheckNotifications();
  void StepIdle();
  void StartFetch();
  void StartObserve();
  // Time without a task after which the observation is registered again.
  uint64_t RefreshAfterMs() const;
  // A notification the server pushed (not a registration's answer) arrived:
  // updates notify_gap_ms_ and stops the doubling.
  void NotePushedTask();
  void OnFetchResult();
  void OnUploadResult();
  void OnReportResult();
  // Decodes the task in task_bytes_ and acts on it.
  void ProcessTask();
  // Runs the local step of a validated task and persists the record; the
  // status explains a refusal (reported to the aggregator). `scratch` is the
  // compute scratch after the decoded task vectors.
  Status ComputeAndPersist(const wire::DecodedRoundTask& task,
                           Workspace& scratch);
  Status PersistRecord(size_t size);
  // Secure rounds (device_client_secagg.cc): the carving at Init, the
  // resume of a round found in storage, the charge before the step, the
  // encoding and Join after it, and the phases' steps.
  Status InitSecAgg(Workspace& ws);
  Status ResumeSecureRound();
  Status ChargeSecureStep(const edgeadmm_wire_RoundTask& h);
  Status EncodeSecureInput(const edgeadmm_wire_RoundTask& h,
                           Span<const Real> update);
  void StartSecureRound();
  // Joins the round whose words were encoded but whose record could not be
  // written at once (retried from StepIdle); false if none is due.
  bool StartDueSecureRound();
  void StepSecureRound();
  void StartUpload();
  void ClearPending();
  void StartReport(Status status, const char* message, uint64_t job_id,
                   uint64_t round_id);
  void Backoff(Status error);
  // The device's next draw in [0, range): the spread of its retries and of
  // its upload in a round (RoundTask.upload_spread_ms); 0 if range is 0.
  uint32_t NextSpread(uint32_t range);
  void ResetBackoff() { backoff_ms_ = 0; }

  // The parts of a local step both paths share (whole or streamed: the
  // streaming party, sdk/src/client/streaming_party.h, uses them too).
  friend class internal::StreamingParty;
  // The trainer initialised for task `h`'s job with its persisted state (or
  // fresh); `earlier_jobs` gets the earlier jobs' ledger.
  Status PrepareTrainer(const edgeadmm_wire_RoundTask& h,
                        const internal::AlgorithmTask& adapter,
                        DevicePrivacyLedger& earlier_jobs);
  // The Update's scalar fields after the step of task `h`, with the
  // algorithm's own bytes (TaskOutput::extra, copied unread; at most
  // wire::kMaxAlgorithmExtraBytes) as its algorithm_extra.
  edgeadmm_wire_Update UpdateHeader(const edgeadmm_wire_RoundTask& h,
                                    edgeadmm_wire_UpdateKind kind,
                                    size_t length,
                                    Span<const uint8_t> extra) const;
  // Persists `upload` (an Update, or a streamed recipe) with the trainer's
  // state after the step of `h`: UNAVAILABLE if the write failed (retried
  // from StepIdle).
  Status PersistStep(const edgeadmm_wire_RoundTask& h, ConstByteSpan upload,
                     const DevicePrivacyLedger& earlier_jobs, bool streamed,
                     Workspace& scratch);
  // The params check of a decoded task `h` by its algorithm's adapter
  // (AlgorithmTask::valid_params): OK, or INVALID_ARGUMENT, counted as a
  // task refused at decode. OK for an algorithm the client does not run
  // (refused later as UNIMPLEMENTED) and for an idle or final task.
  Status ValidateParams(const edgeadmm_wire_RoundTask& h) const;
  // True if task `h` was computed or refused already.
  bool AlreadyHandled(const edgeadmm_wire_RoundTask& h) const;
  // Counts and reports a refused task.
  void Refuse(const edgeadmm_wire_RoundTask& h, Status status);

  DeviceClientConfig config_;
  // v1/task, or v1/task/<name> when config_.job names a job.
  char task_path_[wire::kMaxTaskPathBytes] = {};
  const ClientAlgorithmTable* algorithms_ = nullptr;
  bool initialized_ = false;
  ClientState state_ = ClientState::kStart;
  Status last_error_;
  DeviceClientCounters counters_;
  uint64_t now_ms_ = 0;

  ByteSpan task_bytes_;  // task body (GET or notification)
  size_t task_size_ = 0;
  bool task_available_ = false;
  ByteSpan record_;  // the persisted ClientRecord (a copy of what is stored)
  size_t record_size_ = 0;
  ConstByteSpan pending_upload_;  // the upload inside record_, if any
  bool record_dirty_ = false;     // record_ differs from storage (write failed)
  ByteSpan response_;             // response bodies
  ByteSpan report_;               // StatusBody of a refusal report
  size_t report_size_ = 0;

  bool observing_ = false;
  // The registration got its first answer (a task or the end of the
  // observation). Until then it is a confirmable request that the transport
  // is still retransmitting: registering again would only queue a second one
  // behind it (CoAP NSTART = 1) whose answer is then discarded as stale.
  bool observe_answered_ = false;
  // A stale upload showed that the task changed: register again at once (on
  // the same session: the server answered, so it knows it).
  bool reregister_ = false;
  uint64_t last_task_ms_ = 0;  // last task received (refresh timer)
  // Refreshes since the last pushed notification: each doubles the next
  // refresh interval (RefreshAfterMs).
  uint8_t quiet_refreshes_ = 0;
  // The longest recent gap between a pushed notification and the task
  // before it (decays by 1/8 per notification): refreshes wait twice this.
  uint32_t notify_gap_ms_ = 0;
  // The gateway's task heartbeat (RoundTask.heartbeat_ms of the last task;
  // 0: not said): refreshes wait at least twice this.
  uint32_t heartbeat_ms_ = 0;
  // This device's share of the refresh spread, in 1/1024 of 25% of the
  // interval: fixed at Init from the device id.
  uint16_t refresh_spread_ = 0;
  uint64_t next_fetch_ms_ = 0;
  uint64_t retry_at_ms_ = 0;
  uint32_t backoff_ms_ = 0;
  uint32_t id_spread_ = 0;  // per-device seed of NextSpread
  // A task refused locally is not reprocessed until its (job, round) changes.
  bool refused_valid_ = false;
  uint64_t refused_job_ = 0;
  uint64_t refused_round_ = 0;

  // Streaming party (stream_rows > 0).
  internal::ClientStreaming* stream_ = nullptr;
  bool pending_streamed_ = false;  // record_'s upload is a streamed recipe
  bool stream_fetch_due_ = false;  // a task too large for task_bytes_ exists
  bool fetch_streamed_ = false;    // the fetch in flight uses the sink

  // Secure rounds, if configured (and the table has the hooks).
  internal::ClientSecAgg* secagg_ = nullptr;
  const internal::SecureRoundHooks* secure_ = nullptr;
};

}  // namespace edgeadmm
