// DeviceClient in a secure-aggregation round (docs/sdk.md, "DeviceClient in
// a secure round"): the step runs with sigma 0 and the device's own DDG noise
// charged (SecureAggregationChargeOf), its update is encoded once and
// persisted (EncodeSecAggInputOnce), and the words go through the SecAgg+
// phases (SecAggPhaseClient) in place of a clear upload.
#include "edgeadmm/device_client_secagg.h"

#include <cstring>
#include <new>

#include "edgeadmm/ddg_encoder.h"
#include "edgeadmm/device_client.h"
#include "edgeadmm/drbg.h"
#include "edgeadmm/log.h"
#include "edgeadmm/secagg/ddg_encoding.h"
#include "edgeadmm/secagg/device_session.h"
#include "edgeadmm/secagg/phase_client.h"
#include "edgeadmm/secagg/phase_frames.h"
#include "edgeadmm/secagg_input_record.h"
#include "edgeadmm/secure_aggregation_task.h"
#include "secagg/device_session_overlay.h"
#include "secure_round_hooks.h"

namespace edgeadmm {
namespace internal {

struct ClientSecAgg {
  ClientSecAgg(Transport& transport, Storage& storage,
               const SecAggSessionBuffers& regions,
               const SecAggClientBuffers& client_buffers)
      : session_buffers(regions),
        session(regions),
        phase(transport, storage, blob_key, session, drbg, client_buffers) {}

  SecAggSessionBuffers session_buffers;
  Drbg drbg;  // the phases' key pairs, seeds and Shamir polynomials
  SecAggDeviceSession session;
  SecAggPhaseClient phase;
  Span<uint32_t> words;  // d' words: the input, masked in place
  ByteSpan record;       // the input record
  DdgEncoderScratch scratch;
  ByteSpan blob;  // the phase blob, read at Init
  char input_key[Storage::kMaxKeyLength + 1] = {};
  char blob_key[Storage::kMaxKeyLength + 1] = {};
  uint64_t round_id = 0;  // SecAggRoundId of the encoded input's task
  size_t m = 0;           // the words of the round in flight
  bool join_due = false;  // words encoded, Join not called yet
};

}  // namespace internal

namespace {

constexpr size_t kObjectBytes = internal::kClientSecAggObjectBytes;
static_assert(sizeof(internal::ClientSecAgg) <= kObjectBytes,
              "raise kClientSecAggObjectBytes (device_client_secagg.h)");
static_assert(alignof(internal::ClientSecAgg) <= Workspace::kAlignment,
              "an over-aligned secure round");

size_t Padded(size_t dim) { return DdgPaddedDimension(dim); }

// `count` T at `offset` of the round's slice, which Workspace::Allocate
// zeroed: that started them (device_session_overlay.h).
template <typename T>
Span<T> Part(ByteSpan memory, size_t offset, size_t count) {
  return secagg_internal::View<T>(memory.subspan(offset, count * sizeof(T)),
                                  count);
}

}  // namespace

size_t DeviceClient::SecAggMemoryBytes(size_t dim, size_t k) {
  return SecureRoundMemoryBytes(dim, k);
}

const internal::SecureRoundHooks DeviceClient::kSecureRoundHooks{
    &DeviceClient::InitSecAgg,       &DeviceClient::ResumeSecureRound,
    &DeviceClient::ChargeSecureStep, &DeviceClient::EncodeSecureInput,
    &DeviceClient::StartSecureRound, &DeviceClient::StartDueSecureRound,
    &DeviceClient::StepSecureRound};

Status DeviceClient::InitSecAgg(Workspace& ws) {
  const size_t k = config_.secagg_max_neighbours;
  if (k == 0) return Status::Ok();
  if (k > kSecAggMaxNeighbours || config_.secagg_poll_ms == 0) {
    return Status::InvalidArgument();
  }
  const size_t m = Padded(config_.data.dim());
  // One zeroed slice (internal::SecureRoundLayoutOf), each part's objects
  // started by that zeroing.
  const internal::SecureRoundLayout at =
      internal::SecureRoundLayoutOf(config_.data.dim(), k);
  EDGEADMM_TRY_ASSIGN(ByteSpan memory, ws.Allocate<std::byte>(at.total));
  SecAggSessionBuffers session;
  session.neighbours = Part<SecAggPeerKeys>(memory, at.neighbours, k);
  session.sealed = Part<SecAggSealed>(memory, at.sealed, k);
  session.scratch = Part<SecAggPeerKey>(memory, at.scratch, k);
  SecAggClientBuffers buffers;
  // The request frame and the decoded answers in one region, the blob over
  // it and the answer frame's region after it: their uses never overlap in
  // time (phase_client.h). Each region runs to the next part (its size
  // rounded up to the alignment).
  const ByteSpan work = memory.subspan(at.work, at.response - at.work);
  buffers.request = work;
  buffers.blob = memory.subspan(at.work, at.blob_end - at.work);
  buffers.keys = secagg_internal::View<SecAggPeerKeys>(work, k);
  buffers.sealed = secagg_internal::View<SecAggSealed>(work, k);
  buffers.survivors = secagg_internal::View<uint32_t>(work, k + 1);
  buffers.response = memory.subspan(at.response, at.blob_end - at.response);
  DdgEncoderScratch scratch;
  scratch.real = Part<Real>(memory, at.real, m);
  scratch.integers = Part<int64_t>(memory, at.integers, m);
  scratch.sign_words = Part<uint32_t>(memory, at.signs, DdgSignWords(m));
  const Span<uint32_t> words = Part<uint32_t>(memory, at.words, m);
  const ByteSpan record = memory.subspan(at.record, SecAggInputRecordBytes(m));
  session.masked = words;  // y is made in place of the input words
  const size_t key = std::strlen(config_.storage_key);
  if (key + 3 > Storage::kMaxKeyLength) return Status::InvalidArgument();
  auto* s = new (memory.data()) internal::ClientSecAgg(
      *config_.transport, *config_.storage, session, buffers);
  // "<storage_key>.in" (the input record) and "<storage_key>.sa" (the blob).
  std::memcpy(s->input_key, config_.storage_key, key);
  std::memcpy(s->input_key + key, ".in", 4);
  std::memcpy(s->blob_key, config_.storage_key, key);
  std::memcpy(s->blob_key + key, ".sa", 4);
  s->words = words;
  s->record = record;
  s->scratch = scratch;
  s->blob = buffers.blob;
  s->phase.poll_interval_ms = config_.secagg_poll_ms;
  EDGEADMM_TRY(s->drbg.Init(
      *config_.entropy,
      ConstByteSpan(reinterpret_cast<const std::byte*>(config_.device_id),
                    std::strlen(config_.device_id))));
  secagg_ = s;
  return Status::Ok();
}

namespace {

// A fresh (idle) session; construction clears the buffers, the words too.
void ResetSession(internal::ClientSecAgg& s) {
  s.session.~SecAggDeviceSession();
  new (&s.session) SecAggDeviceSession(s.session_buffers);
}

// The session from the stored blob (it knows m), then the words the phases
// started with, never a new encoding; from phase 3 on the blob holds y.
Status RestoreRound(internal::ClientSecAgg& s, Storage& storage,
                    SecAggInputRound round) {
  EDGEADMM_TRY(s.phase.Resume(s.words));
  const size_t m = s.session.params().mask_length;
  if (s.session.phase() < SecAggDevicePhase::kMaskedSent) {
    EDGEADMM_TRY(LoadSecAggInput(storage, s.input_key, round, s.record,
                                 s.words.first(m)));
  }
  s.m = m;
  return Status::Ok();
}

}  // namespace

Status DeviceClient::ResumeSecureRound() {
  if (secagg_ == nullptr) return Status::Ok();  // not configured
  internal::ClientSecAgg& s = *secagg_;
  const StatusWithSize blob = config_.storage->Read(s.blob_key, s.blob);
  if (blob.status() == Status::NotFound() || (blob.ok() && blob.size() == 0)) {
    return Status::Ok();  // no round in flight
  }
  uint64_t job = 0;
  uint64_t round = 0;
  Status restored = blob.status();
  if (restored.ok()) {
    restored = last_step(job, round)
                   ? RestoreRound(s, *config_.storage, {job, round})
                   : Status::NotFound();
  }
  if (!restored.ok()) {
    // The device drops out of that round: an idle session, no blob.
    ResetSession(s);
    if (!config_.storage->Write(s.blob_key, ConstByteSpan()).ok()) {
      ++counters_.storage_errors;
    }
    return restored;
  }
  EDGEADMM_LOG_INFO("client %s: resuming the secure round of job %llu",
                    config_.device_id, static_cast<unsigned long long>(job));
  state_ = ClientState::kSecureRound;
  return Status::Ok();
}

Status DeviceClient::ChargeSecureStep(const edgeadmm_wire_RoundTask& h) {
  if (secagg_ != nullptr) secagg_->join_due = false;  // a new step
  if (!h.has_secure_aggregation) return Status::Ok();
  if (secagg_ == nullptr) return Status::Unimplemented();
  SecureAggregationTask task;
  EDGEADMM_TRY(SecureAggregationTaskOf(h, task));
  double sensitivity = 0;
  double noise_std = 0;
  EDGEADMM_TRY(SecureAggregationChargeOf(task, sensitivity, noise_std));
  config_.trainer->ChargeNextStepAs(sensitivity, noise_std);
  return Status::Ok();
}

Status DeviceClient::EncodeSecureInput(const edgeadmm_wire_RoundTask& h,
                                       Span<const Real> update) {
  internal::ClientSecAgg& s = *secagg_;
  SecureAggregationTask task;
  EDGEADMM_TRY(SecureAggregationTaskOf(h, task));
  const size_t m = Padded(task.plan.dimension);
  if (m > s.words.size()) return Status::ResourceExhausted();
  bool encoded = false;
  const Span<uint32_t> words = s.words.first(m);
  EDGEADMM_TRY(EncodeSecAggInputOnce(
      task, SecAggInputRound{h.job_id, h.round_id}, update,
      config_.trainer->drbg(), s.scratch, *config_.storage, s.input_key,
      s.record, words, encoded));
  s.m = m;
  s.round_id = SecAggRoundId(h.job_id, h.round_id);
  s.join_due = true;
  return Status::Ok();
}

bool DeviceClient::StartDueSecureRound() {
  if (secagg_ == nullptr || !secagg_->join_due) return false;
  StartSecureRound();
  return true;
}

void DeviceClient::StartSecureRound() {
  internal::ClientSecAgg& s = *secagg_;
  s.join_due = false;
  ++counters_.upload_attempts;
  const Status joined = s.phase.Join(s.words.first(s.m), s.round_id);
  if (!joined.ok()) {
    ++counters_.uploads_rejected;
    last_error_ = joined;
    return;
  }
  state_ = ClientState::kSecureRound;
}

uint8_t DeviceClient::secure_round_phase() const {
  if (secagg_ == nullptr || state_ != ClientState::kSecureRound) return 0;
  const SecAggDevicePhase phase = secagg_->session.phase();
  return phase >= SecAggDevicePhase::kAdvertised &&
                 phase <= SecAggDevicePhase::kRevealed
             ? static_cast<uint8_t>(phase)
             : 0;
}

void DeviceClient::StepSecureRound() {
  internal::ClientSecAgg& s = *secagg_;
  s.phase.Step(now_ms_);
  if (!s.phase.finished()) return;
  state_ = ClientState::kIdle;
  const Status outcome = s.phase.outcome();
  // A fresh session for the next round (this one ended in kDone or
  // kAborted), made now: it clears the words.
  ResetSession(s);
  // The round is over either way: a reboot must not resume it.
  if (!config_.storage->Write(s.blob_key, ConstByteSpan()).ok()) {
    ++counters_.storage_errors;
  }
  if (outcome.ok()) {
    ++counters_.uploads_accepted;
    ResetBackoff();
    return;
  }
  ++counters_.uploads_rejected;
  last_error_ = outcome;
  EDGEADMM_LOG_WARN("client %s: secure round ended: %s", config_.device_id,
                    outcome.str());
}

}  // namespace edgeadmm
