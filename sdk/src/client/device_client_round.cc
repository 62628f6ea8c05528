// DeviceClient, its round: the local step on a task (prepare, compute,
// persist before anything leaves), the upload of the persisted record and
// its receipt, the failure report, and the backoff after a failure. The
// state machine and the task delivery are in device_client.cc.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "edgeadmm/crc32.h"
#include "edgeadmm/device_client.h"
#include "edgeadmm/log.h"
#include "edgeadmm/result.h"
#include "edgeadmm/wire/coap_code.h"
#include "edgeadmm/wire/status_body.h"
#include "edgeadmm/wire/update.h"
#include "secure_round_hooks.h"
#include "steps/algorithm_task.h"
#include "streaming_party.h"

namespace edgeadmm {
namespace {

uint8_t CodeClass(uint8_t code) { return code >> 5; }

// Maps the task's loss to the SDK's; INVALID_ARGUMENT for unknown values
// (decode already refused them, so this is a second line only).
Result<Loss> LossFromWire(edgeadmm_wire_Loss loss) {
  Loss out;
  switch (loss) {
    case edgeadmm_wire_Loss_LOSS_LOGISTIC:
      out.kind = LossKind::kLogistic;
      return out;
    case edgeadmm_wire_Loss_LOSS_SQUARED:
      out.kind = LossKind::kSquared;
      return out;
    default:
      return Status::InvalidArgument();
  }
}

// The registered task of the task's algorithm (AlgorithmKind has the wire
// enum's values, checked at compile time in steps/algorithm_tasks.cc);
// UNIMPLEMENTED for an algorithm the client does not run (paper 001: SDK step
// only) or params of another one (decode already refused those), and for a
// secure-aggregation round when the client is not configured for those
// (`secure`): its update must not go out in the clear (the task's sigma is 0).
Result<const internal::AlgorithmTask*> TaskOf(
    const ClientAlgorithmTable& algorithms, const edgeadmm_wire_RoundTask& h,
    bool secure) {
  if (h.has_secure_aggregation && !secure) return Status::Unimplemented();
  const auto value = static_cast<uint32_t>(h.algorithm);
  if (!IsAlgorithmKind(value)) return Status::Unimplemented();
  const internal::AlgorithmTask* task =
      algorithms.find(static_cast<AlgorithmKind>(value));
  if (task == nullptr || h.which_params != task->params_tag) {
    return Status::Unimplemented();
  }
  return task;
}

}  // namespace

Status DeviceClient::ValidateParams(const edgeadmm_wire_RoundTask& h) const {
  const auto value = static_cast<uint32_t>(h.algorithm);
  if (!IsAlgorithmKind(value)) return Status::Ok();  // refused by TaskOf
  return internal::ValidateTaskParams(
      algorithms_->find(static_cast<AlgorithmKind>(value)), h);
}

void DeviceClient::ProcessTask() {
  task_available_ = false;
  // The vectors are decoded into the (possibly shared) compute scratch and
  // used within this call only.
  Workspace ws(config_.compute_scratch);
  const size_t longest = VectorLength(config_.data.dim(), config_.max_vector);
  const Result<Span<Real>> model = ws.Allocate<Real>(longest);
  const Result<Span<Real>> auxiliary = ws.Allocate<Real>(longest);
  EDGEADMM_ASSERT(model.ok() && auxiliary.ok());  // sized by Init
  wire::DecodedRoundTask task;
  Status decoded = wire::DecodeRoundTask(
      ConstByteSpan(task_bytes_.data(), task_size_), *model, *auxiliary, task);
  // The codec checked the generic fields; the algorithm's adapter checks its
  // params (docs/sdk.md, "Validation of a task").
  if (decoded.ok()) decoded = ValidateParams(task.header);
  if (!decoded.ok()) {
    ++counters_.tasks_invalid;
    last_error_ = decoded;
    EDGEADMM_LOG_WARN("client %s: task refused at decode: %s",
                      config_.device_id, decoded.str());
    return;
  }
  ++counters_.tasks_received;
  const edgeadmm_wire_RoundTask& h = task.header;
  heartbeat_ms_ = h.heartbeat_ms;
  if (h.role == edgeadmm_wire_Role_ROLE_DONE) {
    state_ = ClientState::kDone;
    if (observing_) {
      config_.transport->StopObserve();
      observing_ = false;
    }
    return;
  }
  if (h.role != edgeadmm_wire_Role_ROLE_PARTICIPATE) return;  // idle round
  if (AlreadyHandled(h)) return;
  const Status computed = ComputeAndPersist(task, ws);
  if (computed.ok()) {
    if (config_.halt_after_persist) {
      state_ = ClientState::kHalted;
      return;
    }
    if (h.upload_spread_ms > 0) {
      // Its share of the spread, then StepIdle uploads or joins the secure
      // round.
      retry_at_ms_ = now_ms_ + NextSpread(h.upload_spread_ms);
      state_ = ClientState::kBackoff;
      return;
    }
    if (h.has_secure_aggregation) {
      (this->*secure_->start)();
      return;
    }
    StartUpload();
    return;
  }
  if (computed == Status::Unavailable() && record_dirty_) {
    return;  // persisted later from StepIdle, then uploaded
  }
  Refuse(h, computed);
}

bool DeviceClient::AlreadyHandled(const edgeadmm_wire_RoundTask& h) const {
  uint64_t job = 0;
  uint64_t round = 0;
  if (last_step(job, round) && job == h.job_id && h.round_id <= round) {
    return true;  // already computed (and uploaded or pending)
  }
  return refused_valid_ && refused_job_ == h.job_id &&
         refused_round_ == h.round_id;  // already refused and reported
}

void DeviceClient::Refuse(const edgeadmm_wire_RoundTask& h, Status status) {
  ++counters_.steps_refused;
  last_error_ = status;
  refused_valid_ = true;
  refused_job_ = h.job_id;
  refused_round_ = h.round_id;
  EDGEADMM_LOG_WARN("client %s: refusing job %llu round %llu: %s",
                    config_.device_id,
                    static_cast<unsigned long long>(h.job_id),
                    static_cast<unsigned long long>(h.round_id), status.str());
  StartReport(status,
              status == Status::ResourceExhausted()
                  ? "local privacy budget exhausted"
                  : "device cannot run this task",
              h.job_id, h.round_id);
}

Status DeviceClient::PrepareTrainer(const edgeadmm_wire_RoundTask& h,
                                    const internal::AlgorithmTask& adapter,
                                    DevicePrivacyLedger& earlier_jobs) {
  EDGEADMM_TRY_ASSIGN(const Loss loss, LossFromWire(h.loss));
  // The trainer starts from the persisted state of this job (or fresh for a
  // new job) with a DRBG freshly seeded from the entropy port. A new job
  // folds the previous job's ledger into the earlier jobs' ledger (stored
  // with the new job's first state, in one write).
  ClientRecordView previous;
  earlier_jobs = DevicePrivacyLedger();
  bool resume = false;
  if (record_size_ != 0) {
    EDGEADMM_TRY(ParseClientRecord(record_.first(record_size_), previous));
    EDGEADMM_TRY_ASSIGN(const DeviceStateInfo info,
                        InspectDeviceState(previous.state));
    earlier_jobs = previous.earlier_jobs;
    resume = info.job_id == h.job_id;
    if (!resume) EDGEADMM_TRY(earlier_jobs.Compose(info.ledger));
  }
  TrainerConfig trainer_config;
  trainer_config.algorithm = adapter.algorithm;
  trainer_config.loss = loss;
  trainer_config.job_id = h.job_id;
  trainer_config.entropy = config_.entropy;
  trainer_config.personalization =
      ConstByteSpan(reinterpret_cast<const std::byte*>(config_.device_id),
                    std::strlen(config_.device_id));
  trainer_config.epsilon_budget = config_.epsilon_budget;
  trainer_config.delta = config_.delta;
  trainer_config.allow_unaccounted_steps = config_.allow_unaccounted_steps;
  trainer_config.penalty_schedule = config_.penalty_schedule;
  trainer_config.lifetime_epsilon_budget = config_.lifetime_epsilon_budget;
  trainer_config.earlier_jobs = &earlier_jobs;
  LocalTrainer& trainer = *config_.trainer;
  EDGEADMM_TRY(algorithms_->init_trainer(trainer, config_.trainer_workspace,
                                         config_.data, trainer_config));
  if (resume) EDGEADMM_TRY(trainer.LoadState(previous.state));
  return Status::Ok();
}

edgeadmm_wire_Update DeviceClient::UpdateHeader(
    const edgeadmm_wire_RoundTask& h, edgeadmm_wire_UpdateKind kind,
    size_t length, Span<const uint8_t> extra) const {
  const LocalTrainer& trainer = *config_.trainer;
  edgeadmm_wire_Update update = edgeadmm_wire_Update_init_zero;
  update.job_id = h.job_id;
  update.round_id = h.round_id;
  std::strncpy(update.device_id, config_.device_id,
               sizeof(update.device_id) - 1);
  update.kind = kind;
  update.dimension = static_cast<uint32_t>(length);
  update.has_ledger = true;
  update.ledger.participations = trainer.state().ledger.participations();
  const Result<double> epsilon = trainer.LocalEpsilon();
  // +inf (above the ledger's cap) goes out as the largest finite value the
  // wire carries: never as 0, which would read as "nothing spent".
  update.ledger.epsilon = !epsilon.ok() ? 0.0
                          : std::isfinite(*epsilon)
                              ? *epsilon
                              : std::numeric_limits<double>::max();
  update.ledger.delta = config_.delta;
  // The algorithm's own bytes, copied unread (at most the TaskOutput span).
  const size_t extra_size =
      std::min(extra.size(), sizeof(update.algorithm_extra.bytes));
  if (extra_size > 0) {
    std::memcpy(update.algorithm_extra.bytes, extra.data(), extra_size);
  }
  update.algorithm_extra.size = static_cast<pb_size_t>(extra_size);
  // The device ledger's conversion (device_privacy_ledger.h).
  update.ledger.conversion =
      edgeadmm_wire_RdpConversion_RDP_CONVERSION_IMPROVED;
  return update;
}

Status DeviceClient::PersistStep(const edgeadmm_wire_RoundTask& h,
                                 ConstByteSpan upload,
                                 const DevicePrivacyLedger& earlier_jobs,
                                 bool streamed, Workspace& scratch) {
  EDGEADMM_TRY_ASSIGN(ByteSpan state_blob,
                      scratch.Allocate<std::byte>(
                          LocalTrainer::StateBytes(config_.data.dim())));
  const StatusWithSize saved = config_.trainer->SaveState(state_blob);
  EDGEADMM_TRY(saved);
  const StatusWithSize written =
      WriteClientRecord(state_blob.first(saved.size()), h.job_id, h.round_id,
                        upload, earlier_jobs, record_, streamed);
  EDGEADMM_TRY(written);
  SetRecordSize(written.size());
  // From here on the step exists only in record_: persist it before any
  // byte leaves the device. A failed write is retried (never recomputed).
  record_dirty_ = true;
  return PersistRecord(record_size_).ok() ? Status::Ok()
                                          : Status::Unavailable();
}

Status DeviceClient::ComputeAndPersist(const wire::DecodedRoundTask& task,
                                       Workspace& ws) {
  const edgeadmm_wire_RoundTask& h = task.header;
  EDGEADMM_TRY_ASSIGN(const internal::AlgorithmTask* const adapter,
                      TaskOf(*algorithms_, h, secagg_ != nullptr));
  const size_t dim = config_.data.dim();
  // The task's vectors and the upload: one entry per feature, or per record
  // (the adapter says which).
  const size_t length = adapter->per_record ? config_.data.samples() : dim;
  if (task.model.size() != length) return Status::FailedPrecondition();
  DevicePrivacyLedger earlier_jobs;
  EDGEADMM_TRY(PrepareTrainer(h, *adapter, earlier_jobs));
  if (secure_ != nullptr) {  // the device's DDG noise, if secure
    EDGEADMM_TRY((this->*secure_->charge)(h));
  }

  // A task phase may append entries (e.g. partial scores after the upload's
  // vector) and name its own upload kind.
  const size_t extra = adapter->phase_upload_extra != nullptr
                           ? adapter->phase_upload_extra(h)
                           : 0;
  const size_t upload_length = length + extra;
  EDGEADMM_TRY_ASSIGN(Span<Real> upload, ws.Allocate<Real>(upload_length));
  EDGEADMM_TRY_ASSIGN(
      ByteSpan update_bytes,
      ws.Allocate<std::byte>(wire::MaxUpdateBytes(upload_length)));
  // The algorithm's task adapter runs its step (steps/*_task.cc).
  uint8_t extra_bytes[wire::kMaxAlgorithmExtraBytes] = {};
  internal::TaskOutput output{Span<uint8_t>(extra_bytes, sizeof(extra_bytes))};
  EDGEADMM_TRY(
      adapter->run(internal::TaskInput{h, task.model, config_.data.samples(),
                                       task.auxiliary, &config_.test_data},
                   *config_.trainer, upload, output));
  ++counters_.steps_computed;
  if (h.has_secure_aggregation) {
    // Encoded once and persisted, then the record with no clear upload: the
    // words go through the phases (device_client_secagg.cc).
    EDGEADMM_TRY((this->*secure_->encode)(h, upload.first(length)));
    return PersistStep(h, ConstByteSpan(), earlier_jobs, /*streamed=*/false,
                       ws);
  }
  const edgeadmm_wire_Update update = UpdateHeader(
      h, extra > 0 ? adapter->phase_update_kind : adapter->update_kind,
      upload_length,
      Span<const uint8_t>(extra_bytes,
                          std::min(output.extra_size, sizeof(extra_bytes))));
  const StatusWithSize encoded =
      wire::EncodeUpdate(update, upload, update_bytes);
  EDGEADMM_TRY(encoded);
  return PersistStep(h, update_bytes.first(encoded.size()), earlier_jobs,
                     /*streamed=*/false, ws);
}

Status DeviceClient::PersistRecord(size_t size) {
  const Status written =
      config_.storage->Write(config_.storage_key, record_.first(size));
  if (!written.ok()) {
    ++counters_.storage_errors;
    EDGEADMM_LOG_WARN("client %s: cannot persist its record: %s",
                      config_.device_id, written.str());
    Backoff(written);
    return written;
  }
  record_dirty_ = false;
  return Status::Ok();
}

void DeviceClient::StartUpload() {
  TransportRequest request;
  request.method = CoapMethod::kPost;
  request.path = wire::kUpdatePath;
  request.content_format = wire::kUpdateFormat;
  if (pending_streamed_) {
    Status bound = Status::Unimplemented();  // a build that cannot stream
    BodySource* source =
        stream_ != nullptr ? stream_->UploadSource(bound) : nullptr;
    if (source == nullptr) {  // a record this client cannot stream: drop it
      last_error_ = bound;
      ++counters_.uploads_rejected;
      ClearPending();
      return;
    }
    request.payload_source = source;
  } else {
    request.payload = pending_upload();
  }
  const Status started = config_.transport->StartRequest(request, response_);
  if (!started.ok()) {
    Backoff(started);
    return;
  }
  ++counters_.upload_attempts;
  state_ = ClientState::kUploading;
}

void DeviceClient::ClearPending() {
  ClientRecordView view;
  if (record_size_ == 0 ||
      !ParseClientRecord(record_.first(record_size_), view).ok()) {
    return;
  }
  const StatusWithSize written =
      WriteClientRecord(view.state, view.job_id, view.round_id, ConstByteSpan(),
                        view.earlier_jobs, record_);
  EDGEADMM_ASSERT(written.ok());  // shrinks in place
  SetRecordSize(written.size());
  // If this write fails the stored record keeps the upload, and a reboot
  // resends it: the aggregator answers a duplicate receipt. Harmless.
  if (!config_.storage->Write(config_.storage_key, record_.first(record_size_))
           .ok()) {
    ++counters_.storage_errors;
  }
}

void DeviceClient::OnUploadResult() {
  TransportResult result;
  if (!config_.transport->TakeResult(result)) return;
  state_ = ClientState::kIdle;
  if (!result.status.ok()) {
    // No response (lost datagrams, reset, failed handshake): the upload may
    // or may not have arrived. Resend the same bytes later.
    ++counters_.transport_errors;
    Backoff(result.status);
    return;
  }
  Status status = wire::StatusFromCoapCode(result.code);
  edgeadmm_wire_StatusBody body = edgeadmm_wire_StatusBody_init_zero;
  const bool has_body =
      result.content_format == wire::kStatusBodyFormat &&
      wire::DecodeStatusBody(response_.first(result.payload_size), body).ok();
  if (has_body && CodeClass(result.code) != 2) {
    const Status precise = wire::StatusFromBody(body);
    if (!precise.ok()) status = precise;
  }
  if (CodeClass(result.code) == 2) {
    if (has_body && body.duplicate) {
      ++counters_.uploads_duplicate;
    } else {
      ++counters_.uploads_accepted;
    }
    ResetBackoff();
    ClearPending();
    return;  // wait for the next task
  }
  last_error_ = status;
  if (result.code == wire::kCoapPreconditionFailed) {
    ++counters_.uploads_stale;  // the round closed without it
    ClearPending();
    if (config_.use_observe) {
      reregister_ = observing_;  // at once: the task has changed
    } else {
      next_fetch_ms_ = now_ms_;
    }
    return;
  }
  if (result.code == wire::kCoapTooManyRequests ||
      result.code == wire::kCoapUnauthorized || CodeClass(result.code) == 5) {
    Backoff(status);  // not the update's fault: resend the same bytes
    return;
  }
  ++counters_.uploads_rejected;
  EDGEADMM_LOG_WARN("client %s: upload rejected: %s", config_.device_id,
                    status.str());
  ClearPending();
}

void DeviceClient::StartReport(Status status, const char* message,
                               uint64_t job_id, uint64_t round_id) {
  const edgeadmm_wire_StatusBody body =
      wire::MakeStatusBody(status, message, job_id, round_id);
  const StatusWithSize encoded = wire::EncodeStatusBody(body, report_);
  if (!encoded.ok()) return;
  report_size_ = encoded.size();
  TransportRequest request;
  request.method = CoapMethod::kPost;
  request.path = wire::kStatusPath;
  request.content_format = wire::kStatusBodyFormat;
  request.payload = report_.first(report_size_);
  if (config_.transport->StartRequest(request, response_).ok()) {
    state_ = ClientState::kReporting;
  }
}

void DeviceClient::OnReportResult() {
  TransportResult result;
  if (!config_.transport->TakeResult(result)) return;
  state_ = ClientState::kIdle;
  // Best effort: the refusal is also visible to the aggregator as a missing
  // upload, so a lost report is not retried.
  if (result.status.ok() && CodeClass(result.code) == 2) {
    ++counters_.reports_sent;
  } else if (!result.status.ok()) {
    ++counters_.transport_errors;
  }
}

void DeviceClient::Backoff(Status error) {
  last_error_ = error;
  backoff_ms_ = backoff_ms_ == 0                          ? config_.retry_min_ms
                : backoff_ms_ >= config_.retry_max_ms / 2 ? config_.retry_max_ms
                                                          : 2 * backoff_ms_;
  // Spread retries of a fleet over up to +50% so they do not synchronise.
  retry_at_ms_ = now_ms_ + backoff_ms_ + NextSpread(backoff_ms_ / 2);
  state_ = ClientState::kBackoff;
}

uint32_t DeviceClient::NextSpread(uint32_t range) {
  // A fixed function of the device id and the draws so far (not a secret).
  // The high bits of the LCG scaled to [0, range): its low bits repeat
  // with short periods.
  id_spread_ = id_spread_ * 1664525u + 1013904223u;
  return static_cast<uint32_t>((uint64_t{id_spread_} * range) >> 32);
}

}  // namespace edgeadmm
