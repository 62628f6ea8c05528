#include "edgeadmm/device_client.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "edgeadmm/crc32.h"
#include "edgeadmm/log.h"
#include "edgeadmm/result.h"
#include "edgeadmm/wire/coap_code.h"
#include "edgeadmm/wire/status_body.h"
#include "edgeadmm/wire/update.h"
#include "steps/algorithm_task.h"
#include "streaming_party.h"

namespace edgeadmm {
namespace {

bool IsValidDeviceId(const char* id) {
  if (id == nullptr) return false;
  size_t n = 0;
  for (; id[n] != '\0'; ++n) {
    if (n >= wire::kMaxDeviceIdLength || id[n] <= ' ' || id[n] > '~') {
      return false;
    }
  }
  return n > 0;
}

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

// Carves `bytes` bytes from `ws`; RESOURCE_EXHAUSTED when it does not fit.
Result<ByteSpan> Carve(Workspace& ws, size_t bytes) {
  return ws.Allocate<std::byte>(bytes);
}

// The registered task of the task's algorithm (AlgorithmKind has the wire
// enum's values, checked at compile time in wire/round_task.cc);
// UNIMPLEMENTED for an algorithm the client does not run (paper 001: SDK step
// only) or params of another one (decode already refused those).
Result<const internal::AlgorithmTask*> TaskOf(
    const ClientAlgorithmTable& algorithms, const edgeadmm_wire_RoundTask& h) {
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

const char* ClientStateName(ClientState state) {
  switch (state) {
    case ClientState::kStart:
      return "START";
    case ClientState::kIdle:
      return "IDLE";
    case ClientState::kFetchingTask:
      return "FETCHING_TASK";
    case ClientState::kUploading:
      return "UPLOADING";
    case ClientState::kReporting:
      return "REPORTING";
    case ClientState::kBackoff:
      return "BACKOFF";
    case ClientState::kHalted:
      return "HALTED";
    case ClientState::kDone:
      return "DONE";
  }
  return "?";
}

Status DeviceClient::Init(const DeviceClientConfig& config, ByteSpan memory) {
  return Init(config, memory, AllClientAlgorithms());
}

Status DeviceClient::Init(const DeviceClientConfig& config, ByteSpan memory,
                          const ClientAlgorithmTable& algorithms) {
  if (initialized_ && config_.transport != nullptr) {
    config_.transport->Cancel();
    if (observing_) config_.transport->StopObserve();
  }
  initialized_ = false;
  if (config.transport == nullptr || config.storage == nullptr ||
      config.entropy == nullptr || config.trainer == nullptr ||
      !IsValidDeviceId(config.device_id) ||
      !IsValidStorageKey(config.storage_key) || config.data.dim() == 0 ||
      config.data.samples() == 0 || !(config.epsilon_budget > 0) ||
      !(config.lifetime_epsilon_budget > 0) ||
      !(config.delta > 0 && config.delta < 1) || config.retry_min_ms == 0 ||
      config.retry_max_ms < config.retry_min_ms || algorithms.find == nullptr ||
      algorithms.init_trainer == nullptr ||
      (config.stream_rows > 0 && algorithms.create_streaming == nullptr)) {
    return Status::InvalidArgument();
  }
  const size_t dim = config.data.dim();
  const size_t vector = config.max_vector;
  if (config.compute_scratch.size() < ComputeScratchBytes(dim, vector) ||
      config.trainer_workspace.size() <
          SmallestTrainerWorkspaceBytes(config.data.samples(), dim)) {
    // The smallest step's need: each task's step checks its own at Init.
    return Status::ResourceExhausted();
  }
  Workspace ws(memory);
  EDGEADMM_TRY_ASSIGN(
      task_bytes_,
      Carve(ws, wire::MaxRoundTaskBytes(VectorLength(dim, vector))));
  EDGEADMM_TRY_ASSIGN(record_,
                      Carve(ws, RecordBytes(dim, vector, config.stream_rows)));
  EDGEADMM_TRY_ASSIGN(response_, Carve(ws, wire::kMaxStatusBodyBytes));
  EDGEADMM_TRY_ASSIGN(report_, Carve(ws, wire::kMaxStatusBodyBytes));
  stream_ = nullptr;

  config_ = config;
  algorithms_ = &algorithms;
  if (config.stream_rows > 0) {
    EDGEADMM_TRY_ASSIGN(stream_, algorithms.create_streaming(*this, ws));
  }
  state_ = ClientState::kStart;
  last_error_ = Status::Ok();
  counters_ = DeviceClientCounters{};
  task_size_ = 0;
  task_available_ = false;
  SetRecordSize(0);
  record_dirty_ = false;
  report_size_ = 0;
  observing_ = false;
  observe_answered_ = false;
  reregister_ = false;
  last_task_ms_ = 0;
  next_fetch_ms_ = 0;
  retry_at_ms_ = 0;
  backoff_ms_ = 0;
  refused_valid_ = false;
  stream_fetch_due_ = false;
  fetch_streamed_ = false;
  id_spread_ =
      Crc32(ConstByteSpan(reinterpret_cast<const std::byte*>(config.device_id),
                          std::strlen(config.device_id)));
  initialized_ = true;
  return Status::Ok();
}

bool DeviceClient::last_step(uint64_t& job_id, uint64_t& round_id) const {
  ClientRecordView view;
  if (record_size_ == 0 ||
      !ParseClientRecord(record_.first(record_size_), view).ok()) {
    return false;
  }
  job_id = view.job_id;
  round_id = view.round_id;
  return true;
}

ConstByteSpan DeviceClient::pending_upload() const { return pending_upload_; }

void DeviceClient::SetRecordSize(size_t size) {
  // record_ changes only right before this call, so the upload view is
  // parsed (and its CRC checked) once per change instead of on every Poll:
  // with thousands of clients in one loop the CRC dominated the CPU.
  record_size_ = size;
  pending_upload_ = ConstByteSpan();
  pending_streamed_ = false;
  ClientRecordView view;
  if (size != 0 && ParseClientRecord(record_.first(size), view).ok()) {
    if (view.streamed_upload) {
      pending_streamed_ = true;
    } else {
      pending_upload_ = view.upload;
    }
  }
}

uint64_t DeviceClient::IdleMs(uint64_t now_ms) const {
  switch (state_) {
    case ClientState::kBackoff:
      return retry_at_ms_ > now_ms ? retry_at_ms_ - now_ms : 0;
    case ClientState::kIdle: {
      if (task_available_ || record_dirty_ || upload_pending() || reregister_ ||
          stream_fetch_due_) {
        return 0;
      }
      const uint64_t due = config_.use_observe && observing_
                               ? last_task_ms_ + RefreshAfterMs()
                               : next_fetch_ms_;
      return due > now_ms ? due - now_ms : 0;
    }
    case ClientState::kHalted:
    case ClientState::kDone:
      return UINT32_MAX;
    default:
      return 0;  // an exchange is in flight: the transport wakes the loop
  }
}

Status DeviceClient::Poll(uint64_t now_ms) {
  if (!initialized_) return Status::FailedPrecondition();
  now_ms_ = now_ms;
  if (state_ == ClientState::kStart) {
    const Status loaded = LoadRecord();
    if (!loaded.ok()) {
      last_error_ = loaded;
      state_ = ClientState::kHalted;
      EDGEADMM_LOG_ERROR("client %s: cannot load its record: %s",
                         config_.device_id, loaded.str());
      return loaded;
    }
    state_ = ClientState::kIdle;
  }
  CheckNotifications();
  switch (state_) {
    case ClientState::kIdle:
      StepIdle();
      break;
    case ClientState::kFetchingTask:
      OnFetchResult();
      break;
    case ClientState::kUploading:
      OnUploadResult();
      break;
    case ClientState::kReporting:
      OnReportResult();
      break;
    case ClientState::kBackoff:
      if (now_ms_ >= retry_at_ms_) {
        state_ = ClientState::kIdle;
        StepIdle();
      }
      break;
    case ClientState::kHalted:
      return last_error_.ok() ? Status::Ok() : last_error_;
    case ClientState::kStart:
    case ClientState::kDone:
      break;
  }
  return Status::Ok();
}

Status DeviceClient::LoadRecord() {
  const StatusWithSize read =
      config_.storage->Read(config_.storage_key, record_);
  if (read.status() == Status::NotFound()) {
    SetRecordSize(0);
    return Status::Ok();
  }
  // A record larger than this build can hold is not ours to ignore.
  if (read.status() == Status::ResourceExhausted()) return Status::DataLoss();
  EDGEADMM_TRY(read);
  ClientRecordView view;
  EDGEADMM_TRY(ParseClientRecord(record_.first(read.size()), view));
  EDGEADMM_TRY(InspectDeviceState(view.state));
  SetRecordSize(read.size());
  if (view.has_pending) {
    ++counters_.resumed_uploads;
    EDGEADMM_LOG_INFO("client %s: resending the upload of job %llu round %llu",
                      config_.device_id,
                      static_cast<unsigned long long>(view.job_id),
                      static_cast<unsigned long long>(view.round_id));
  }
  return Status::Ok();
}

void DeviceClient::CheckNotifications() {
  if (!observing_) return;
  TransportResult result;
  while (config_.transport->TakeNotification(result)) {
    observe_answered_ = true;
    if (result.status.ok() && result.code == wire::kCoapContent) {
      task_size_ = result.payload_size;
      task_available_ = true;
      last_task_ms_ = now_ms_;
      continue;
    }
    if (config_.stream_rows > 0 &&
        result.status == Status::ResourceExhausted() &&
        result.code == wire::kCoapContent) {
      // A task too large for the buffer (a streaming transport keeps the
      // observation): fetch it into the sink.
      stream_fetch_due_ = true;
      last_task_ms_ = now_ms_;
      continue;
    }
    // The observation ended (refused, failed or cancelled): re-register after
    // a backoff from StepIdle.
    observing_ = false;
    config_.transport->StopObserve();
    const Status error = result.status.ok()
                             ? wire::StatusFromCoapCode(result.code)
                             : result.status;
    last_error_ = error;
    if (!result.status.ok()) ++counters_.transport_errors;
    if (state_ == ClientState::kIdle) Backoff(error);
  }
}

void DeviceClient::StepIdle() {
  if (record_dirty_) {
    if (!PersistRecord(record_size_).ok()) return;
  }
  if (upload_pending()) {
    StartUpload();
    return;
  }
  if (task_available_) {
    ProcessTask();
    if (state_ != ClientState::kIdle || task_available_) return;
  }
  if (stream_fetch_due_) {
    stream_fetch_due_ = false;
    StartFetch();
    return;
  }
  if (config_.use_observe) {
    if (!observing_) {
      StartObserve();
    } else if (reregister_) {
      // The task changed under a live session (a stale upload): register
      // again on it; the registration's response is the current task.
      config_.transport->StopObserve();
      observing_ = false;
      StartObserve();
    } else if (now_ms_ >= last_task_ms_ + RefreshAfterMs()) {
      // No notification for a while: the server may have dropped the
      // observation (a lost confirmable notification ends it), or forgotten
      // the whole session (it restarted): it then drops the session's records
      // without an answer, and a registration on it would fail only after
      // all its retransmissions (93 s with the default ACK_TIMEOUT) while the
      // aggregator runs its rounds without this device. Register again on a
      // new session.
      config_.transport->StopObserve();
      config_.transport->Reconnect();
      observing_ = false;
      StartObserve();
    }
  } else if (now_ms_ >= next_fetch_ms_) {
    StartFetch();
  }
}

uint64_t DeviceClient::RefreshAfterMs() const {
  // An unanswered registration is still being retransmitted by the
  // transport, which answers or fails it within its retransmission limit; a
  // new one would wait behind it (NSTART = 1) only to find its answer
  // discarded. Re-registering every interval under loss built a queue of
  // stale registrations that kept a device IDLE for minutes. The longer
  // wait is a safety net for a transport that never reports.
  return observe_answered_ ? config_.task_refresh_ms
                           : uint64_t{kUnansweredRegistrationRefreshes} *
                                 config_.task_refresh_ms;
}

void DeviceClient::StartObserve() {
  const Status started =
      config_.transport->StartObserve(wire::kTaskPath, task_bytes_);
  if (!started.ok()) {
    Backoff(started);
    return;
  }
  observing_ = true;
  observe_answered_ = false;
  reregister_ = false;
  last_task_ms_ = now_ms_;
}

void DeviceClient::StartFetch() {
  TransportRequest request;
  request.method = CoapMethod::kGet;
  request.path = wire::kTaskPath;
  // A streaming party takes every task through the sink: one that fits is
  // copied into task_bytes_ on the way (ProcessTask), a larger one streams.
  fetch_streamed_ = stream_ != nullptr;
  if (fetch_streamed_) request.response_sink = stream_->StartFetch();
  const Status started = config_.transport->StartRequest(
      request, fetch_streamed_ ? response_ : task_bytes_);
  if (!started.ok()) {
    Backoff(started);
    return;
  }
  state_ = ClientState::kFetchingTask;
}

void DeviceClient::OnFetchResult() {
  TransportResult result;
  if (!config_.transport->TakeResult(result)) return;
  state_ = ClientState::kIdle;
  const bool streamed = fetch_streamed_;
  fetch_streamed_ = false;
  if (streamed && stream_->OnStopped(result)) return;
  if (!result.status.ok()) {
    ++counters_.transport_errors;
    Backoff(result.status);
    return;
  }
  if (result.code != wire::kCoapContent) {
    Backoff(wire::StatusFromCoapCode(result.code));
    return;
  }
  ResetBackoff();
  next_fetch_ms_ = now_ms_ + config_.task_refresh_ms;
  last_task_ms_ = now_ms_;
  if (streamed) {
    stream_->OnBody(result.payload_size);
    return;
  }
  task_size_ = result.payload_size;
  task_available_ = true;
  StepIdle();
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
  const Status decoded = wire::DecodeRoundTask(
      ConstByteSpan(task_bytes_.data(), task_size_), *model, *auxiliary, task);
  if (!decoded.ok()) {
    ++counters_.tasks_invalid;
    last_error_ = decoded;
    EDGEADMM_LOG_WARN("client %s: task refused at decode: %s",
                      config_.device_id, decoded.str());
    return;
  }
  ++counters_.tasks_received;
  const edgeadmm_wire_RoundTask& h = task.header;
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
    size_t length, Real pp_loss) const {
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
  const Result<Real> epsilon = trainer.LocalEpsilon();
  // +inf (above the ledger's cap) goes out as the largest finite value the
  // wire carries: never as 0, which would read as "nothing spent".
  update.ledger.epsilon = !epsilon.ok() ? 0.0
                          : std::isfinite(*epsilon)
                              ? *epsilon
                              : std::numeric_limits<double>::max();
  update.ledger.delta = config_.delta;
  // pp-admm's P_i(T), last iteration only; +inf as the largest finite.
  update.pp_loss =
      std::isfinite(pp_loss) ? pp_loss : std::numeric_limits<double>::max();
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
                      TaskOf(*algorithms_, h));
  const size_t dim = config_.data.dim();
  // The task's vectors and the upload: one entry per feature, or per record
  // (admm-sharing).
  const size_t length = adapter->per_record ? config_.data.samples() : dim;
  if (task.model.size() != length) return Status::FailedPrecondition();
  DevicePrivacyLedger earlier_jobs;
  EDGEADMM_TRY(PrepareTrainer(h, *adapter, earlier_jobs));

  // A task phase may append entries (admm-sharing's scoring phase: the
  // partial scores after the share) and name its own upload kind.
  const size_t extra = adapter->phase_upload_extra != nullptr
                           ? adapter->phase_upload_extra(h)
                           : 0;
  const size_t upload_length = length + extra;
  EDGEADMM_TRY_ASSIGN(Span<Real> upload, ws.Allocate<Real>(upload_length));
  EDGEADMM_TRY_ASSIGN(
      ByteSpan update_bytes,
      ws.Allocate<std::byte>(wire::MaxUpdateBytes(upload_length)));
  // The algorithm's task adapter runs its step (steps/*_task.cc).
  internal::TaskOutput output;
  EDGEADMM_TRY(
      adapter->run(internal::TaskInput{h, task.model, config_.data.samples(),
                                       task.auxiliary, &config_.test_data},
                   *config_.trainer, upload, output));
  ++counters_.steps_computed;
  const edgeadmm_wire_Update update = UpdateHeader(
      h, extra > 0 ? adapter->phase_update_kind : adapter->update_kind,
      upload_length, output.pp_loss);
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
  // Spread retries of a fleet over up to +50% so they do not synchronise: a
  // fixed function of the device id and the attempt (not a secret).
  id_spread_ = id_spread_ * 1664525u + 1013904223u;
  const uint32_t spread =
      backoff_ms_ / 2 == 0 ? 0 : id_spread_ % (backoff_ms_ / 2);
  retry_at_ms_ = now_ms_ + backoff_ms_ + spread;
  state_ = ClientState::kBackoff;
}

}  // namespace edgeadmm
