#include "streaming_party.h"

#include <cstring>
#include <new>

#include "edgeadmm/log.h"
#include "edgeadmm/result.h"
#include "edgeadmm/share_noise_stream.h"
#include "edgeadmm/wire/coap_code.h"
#include "edgeadmm/wire/update.h"
#include "steps/algorithm_task.h"

namespace edgeadmm::internal {

static_assert(sizeof(StreamingParty) <= kStreamingPartyObjectBytes,
              "DeviceClient::MemoryBytes counts the object");

Result<ClientStreaming*> CreateClientStreaming(DeviceClient& client,
                                               Workspace& memory) {
  EDGEADMM_TRY_ASSIGN(ByteSpan object,
                      memory.Allocate<std::byte>(kStreamingPartyObjectBytes));
  auto* party = new (object.data()) StreamingParty(client);
  EDGEADMM_TRY(party->Init(memory));
  return static_cast<ClientStreaming*>(party);
}

Status StreamingParty::Init(Workspace& memory) {
  if (!client_.config_.transport->streams_bodies()) {
    return Status::InvalidArgument();
  }
  const size_t rows = client_.config_.stream_rows;
  const size_t dim = client_.config_.data.dim();
  EDGEADMM_TRY_ASSIGN(block_, memory.Allocate<Real>(rows));
  EDGEADMM_TRY_ASSIGN(zeros_, memory.Allocate<Real>(rows));
  EDGEADMM_TRY_ASSIGN(x_, memory.Allocate<Real>(dim));
  EDGEADMM_TRY_ASSIGN(header_,
                      memory.Allocate<std::byte>(wire::MaxRoundTaskBytes(0)));
  EDGEADMM_TRY_ASSIGN(
      prefix_, memory.Allocate<std::byte>(DeviceClient::kMaxUpdatePrefixBytes));
  EDGEADMM_TRY_ASSIGN(recipe_, memory.Allocate<std::byte>(
                                   DeviceClient::kMaxStreamedRecipeBytes));
  for (Real& z : zeros_) z = 0;
  return Status::Ok();
}

BodySink* StreamingParty::StartFetch() {
  overflow_ = false;
  step_ = false;
  refusal_ = Status::Ok();
  reader_.Reset(header_, block_, this);
  return this;
}

Status StreamingParty::Write(size_t offset, ConstByteSpan bytes) {
  if (offset == 0) {  // (re)start of the body: forget an earlier attempt
    overflow_ = false;
    step_ = false;
    refusal_ = Status::Ok();
  }
  // A task that fits the client's buffer is also kept whole (ProcessTask).
  const ByteSpan whole = client_.task_bytes_;
  if (!overflow_ && offset <= whole.size() &&
      bytes.size() <= whole.size() - offset) {
    std::memcpy(whole.data() + offset, bytes.data(), bytes.size());
  } else {
    overflow_ = true;
  }
  return reader_.Write(offset, bytes);
}

Status StreamingParty::OnHeader(const edgeadmm_wire_RoundTask& h) {
  if (h.role != edgeadmm_wire_Role_ROLE_PARTICIPATE) return Status::Ok();
  const auto value = static_cast<uint32_t>(h.algorithm);
  const AlgorithmTask* adapter =
      IsAlgorithmKind(value)
          ? client_.algorithms_->find(static_cast<AlgorithmKind>(value))
          : nullptr;
  // Not streamable: handled whole by ProcessTask if it fits the buffer.
  if (adapter == nullptr || adapter->begin_stream == nullptr) {
    return Status::Ok();
  }
  adapter_ = adapter;
  if (client_.AlreadyHandled(h)) return Status::Cancelled();
  // The fields before the vectors (job, round, loss) start the step; the
  // params come after the vectors and are checked at the end of the body.
  Status begun = client_.PrepareTrainer(h, *adapter, earlier_jobs_);
  if (begun.ok()) begun = adapter->begin_stream(h, *client_.config_.trainer);
  if (!begun.ok()) {
    refusal_ = begun;  // reported when the exchange ends
    return Status::Cancelled();
  }
  step_ = true;
  return Status::Ok();
}

Status StreamingParty::OnValues(wire::TaskVector which, size_t first,
                                Span<const Real> values) {
  if (!step_) return Status::Ok();  // kept whole for ProcessTask
  return adapter_->accumulate_stream(*client_.config_.trainer,
                                     which == wire::TaskVector::kModel, first,
                                     values, zeros_);
}

bool StreamingParty::OnStopped(const TransportResult& result) {
  DeviceClient& c = client_;
  if (!result.status.ok() && !refusal_.ok()) {
    // The download was stopped at the header: the task was refused.
    c.next_fetch_ms_ = c.now_ms_ + c.config_.task_refresh_ms;
    c.Refuse(reader_.header(), refusal_);
    return true;
  }
  if (!reader_.error().ok() && reader_.error() != Status::Cancelled()) {
    // The body was refused at decode (or by the step) while streaming.
    ++c.counters_.tasks_invalid;
    EDGEADMM_LOG_WARN("client %s: streamed task refused: %s",
                      c.config_.device_id, reader_.error().str());
    c.Backoff(reader_.error());
    return true;
  }
  if (result.status == Status::Cancelled()) {
    // Stopped at the header: nothing to do for this task.
    c.ResetBackoff();
    c.next_fetch_ms_ = c.now_ms_ + c.config_.task_refresh_ms;
    c.last_task_ms_ = c.now_ms_;
    return true;
  }
  return false;
}

void StreamingParty::OnBody(size_t size) {
  DeviceClient& c = client_;
  Status complete = reader_.Finish();
  if (complete.ok()) complete = c.ValidateParams(reader_.header());
  if (!complete.ok()) {
    ++c.counters_.tasks_invalid;
    c.last_error_ = complete;
    EDGEADMM_LOG_WARN("client %s: streamed task refused at decode: %s",
                      c.config_.device_id, complete.str());
    return;
  }
  const edgeadmm_wire_RoundTask& h = reader_.header();
  c.heartbeat_ms_ = h.heartbeat_ms;
  if (!step_) {
    if (!overflow_) {  // a task that fit: the usual path
      c.task_size_ = size;
      c.task_available_ = true;
      c.StepIdle();
      return;
    }
    ++c.counters_.tasks_received;
    // Too large to hold and not streamable: this device cannot run it.
    if (h.role == edgeadmm_wire_Role_ROLE_PARTICIPATE && !c.AlreadyHandled(h)) {
      c.Refuse(h, Status::OutOfRange());
    }
    return;
  }
  ++c.counters_.tasks_received;
  step_ = false;
  const Status finished = FinishStep(h);
  if (finished.ok()) {
    if (c.config_.halt_after_persist) {
      c.state_ = ClientState::kHalted;
      return;
    }
    c.StartUpload();
    return;
  }
  if (finished == Status::Unavailable() && c.record_dirty_) return;
  c.Refuse(h, finished);
}

Status StreamingParty::FinishStep(const edgeadmm_wire_RoundTask& h) {
  DeviceClient& c = client_;
  // The reader checked that the whole header kept the algorithm of the
  // fields the step began with: adapter_ is its adapter.
  const AlgorithmTask* adapter = adapter_;
  // A secure-aggregation round (its plan follows the vectors): refused as
  // a whole task is (device_client_round.cc, TaskOf).
  if (h.has_secure_aggregation) return Status::Unimplemented();
  std::byte key[ShareNoiseStream::kKeyBytes];
  plan_ = StreamPlan{};
  EDGEADMM_TRY(adapter->finish_stream(h, c.config_.data.samples(),
                                      &c.config_.test_data, *c.config_.trainer,
                                      ByteSpan(key, sizeof key), plan_));
  ++c.counters_.steps_computed;
  const size_t n = c.config_.data.samples();
  const size_t extra = plan_.score_rows;
  const edgeadmm_wire_Update update = c.UpdateHeader(
      h, extra > 0 ? adapter->phase_update_kind : adapter->update_kind,
      n + extra, {});
  const StatusWithSize prefix =
      wire::EncodeUpdatePrefix(update, n + extra, prefix_);
  EDGEADMM_TRY(prefix);
  StreamedShareRecipe recipe;
  recipe.prefix = prefix_.first(prefix.size());
  recipe.share_rows = static_cast<uint32_t>(n);
  recipe.score_rows = static_cast<uint32_t>(extra);
  recipe.share_sigma = plan_.share_sigma;
  recipe.score_sigma = plan_.score_sigma;
  recipe.key = ConstByteSpan(key, sizeof key);
  const StatusWithSize written = WriteStreamedShareRecipe(recipe, recipe_);
  // The key lives in the record from here on (persisted before any share
  // row leaves) and nowhere else.
  std::memset(key, 0, sizeof key);
  EDGEADMM_TRY(written);
  Workspace scratch(c.config_.compute_scratch);
  return c.PersistStep(h, recipe_.first(written.size()), earlier_jobs_,
                       /*streamed=*/true, scratch);
}

BodySource* StreamingParty::UploadSource(Status& error) {
  DeviceClient& c = client_;
  ClientRecordView view;
  StreamedShareRecipe recipe;
  error = ParseClientRecord(c.record_.first(c.record_size_), view);
  if (error.ok()) error = ParseStreamedShareRecipe(view.upload, recipe);
  if (error.ok()) {
    // x̃_m from the persisted state (the trainer may have been reset since:
    // a reboot between the step and the receipt).
    // The secondary vector, if the state has one, goes to the scratch.
    const Result<DeviceStateInfo> info = InspectDeviceState(view.state);
    Workspace scratch(c.config_.compute_scratch);
    const Result<Span<Real>> secondary =
        info.ok() ? scratch.Allocate<Real>(info->secondary_dim)
                  : Result<Span<Real>>(info.status());
    error = secondary.status();
    if (error.ok()) {
      DeviceState state;
      state.primary = x_;
      state.secondary = *secondary;
      error = DeserializeDeviceState(view.state, state);
    }
  }
  if (error.ok()) {
    error =
        source_.Bind(recipe, c.config_.data, c.config_.test_data, x_, block_);
  }
  return error.ok() ? &source_ : nullptr;
}

}  // namespace edgeadmm::internal
