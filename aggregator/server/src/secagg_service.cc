#include "edgeadmm/server/secagg_service.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <utility>

#include "edgeadmm/secagg/phase_frames.h"
#include "edgeadmm/wire/coap_code.h"
#include "mbedtls/sha256.h"

namespace edgeadmm::server {
namespace {

using secure_aggregation::SecAggPhase;

Response Refuse(Status status, const char* why) {
  return ErrorResponse(status, why, 0, 0);
}

Response FromError(const host::Error& e) {
  return ErrorResponse(Status(e.code()), e.message().c_str(), 0, 0);
}

Response Frame(std::vector<uint8_t> body) {
  Response r;
  r.code = wire::kCoapContent;
  r.content_format = kSecAggFrameFormat;
  r.body = std::move(body);
  return r;
}

template <typename Encode>
Response Encoded(size_t size, Encode encode) {
  std::vector<uint8_t> body(size);
  const StatusWithSize n =
      encode(ByteSpan(reinterpret_cast<std::byte*>(body.data()), body.size()));
  if (!n.ok()) return Refuse(Status::Internal(), "answer does not encode");
  body.resize(n.size());
  return Frame(std::move(body));
}

using Digest = std::array<uint8_t, 32>;

bool DigestOf(const uint8_t* body, size_t size, Digest& out) {
  return mbedtls_sha256_ret(body, size, out.data(), 0) == 0;
}

host::Error DecodeError() {
  return host::Error::InvalidArgument("frame does not decode");
}

}  // namespace

host::Error SecAggService::Start(
    const secure_aggregation::SecAggRoundParams& params,
    std::vector<std::string> identities, int64_t phase_ms, int64_t now_ms,
    RandomByteSource& random) {
  std::vector<std::string> sorted = identities;
  std::sort(sorted.begin(), sorted.end());
  if (identities.size() != params.devices || phase_ms <= 0 ||
      std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
    return host::Error::InvalidArgument(
        "cohort must list params.devices distinct identities, phase_ms > 0");
  }
  auto round = std::make_unique<secure_aggregation::SecAggRound>();
  EDGEADMM_HOST_TRY(round->Init(params));
  round_ = std::move(round);
  identities_ = std::move(identities);
  index_.clear();
  for (uint32_t i = 0; i < identities_.size(); ++i) index_[identities_[i]] = i;
  random_ = &random;
  phase_ms_ = phase_ms;
  deadline_ms_ = now_ms + phase_ms;
  for (auto& a : accepted_) a.assign(params.devices, std::nullopt);
  sum_.reset();
  aborted_ = host::Error::Ok();
  if (!log_path_.empty() && !replaying_) {
    return log_.Create(log_path_, round_->params(), identities_, phase_ms);
  }
  return host::Error::Ok();
}

host::Error SecAggService::Recover(int64_t now_ms, RandomByteSource& random) {
  auto contents = SecAggRoundLog::Read(log_path_);
  if (!contents.ok()) return contents.error();
  replaying_ = true;
  host::Error e = Start(contents->params, contents->identities,
                        contents->phase_ms, now_ms, random);
  for (const SecAggLogRecord& r : contents->records) {
    if (!e.ok()) break;
    if (static_cast<int>(round_->phase()) != r.phase) continue;
    if (r.type == 2) {
      Close(now_ms);
      continue;
    }
    const ConstByteSpan frame(
        reinterpret_cast<const std::byte*>(r.bytes.data()), r.bytes.size());
    Digest digest;
    if (r.device < identities_.size() &&
        DigestOf(r.bytes.data(), r.bytes.size(), digest) &&
        Submit(r.phase, r.device, frame).ok()) {
      accepted_[r.phase - 1][r.device] = digest;
    }
  }
  replaying_ = false;
  if (!e.ok()) return e;
  if (round_->phase() == SecAggPhase::kAborted) {
    // The replayed close's before-unmask hook refused: the round ended,
    // and its log goes as at any end.
    std::remove(log_path_.c_str());
    return host::Error::Ok();
  }
  EDGEADMM_HOST_TRY(log_.Reopen(log_path_));
  // Every expected message arrived before the crash, the close did not:
  // it closes now (a masked inputs' close calls the before-unmask hook).
  const int open = static_cast<int>(round_->phase());
  if (open >= 1 && open <= 4 && AllAnswered(open)) Close(now_ms);
  return host::Error::Ok();
}

void SecAggService::Drop() {
  round_.reset();
  identities_.clear();
  index_.clear();
  sum_.reset();
  aborted_ = host::Error::Ok();
  log_.Remove();
}

size_t SecAggService::MaxBody(int phase) const {
  if (!round_) return 0;
  const auto& p = round_->params();
  switch (phase) {
    case 1:
      return SecAggAdvertiseBytes();
    case 2:
      return SecAggSealedBytes(p.degree);
    case 3:
      return SecAggWordsBytes(p.mask_length);
    case 4:
      return SecAggRevealBytes(p.degree);
    default:
      return 0;
  }
}

Response SecAggService::Round(std::string_view identity) const {
  if (!round_) return Refuse(Status::NotFound(), "no secure aggregation round");
  const auto it = index_.find(std::string(identity));
  if (it == index_.end()) {
    return Refuse(Status::PermissionDenied(), "device not in the round");
  }
  if (round_->phase() != SecAggPhase::kAdvertise) {
    return Refuse(Status::FailedPrecondition(), "the round cannot be joined");
  }
  const SecAggSessionParams s =
      secure_aggregation::SecAggSessionParamsFor(round_->params(), it->second);
  return Encoded(SecAggRoundBytes(),
                 [&](ByteSpan b) { return EncodeSecAggRound(s, b); });
}

Response SecAggService::Handle(int phase, std::string_view identity,
                               const uint8_t* body, size_t size,
                               int64_t now_ms) {
  if (!round_) return Refuse(Status::NotFound(), "no secure aggregation round");
  const auto it = index_.find(std::string(identity));
  if (it == index_.end()) {
    return Refuse(Status::PermissionDenied(), "device not in the round");
  }
  const uint32_t device = it->second;
  if (size > MaxBody(phase)) {
    Response r = Refuse(Status::OutOfRange(), "body larger than the phase's");
    r.size1 = static_cast<uint32_t>(MaxBody(phase));
    return r;
  }
  const ConstByteSpan frame(reinterpret_cast<const std::byte*>(body), size);
  SecAggFrameHeader header;
  if (!DecodeSecAggHeader(frame, header).ok() || header.phase != phase) {
    return Refuse(Status::InvalidArgument(), "not a frame of this phase");
  }
  if (header.round_id != round_->params().round_id) {
    return Refuse(Status::NotFound(), "another round");
  }
  if (!aborted_.ok()) return Refuse(Status::Aborted(), "round aborted");
  const auto& mine = accepted_[phase - 1][device];
  const int current = static_cast<int>(round_->phase());
  if (size == kSecAggFrameHeaderBytes) {
    // A poll (EncodeSecAggPoll): answered as an identical resend of the
    // device's accepted message, which it must have sent first.
    if (!mine) {
      return Refuse(Status::FailedPrecondition(),
                    "poll before the phase's message");
    }
    if (phase < current) return Answer(phase, device, header.round_id);
    Response open;
    open.code = wire::kCoapChanged;
    return open;
  }
  Digest digest;
  if (!DigestOf(body, size, digest)) {
    return Refuse(Status::Internal(), "digest failed");
  }
  if (phase < current) {
    if (mine && *mine == digest) {
      return Answer(phase, device, header.round_id);
    }
    return Refuse(Status::FailedPrecondition(), "phase closed");
  }
  if (phase > current) {
    return Refuse(Status::FailedPrecondition(), "phase not open");
  }
  if (const host::Error e = Submit(phase, device, frame); !e.ok()) {
    return FromError(e);
  }
  if (!mine && log_.open()) {
    if (const host::Error e = log_.Message(phase, device, body, size);
        !e.ok()) {
      return Refuse(Status::Unavailable(), "round log not written");
    }
  }
  accepted_[phase - 1][device] = digest;
  if (AllAnswered(phase)) Close(now_ms);
  if (!aborted_.ok()) return Refuse(Status::Aborted(), "round aborted");
  if (static_cast<int>(round_->phase()) > phase) {
    return Answer(phase, device, header.round_id);
  }
  Response accepted;
  accepted.code = wire::kCoapChanged;
  return accepted;
}

host::Error SecAggService::Submit(int phase, uint32_t device,
                                  ConstByteSpan frame) {
  SecAggFrameHeader header;
  const auto& p = round_->params();
  switch (phase) {
    case 1: {
      SecAggAdvertisement a;
      if (!DecodeSecAggAdvertise(frame, header, a).ok()) return DecodeError();
      const secure_aggregation::Advertisement message{
          ConstByteSpan(a.encryption_public, kX25519KeyBytes),
          ConstByteSpan(a.mask_public, kX25519KeyBytes),
          ConstByteSpan(a.self_seed_commitment, kSelfSeedCommitmentBytes)};
      return round_->Advertise(device, message);
    }
    case 2: {
      std::vector<SecAggSealed> sealed(p.degree);
      const StatusWithSize n = DecodeSecAggSealed(
          frame, header, Span<SecAggSealed>(sealed.data(), sealed.size()));
      if (!n.ok()) return DecodeError();
      std::vector<secure_aggregation::SealedShareMessage> messages;
      for (size_t i = 0; i < n.size(); ++i) {
        messages.push_back({sealed[i].peer, ConstByteSpan(sealed[i].sealed,
                                                          kSealedSharesBytes)});
      }
      return round_->SubmitShares(
          device, Span<const secure_aggregation::SealedShareMessage>(
                      messages.data(), messages.size()));
    }
    case 3: {
      std::vector<uint32_t> words(p.mask_length);
      const StatusWithSize n = DecodeSecAggWords(
          frame, header, Span<uint32_t>(words.data(), words.size()));
      if (!n.ok()) return DecodeError();
      return round_->SubmitMaskedInput(
          device, Span<const uint32_t>(words.data(), n.size()));
    }
    default: {
      std::vector<RevealedShare> shares(p.degree);
      const StatusWithSize n = DecodeSecAggReveal(
          frame, header, Span<RevealedShare>(shares.data(), shares.size()));
      if (!n.ok()) return DecodeError();
      return round_->SubmitRevealedShares(
          device, Span<const RevealedShare>(shares.data(), n.size()));
    }
  }
}

Response SecAggService::Answer(int phase, uint32_t device,
                               uint64_t round_id) const {
  switch (phase) {
    case 1: {
      auto keys = round_->NeighbourKeys(device);
      if (!keys.ok()) return FromError(keys.error());
      std::vector<SecAggPeerKeys> out(keys->size());
      for (size_t i = 0; i < out.size(); ++i) {
        const auto& k = (*keys)[i];
        out[i].device = k.device;
        std::memcpy(out[i].encryption_public, k.encryption_public.data(),
                    kX25519KeyBytes);
        std::memcpy(out[i].mask_public, k.mask_public.data(), kX25519KeyBytes);
      }
      return Encoded(SecAggKeysAnswerBytes(out.size()), [&](ByteSpan b) {
        return EncodeSecAggKeys(
            round_id, Span<const SecAggPeerKeys>(out.data(), out.size()), b);
      });
    }
    case 2: {
      auto shares = round_->SharesFor(device);
      if (!shares.ok()) return FromError(shares.error());
      std::vector<SecAggSealed> out(shares->size());
      for (size_t i = 0; i < out.size(); ++i) {
        out[i].peer = (*shares)[i].sender;
        std::memcpy(out[i].sealed, (*shares)[i].sealed.data(),
                    kSealedSharesBytes);
      }
      return Encoded(SecAggSealedBytes(out.size()), [&](ByteSpan b) {
        return EncodeSecAggSealed(
            round_id, Span<const SecAggSealed>(out.data(), out.size()), b);
      });
    }
    case 3: {
      auto survivors = round_->SurvivorsFor(device);
      if (!survivors.ok()) return FromError(survivors.error());
      SurvivorAnswer answer;
      answer.survivors = survivors->survivors;
      answer.listed = Span<const uint32_t>(survivors->listed.data(),
                                           survivors->listed.size());
      return Encoded(SecAggSurvivorsBytes(answer.listed.size()),
                     [&](ByteSpan b) {
                       return EncodeSecAggSurvivors(round_id, answer, b);
                     });
    }
    default: {
      Response accepted;
      accepted.code = wire::kCoapChanged;
      return accepted;
    }
  }
}

bool SecAggService::Awaits(int phase, size_t device) const {
  const bool expected = phase == 1 || accepted_[phase - 2][device].has_value();
  return expected && !accepted_[phase - 1][device];
}

bool SecAggService::AllAnswered(int phase) const {
  for (size_t d = 0; d < identities_.size(); ++d) {
    if (Awaits(phase, d)) return false;
  }
  return true;
}

std::vector<uint32_t> SecAggService::Awaited() const {
  std::vector<uint32_t> awaited;
  const int open = static_cast<int>(phase());
  if (!round_ || open < 1 || open > 4) return awaited;
  for (size_t d = 0; d < identities_.size(); ++d) {
    if (Awaits(open, d)) awaited.push_back(static_cast<uint32_t>(d));
  }
  return awaited;
}

void SecAggService::Close(int64_t now_ms) {
  host::Error e;
  const int closing = static_cast<int>(round_->phase());
  switch (round_->phase()) {
    case SecAggPhase::kAdvertise:
      e = round_->CloseAdvertise();
      break;
    case SecAggPhase::kShareKeys:
      e = round_->CloseShareKeys();
      break;
    case SecAggPhase::kMaskedInput:
      e = round_->CloseMaskedInput();
      if (e.ok()) e = BeforeUnmasking();
      break;
    case SecAggPhase::kUnmasking: {
      auto sum = round_->CloseUnmasking(*random_);
      if (sum.ok()) {
        sum_ = std::move(*sum);
      } else {
        e = sum.error();
      }
      break;
    }
    default:
      return;
  }
  if (!e.ok()) aborted_ = e;
  deadline_ms_ = now_ms + phase_ms_;
  if (log_.open() && !replaying_) {
    const SecAggPhase now = round_->phase();
    if (now == SecAggPhase::kDone || now == SecAggPhase::kAborted) {
      log_.Remove();
    } else if (const host::Error logged = log_.Closed(closing); !logged.ok()) {
      // The devices learn the close (e.g. the survivors) from the next
      // answers. A close the log lacks would reopen the phase after a
      // restart, where a later close could differ from the one they saw:
      // abort before anyone is answered.
      aborted_ = logged;
    }
  }
}

host::Error SecAggService::BeforeUnmasking() {
  if (!before_unmask_) return host::Error::Ok();
  const auto survivors = round_->Survivors();
  host::Error e =
      survivors.ok() ? before_unmask_(*survivors) : survivors.error();
  return e.ok() ? e : round_->Abort(std::move(e));
}

void SecAggService::Tick(int64_t now_ms) {
  if (round_ && now_ms >= deadline_ms_) Close(now_ms);
}

}  // namespace edgeadmm::server
