#include "edgeadmm/secagg/phase_client.h"

#include "edgeadmm/result.h"
#include "edgeadmm/secagg/phase_frames.h"

namespace edgeadmm {
namespace {

// CoAP codes (RFC 7252 12.1.2; RFC 6585 for 4.29), class * 32 + detail.
constexpr uint8_t kChanged = 2 * 32 + 4;
constexpr uint8_t kContent = 2 * 32 + 5;
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
  EDGEADMM_TRY(session_.Advertise(params, random_));
  return Persist();
}

Status SecAggPhaseClient::Resume(Span<const uint32_t> input) {
  input_ = input;
  const StatusWithSize n = storage_.Read(key_, buf_.blob);
  if (!n.ok()) return n.status();
  return session_.Restore(ConstByteSpan(buf_.blob.data(), n.size()));
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
  if (status.ok()) {
    session_.Finish();
  } else {
    session_.Abort();
  }
  outcome_ = status;
  finished_ = true;
}

Status SecAggPhaseClient::Advance(ConstByteSpan answer) {
  SecAggFrameHeader header;
  switch (session_.phase()) {
    case SecAggDevicePhase::kAdvertised: {
      const StatusWithSize n = DecodeSecAggKeys(answer, header, buf_.keys);
      if (!n.ok()) return n.status();
      if (header.round_id != session_.params().round_id) {
        return Status::InvalidArgument();
      }
      EDGEADMM_TRY(session_.ShareKeys(
          Span<const SecAggPeerKeys>(buf_.keys.data(), n.size()), random_));
      break;
    }
    case SecAggDevicePhase::kSharesSent: {
      const StatusWithSize n = DecodeSecAggSealed(answer, header, buf_.sealed);
      if (!n.ok()) return n.status();
      if (header.round_id != session_.params().round_id) {
        return Status::InvalidArgument();
      }
      EDGEADMM_TRY(session_.MaskInput(
          Span<const SecAggSealed>(buf_.sealed.data(), n.size()), input_,
          random_));
      break;
    }
    case SecAggDevicePhase::kMaskedSent: {
      const StatusWithSize n =
          DecodeSecAggWords(answer, header, buf_.survivors);
      if (!n.ok()) return n.status();
      if (header.round_id != session_.params().round_id) {
        return Status::InvalidArgument();
      }
      EDGEADMM_TRY(session_.Reveal(
          Span<const uint32_t>(buf_.survivors.data(), n.size())));
      break;
    }
    default:
      return Status::FailedPrecondition();
  }
  return Persist();
}

void SecAggPhaseClient::Step(uint64_t now_ms) {
  if (finished_) return;
  if (!in_flight_) {
    if (now_ms < next_ms_) return;
    const StatusWithSize n = Encode();
    if (!n.ok()) return End(n.status());
    const auto phase = static_cast<size_t>(session_.phase());
    request_ = TransportRequest{};
    request_.method = CoapMethod::kPost;
    request_.path = kSecAggPaths[phase - 1];
    request_.content_format = kSecAggFrameFormat;
    request_.payload = ConstByteSpan(buf_.request.data(), n.size());
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
  if (!result.status.ok() || result.code == kTooManyRequests ||
      result.code == kServiceUnavailable) {
    return;  // tried again after the interval
  }
  if (result.code == kChanged) {
    if (session_.phase() == SecAggDevicePhase::kRevealed) End(Status::Ok());
    return;  // the phase is still open
  }
  if (result.code != kContent) return End(StatusOfCode(result.code));
  const Status s =
      Advance(ConstByteSpan(buf_.response.data(), result.payload_size));
  if (!s.ok()) return End(s);
  next_ms_ = now_ms;  // the next phase's message leaves at once
}

}  // namespace edgeadmm
