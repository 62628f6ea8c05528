#include "edgeadmm/secagg/phase_client.h"

#include <cstring>

#include "device_session_overlay.h"
#include "edgeadmm/result.h"
#include "edgeadmm/secagg/phase_frames.h"

namespace edgeadmm {
namespace {

// CoAP codes (RFC 7252 12.1.2; RFC 6585 for 4.29), class * 32 + detail.
constexpr uint8_t kChanged = 2 * 32 + 4;
constexpr uint8_t kContent = 2 * 32 + 5;
constexpr uint8_t kRequestEntityIncomplete = 4 * 32 + 8;
constexpr uint8_t kTooManyRequests = 4 * 32 + 29;
constexpr uint8_t kServiceUnavailable = 5 * 32 + 3;

Status StatusOfCode(uint8_t code) {
  switch (code >> 5) {
    case 4:
      return code == 4 * 32 + 3   ? Status::PermissionDenied()
             : code == 4 * 32 + 4 ? Status::NotFound()
                                  : Status::FailedPrecondition();
    default:
      return Status::Unavailable();
  }
}

// The answer array `region` started afresh (device_session_overlay.h): the
// answer arrays may share memory with each other and with the frames
// (phase_client.h), so each decode begins its array's lifetime.
template <typename T>
Span<T> Fresh(Span<T> region) {
  return secagg_internal::Begin<T>(region, region.size());
}

}  // namespace

SecAggPhaseClient::SecAggPhaseClient(Transport& transport, Storage& storage,
                                     const char* storage_key,
                                     SecAggDeviceSession& session,
                                     RandomByteSource& random,
                                     const SecAggClientBuffers& buf)
    : transport_(transport),
      storage_(storage),
      key_(storage_key),
      session_(session),
      random_(random),
      buf_(buf) {}

Status SecAggPhaseClient::Start(const SecAggSessionParams& params,
                                Span<const uint32_t> input) {
  input_ = input;
  accepted_ = false;
  EDGEADMM_TRY(session_.Advertise(params, random_));
  return Persist();
}

Status SecAggPhaseClient::Join(Span<const uint32_t> input, uint64_t round_id) {
  if (session_.phase() != SecAggDevicePhase::kIdle || joining_) {
    return Status::FailedPrecondition();
  }
  if (buf_.response.size() < SecAggRoundBytes()) {
    return Status::ResourceExhausted();
  }
  input_ = input;
  join_round_ = round_id;
  if (round_id == 0) {
    // memcpy of a constant length: strcpy would link libc's strcpy into an
    // MCU image for this one call.
    static_assert(sizeof(kSecAggRoundPath) <= kMaxSecAggRoundPathBytes);
    std::memcpy(round_path_, kSecAggRoundPath, sizeof(kSecAggRoundPath));
  } else {
    FormatSecAggRoundPath(round_id, round_path_);
  }
  joining_ = true;
  finished_ = false;
  outcome_ = Status::Ok();
  return Status::Ok();
}

bool SecAggPhaseClient::Fits(const SecAggSessionParams& p) const {
  const size_t k = p.degree < p.devices - 1 ? p.degree : p.devices - 1;
  const size_t request = SecAggSealedBytes(k) > SecAggWordsBytes(p.mask_length)
                             ? SecAggSealedBytes(k)
                             : SecAggWordsBytes(p.mask_length);
  // For k >= 1 phase 2's frames are the largest of their direction: the
  // sealed messages (12 + 86k B) above the keys (12 + 68k B), phase 3's
  // survivors (20 + 4k B) and phase 4's shares (12 + 38k B).
  static_assert(SecAggSealedBytes(1) > SecAggKeysAnswerBytes(1) &&
                    SecAggSealedBytes(1) > SecAggSurvivorsBytes(2) &&
                    SecAggSealedBytes(1) > SecAggRevealBytes(1),
                "phase 2's frames are no longer the largest");
  return buf_.keys.size() >= k && buf_.sealed.size() >= k &&
         buf_.survivors.size() >= k + 1 && buf_.request.size() >= request &&
         buf_.response.size() >= SecAggSealedBytes(k) &&
         buf_.blob.size() >= SecAggSessionBlobBytes(k, p.mask_length);
}

Status SecAggPhaseClient::Joined(ConstByteSpan answer) {
  SecAggSessionParams params;
  EDGEADMM_TRY(DecodeSecAggRound(answer, params));
  if (join_round_ != 0 && params.round_id != join_round_) {
    return Status::InvalidArgument();
  }
  if (!Fits(params)) return Status::ResourceExhausted();
  if (input_.size() != params.mask_length) return Status::InvalidArgument();
  const uint32_t limit =
      params.bits >= 32 ? 0xFFFFFFFFu : (uint32_t{1} << params.bits) - 1;
  for (uint32_t v : input_) {
    if ((v & ~limit) != 0) return Status::InvalidArgument();
  }
  return Start(params, input_);
}

Status SecAggPhaseClient::Resume(Span<const uint32_t> words) {
  accepted_ = false;  // not known after a restart: the message is resent
  const StatusWithSize n = storage_.Read(key_, buf_.blob);
  if (!n.ok()) return n.status();
  EDGEADMM_TRY(session_.Restore(ConstByteSpan(buf_.blob.data(), n.size())));
  const size_t m = session_.params().mask_length;
  if (m > words.size()) return Status::DataLoss();
  input_ = words.first(m);
  return Status::Ok();
}

Status SecAggPhaseClient::Persist() {
  const StatusWithSize n = session_.Serialize(buf_.blob);
  if (!n.ok()) return n.status();
  return storage_.Write(key_, ConstByteSpan(buf_.blob.data(), n.size()));
}

StatusWithSize SecAggPhaseClient::Encode() {
  const uint64_t round = session_.params().round_id;
  switch (session_.phase()) {
    case SecAggDevicePhase::kAdvertised:
      return EncodeSecAggAdvertise(round, session_.advertisement(),
                                   buf_.request);
    case SecAggDevicePhase::kSharesSent:
      return EncodeSecAggSealed(round, session_.sealed_messages(),
                                buf_.request);
    case SecAggDevicePhase::kMaskedSent:
      return EncodeSecAggWords(round, session_.masked_input(), buf_.request);
    case SecAggDevicePhase::kRevealed:
      return EncodeSecAggReveal(round, session_.revealed_shares(),
                                buf_.request);
    default:
      return StatusWithSize(Status::FailedPrecondition(), 0);
  }
}

void SecAggPhaseClient::End(Status status) {
  joining_ = false;
  accepted_ = false;
  if (session_.phase() == SecAggDevicePhase::kIdle) {
    // Phase 0 failed: nothing to wipe, and a later Join may ask again.
  } else if (status.ok()) {
    session_.Finish();
  } else {
    session_.Abort();
  }
  outcome_ = status;
  finished_ = true;
}

Status SecAggPhaseClient::Advance(ConstByteSpan answer) {
  // The phase's answer decoded into its (fresh) array, its round checked
  // once, then the session's step on it.
  const SecAggDevicePhase phase = session_.phase();
  SecAggFrameHeader header;
  StatusWithSize n(Status::FailedPrecondition(), 0);
  SurvivorAnswer survived;
  if (phase == SecAggDevicePhase::kAdvertised) {
    n = DecodeSecAggKeys(answer, header, Fresh(buf_.keys));
  } else if (phase == SecAggDevicePhase::kSharesSent) {
    n = DecodeSecAggSealed(answer, header, Fresh(buf_.sealed));
  } else if (phase == SecAggDevicePhase::kMaskedSent) {
    n = DecodeSecAggSurvivors(answer, header, survived.survivors,
                              Fresh(buf_.survivors));
  }
  if (!n.ok()) return n.status();
  if (header.round_id != session_.params().round_id) {
    return Status::InvalidArgument();
  }
  if (phase == SecAggDevicePhase::kAdvertised) {
    EDGEADMM_TRY(session_.ShareKeys(
        Span<const SecAggPeerKeys>(buf_.keys.data(), n.size()), random_));
  } else if (phase == SecAggDevicePhase::kSharesSent) {
    EDGEADMM_TRY(session_.MaskInput(
        Span<const SecAggSealed>(buf_.sealed.data(), n.size()), input_,
        random_));
  } else {
    survived.listed = Span<const uint32_t>(buf_.survivors.data(), n.size());
    EDGEADMM_TRY(session_.Reveal(survived));
  }
  return Persist();
}

void SecAggPhaseClient::Step(uint64_t now_ms) {
  if (finished_) return;
  if (!in_flight_) {
    if (now_ms < next_ms_) return;
    request_ = TransportRequest{};
    if (joining_) {
      request_.method = CoapMethod::kGet;
      request_.path = round_path_;
    } else {
      const auto phase = static_cast<size_t>(session_.phase());
      const StatusWithSize n =
          accepted_ ? EncodeSecAggPoll(static_cast<uint8_t>(phase),
                                       session_.params().round_id, buf_.request)
                    : Encode();
      if (!n.ok()) return End(n.status());
      request_.method = CoapMethod::kPost;
      request_.path = kSecAggPaths[phase - 1];
      request_.content_format = kSecAggFrameFormat;
      request_.payload = ConstByteSpan(buf_.request.data(), n.size());
    }
    if (transport_.StartRequest(request_, buf_.response).ok()) {
      in_flight_ = true;
    } else {
      next_ms_ = now_ms + poll_interval_ms;
    }
    return;
  }
  TransportResult result;
  if (!transport_.TakeResult(result)) return;
  in_flight_ = false;
  next_ms_ = now_ms + poll_interval_ms;
  // 4.08: the gateway lost the partial Block1 body (it went stale, or the
  // session's other request replaced it); the message is sent again whole.
  if (!result.status.ok() || result.code == kTooManyRequests ||
      result.code == kServiceUnavailable ||
      result.code == kRequestEntityIncomplete) {
    return;  // tried again after the interval
  }
  if (joining_) {
    if (result.code != kContent) return End(StatusOfCode(result.code));
    const Status s =
        Joined(ConstByteSpan(buf_.response.data(), result.payload_size));
    if (!s.ok()) return End(s);
    joining_ = false;
    next_ms_ = now_ms;  // phase 1's message leaves at once
    return;
  }
  if (result.code == kChanged) {
    if (session_.phase() == SecAggDevicePhase::kRevealed) End(Status::Ok());
    accepted_ = true;  // polled from now on (EncodeSecAggPoll)
    return;            // the phase is still open
  }
  if (result.code != kContent) return End(StatusOfCode(result.code));
  const Status s =
      Advance(ConstByteSpan(buf_.response.data(), result.payload_size));
  if (!s.ok()) return End(s);
  accepted_ = false;  // the next phase's message is sent whole
  next_ms_ = now_ms;  // the next phase's message leaves at once
}

}  // namespace edgeadmm
