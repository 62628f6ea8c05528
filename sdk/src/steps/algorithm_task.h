// The device side of an algorithm: a task adapter turns a decoded RoundTask
// of that algorithm into a call of its local step (its runner's Run*,
// edgeadmm/*_runner.h). Each
// adapter is a unit next to its step (steps/*_task.cc); the one registration
// table, kAlgorithmTasks in steps/algorithm_tasks.cc, has one line per
// algorithm the device client runs. DeviceClient calls only through it.
//
// Adding an algorithm on the device: its step, its adapter (a Run*Task and
// its params check, a Valid*Params, declared below), the proto (and its
// params variant and vectors in wire/task_params_shapes.cc), one
// line in kAlgorithmTasks (plus its runner in kLocalStepRunners,
// edgeadmm/local_steps.h, from which the DeviceClient sizes the trainer
// workspace at compile time; a static_assert keeps the two equal), and
// tests.
#pragma once

#include <edgeadmm.pb.h>

#include <cfloat>
#include <cstddef>
#include <cstdint>

#include "edgeadmm/algorithm.h"
#include "edgeadmm/dataset_view.h"
#include "edgeadmm/local_steps.h"
#include "edgeadmm/real.h"
#include "edgeadmm/secure_aggregation_task.h"
#include "edgeadmm/span.h"
#include "edgeadmm/status.h"
#include "edgeadmm/wire/protocol.h"

namespace edgeadmm::internal {

// What an adapter is given besides the trainer (already initialised for the
// task's job and algorithm, with the persisted state loaded).
struct TaskInput {
  const edgeadmm_wire_RoundTask& header;  // validated at decode
  Span<const Real> model;                 // the task's model (dimension)
  size_t samples;                         // the device's record count
  Span<const Real> auxiliary = {};        // admm-sharing: y (N); else empty
  // admm-sharing's scoring phase: the device's test records (its column
  // block of the job's test set); null when the device holds none.
  const DatasetView* test_data = nullptr;
};

// What an adapter reports besides the upload vector: the algorithm's own
// bytes for the upload (Update.algorithm_extra), written into `extra`, a
// span the client provides (wire::kMaxAlgorithmExtraBytes long); the first
// extra_size of them are sent, 0 for none (an adapter whose bytes do not fit
// fails with RESOURCE_EXHAUSTED). Opaque to the client, which copies them;
// the aggregator's unit of the algorithm decodes them.
struct TaskOutput {
  Span<uint8_t> extra;
  size_t extra_size = 0;
};

// Runs the algorithm's local step for `task` and writes the vector to upload
// (dimension entries) into `upload`.
using RunTaskFn = Status (*)(const TaskInput& task, LocalTrainer& trainer,
                             Span<Real> upload, TaskOutput& out);

// Checks the values of a task's params (ranges, finiteness, the relations
// between them and the task's dimension); false refuses the task. The
// adapter's half of "every task is validated once, at decode": the codec
// (wire/round_task.cc) checks the generic fields, the params variant and the
// vector lengths; the client calls this right after the decode, before the
// task touches any state (ValidateTaskParams below; device_client_round.cc,
// streaming_party.cc). Only a participating task's params are checked.
using ValidParamsFn = bool (*)(const edgeadmm_wire_RoundTask& header);

// The bounds the params checks use: a finite v > 0, a finite v >= 0 (NaN
// fails both).
inline bool PositiveFinite(double v) { return v >= DBL_MIN && v <= DBL_MAX; }
inline bool NonNegativeFinite(double v) { return v >= 0.0 && v <= DBL_MAX; }

// What a streamed step's upload needs besides x̃ and the key (filled by the
// task adapter's FinishStreamFn; the client writes it into the upload's
// recipe, streamed_share_upload.h).
struct StreamPlan {
  size_t score_rows = 0;   // values after the N share rows
  double share_sigma = 0;  // keyed noise on each share row (0: none)
  double score_sigma = 0;  // keyed noise on each score (0: none)
};

// A task whose vectors arrive in row blocks (a streaming party; its params
// come after its vectors): BeginStreamFn starts the step from the fields
// before the vectors (round, job); the rows then go to the trainer
// (LocalTrainer::AccumulateSharingStream); FinishStreamFn makes the checks
// of the algorithm's RunTaskFn on the whole, validated task, finishes the
// step (drawing the round's noise key into `key`) and fills `plan`.
using BeginStreamFn = Status (*)(const edgeadmm_wire_RoundTask& header,
                                 LocalTrainer& trainer);
using AccumulateStreamFn = Status (*)(LocalTrainer& trainer, bool model,
                                      size_t first_row, Span<const Real> values,
                                      Span<const Real> zeros);
using FinishStreamFn = Status (*)(const edgeadmm_wire_RoundTask& header,
                                  size_t samples, const DatasetView* test_data,
                                  LocalTrainer& trainer, ByteSpan key,
                                  StreamPlan& plan);

// One registration line: an algorithm the client runs.
struct AlgorithmTask {
  AlgorithmKind algorithm;
  pb_size_t params_tag;                  // the RoundTask params it expects
  edgeadmm_wire_UpdateKind update_kind;  // what its upload means
  RunTaskFn run;
  ValidParamsFn valid_params;  // its params check (Valid*Params below)
  // True when the task's vectors and the upload have one entry per record
  // (admm-sharing: N) instead of one per feature.
  bool per_record = false;
  // Entries the task's phase appends to the upload (admm-sharing's scoring
  // phase: the partial scores) and the upload's kind then; null: none.
  size_t (*phase_upload_extra)(const edgeadmm_wire_RoundTask& h) = nullptr;
  edgeadmm_wire_UpdateKind phase_update_kind =
      edgeadmm_wire_UpdateKind_UPDATE_KIND_UNSPECIFIED;
  // Non-null for an algorithm a streaming client can run in row blocks.
  BeginStreamFn begin_stream = nullptr;
  AccumulateStreamFn accumulate_stream = nullptr;
  FinishStreamFn finish_stream = nullptr;
};

// The registered task of `algorithm`, or nullptr when the client does not run
// it.
const AlgorithmTask* FindAlgorithmTask(AlgorithmKind algorithm);
// Each registered line alone (declared for StaticDeviceClient's per-shape
// table in static_device_client.h, too).
template <AlgorithmKind kAlgorithm>
const AlgorithmTask* AlgorithmTaskOf();
// admm-sharing's scoring phase: the task's score_records (0 before T).
size_t AdmmSharingScoreRecords(const edgeadmm_wire_RoundTask& h);

// OK when `header` is not a participating task, or its secure-aggregation
// plan, if any, is one the device runs (SecureAggregationTaskOf) and `task`
// (the adapter registered for its algorithm; null when the client does not
// run it) is null or accepts its params; INVALID_ARGUMENT otherwise.
inline Status ValidateTaskParams(const AlgorithmTask* task,
                                 const edgeadmm_wire_RoundTask& header) {
  if (header.role != edgeadmm_wire_Role_ROLE_PARTICIPATE) return Status::Ok();
  SecureAggregationTask secure;
  const Status plan = SecureAggregationTaskOf(header, secure);
  if (!plan.ok()) return plan;
  if (task == nullptr) return Status::Ok();
  return task->valid_params(header) ? Status::Ok() : Status::InvalidArgument();
}

// With aggregator-side noise the device only clips (adds no noise).
inline bool DeviceAddsNoise(const edgeadmm_wire_RoundTask& h) {
  return h.noise_placement !=
         edgeadmm_wire_NoisePlacement_NOISE_PLACEMENT_AGGREGATOR;
}

// The adapters and their params checks, one unit each.
bool ValidProxAdmmParams(
    const edgeadmm_wire_RoundTask& h);  // prox_admm_task.cc
bool ValidLinearizedAdmmParams(
    const edgeadmm_wire_RoundTask& h);  // linearized_admm_task.cc
bool ValidDpSgdParams(const edgeadmm_wire_RoundTask& h);  // dp_sgd_task.cc
bool ValidPenaltyPerturbationParams(
    const edgeadmm_wire_RoundTask& h);  // penalty_perturbation_task.cc
bool ValidAdmmSharingParams(
    const edgeadmm_wire_RoundTask& h);  // admm_sharing_task.cc
Status RunProxAdmmTask(const TaskInput& task, LocalTrainer& trainer,
                       Span<Real> upload,
                       TaskOutput& out);  // prox_admm_task.cc
Status RunLinearizedAdmmTask(const TaskInput& task, LocalTrainer& trainer,
                             Span<Real> upload,
                             TaskOutput& out);  // linearized_admm_task.cc
Status RunDpSgdTask(const TaskInput& task, LocalTrainer& trainer,
                    Span<Real> upload, TaskOutput& out);  // dp_sgd_task.cc
Status RunPenaltyPerturbationTask(
    const TaskInput& task, LocalTrainer& trainer, Span<Real> upload,
    TaskOutput& out);  // penalty_perturbation_task.cc

Status RunAdmmSharingTask(const TaskInput& task, LocalTrainer& trainer,
                          Span<Real> upload,
                          TaskOutput& out);  // admm_sharing_task.cc
Status BeginAdmmSharingStream(const edgeadmm_wire_RoundTask& header,
                              LocalTrainer& trainer);  // admm_sharing_task.cc
Status AccumulateAdmmSharingStream(LocalTrainer& trainer, bool model,
                                   size_t first_row, Span<const Real> values,
                                   Span<const Real> zeros);
Status FinishAdmmSharingStream(const edgeadmm_wire_RoundTask& header,
                               size_t samples, const DatasetView* test_data,
                               LocalTrainer& trainer, ByteSpan key,
                               StreamPlan& plan);  // admm_sharing_task.cc

}  // namespace edgeadmm::internal
