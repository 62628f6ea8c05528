// DeviceClient: Init, the state machine (Poll), the persisted record and the
// task delivery (Observe or GET). The round itself (local step, upload,
// report, backoff) is in device_client_round.cc.
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
#include "secure_round_hooks.h"
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

// Carves `bytes` bytes from `ws`; RESOURCE_EXHAUSTED when it does not fit.
Result<ByteSpan> Carve(Workspace& ws, size_t bytes) {
  return ws.Allocate<std::byte>(bytes);
}

}  // namespace

bool DeviceClient::SetTaskPath(const char* job) {
  char* out = task_path_;
  for (const char* c = wire::kTaskPath; *c != '\0';) *out++ = *c++;
  if (job != nullptr && job[0] != '\0') {
    *out++ = '/';
    size_t n = 0;
    for (; job[n] != '\0'; ++n) {
      const char c = job[n];
      const bool allowed = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                           (c >= '0' && c <= '9') || c == '.' || c == '_' ||
                           c == '-';
      if (n >= wire::kMaxJobNameLength || !allowed) return false;
      *out++ = c;
    }
  }
  *out = '\0';
  return true;
}

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
    case ClientState::kSecureRound:
      return "SECURE_ROUND";
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
      (config.stream_rows > 0 && algorithms.create_streaming == nullptr) ||
      (config.secagg_max_neighbours > 0 &&
       algorithms.secure_rounds == nullptr) ||
      !SetTaskPath(config.job)) {
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
  secagg_ = nullptr;
  secure_ = algorithms.secure_rounds;
  if (secure_ != nullptr) EDGEADMM_TRY((this->*secure_->init)(ws));
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
  quiet_refreshes_ = 0;
  notify_gap_ms_ = 0;
  heartbeat_ms_ = 0;
  refresh_spread_ = static_cast<uint16_t>(id_spread_ % 1024u);
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
    case ClientState::kSecureRound:
      return config_.secagg_poll_ms;  // the transport wakes the loop earlier
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
    const Status resumed =
        secure_ != nullptr ? (this->*secure_->resume)() : Status::Ok();
    if (!resumed.ok()) {  // the device drops out of that round
      last_error_ = resumed;
      EDGEADMM_LOG_WARN("client %s: cannot resume its secure round: %s",
                        config_.device_id, resumed.str());
    }
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
    case ClientState::kSecureRound:
      (this->*secure_->step)();  // only entered through the hooks
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
    // After the registration's answer, every notification is one the
    // server pushed.
    const bool pushed = observe_answered_;
    observe_answered_ = true;
    if (result.status.ok() && result.code == wire::kCoapContent) {
      if (pushed) NotePushedTask();
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
      if (pushed) NotePushedTask();
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
  if (record_dirty_ && !PersistRecord(record_size_).ok()) return;
  // A secure round's input encoded and persisted: its phases start.
  if (secure_ != nullptr && (this->*secure_->start_due)()) return;
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
      // new session, and wait twice as long for the next refresh unless a
      // notification comes (an overloaded gateway that notifies late is not
      // sent a handshake per device per interval).
      if (quiet_refreshes_ < kMaxRefreshDoublings) ++quiet_refreshes_;
      config_.transport->StopObserve();
      config_.transport->Reconnect();
      observing_ = false;
      StartObserve();
    }
  } else if (now_ms_ >= next_fetch_ms_) {
    StartFetch();
  }
}

void DeviceClient::NotePushedTask() {
  // The observation works: refreshes stop doubling. The server's rounds
  // come every `gap`: a refresh waits for twice the longest recent gap, so
  // a device that hears every round does not refresh between them.
  const uint64_t gap = now_ms_ - last_task_ms_;
  const uint32_t decayed = notify_gap_ms_ - notify_gap_ms_ / 8;
  notify_gap_ms_ =
      gap > decayed ? static_cast<uint32_t>(gap < UINT32_MAX ? gap : UINT32_MAX)
                    : decayed;
  quiet_refreshes_ = 0;
}

uint64_t DeviceClient::RefreshAfterMs() const {
  // An unanswered registration is still being retransmitted by the
  // transport, which answers or fails it within its retransmission limit; a
  // new one would wait behind it (NSTART = 1) only to find its answer
  // discarded. Re-registering every interval under loss built a queue of
  // stale registrations that kept a device IDLE for minutes. The longer
  // wait is a safety net for a transport that never reports.
  const uint64_t base = config_.task_refresh_ms;
  const uint64_t longest =
      config_.task_refresh_max_ms > base ? config_.task_refresh_max_ms : base;
  const uint64_t doubled = base << quiet_refreshes_;
  // A gateway that promises a notification every heartbeat is not taken for
  // dead after a shorter silence, whatever the gap a device learned from a
  // registration answered just before one.
  const uint64_t heard = notify_gap_ms_ > heartbeat_ms_
                             ? uint64_t{notify_gap_ms_}
                             : uint64_t{heartbeat_ms_};
  const uint64_t wanted = doubled > 2 * heard ? doubled : 2 * heard;
  const uint64_t wait = observe_answered_
                            ? (wanted < longest ? wanted : longest)
                            : kUnansweredRegistrationRefreshes * base;
  // Devices that registered together (after a restart, or one notification
  // to the whole fleet) refresh at different times.
  return wait + wait / 4 * refresh_spread_ / 1024;
}

void DeviceClient::StartObserve() {
  const Status started =
      config_.transport->StartObserve(task_path_, task_bytes_);
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
  request.path = task_path_;
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

}  // namespace edgeadmm
