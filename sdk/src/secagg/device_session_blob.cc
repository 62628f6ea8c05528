// The device SecAgg+ session's persisted blob (format in device_session.h):
// Serialize writes the current phase's part; Restore checks a whole blob
// in a first pass that writes nothing and loads it in a second.
#include "byte_cursor.h"
#include "device_session_overlay.h"
#include "edgeadmm/assert.h"
#include "edgeadmm/crc32.h"
#include "edgeadmm/secagg/device_session.h"
#include "mbedtls/platform_util.h"

namespace edgeadmm {

using secagg_internal::Begin;
using secagg_internal::ByteCursor;
using secagg_internal::View;

namespace {

constexpr char kMagic[4] = {'E', 'A', 'S', 'S'};
constexpr uint16_t kFormatVersion = 1;
using secagg_blob::kCrcBytes;
using secagg_blob::kHeaderBytes;
using secagg_blob::kKeysBytes;
using secagg_blob::kPeerBytes;
using secagg_blob::kReceivedBytes;
using secagg_blob::kRevealedBytes;
using secagg_blob::kSealedBytes;

size_t PhaseBytes(SecAggDevicePhase phase, size_t peers, size_t received,
                  size_t m) {
  return secagg_blob::PhaseBytes(static_cast<int>(phase), peers, received, m);
}

}  // namespace

class SecAggSessionBlob {
 public:
  static StatusWithSize Write(const SecAggDeviceSession& s, ByteSpan out);
  // One pass over `blob`; `target` null: checks only.
  static bool Read(ConstByteSpan blob, const SecAggSessionBuffers& buffers,
                   SecAggDeviceSession* target);

 private:
  static void WriteHeader(const SecAggDeviceSession& s, ByteCursor& c);
  static void WritePhase(const SecAggDeviceSession& s, ByteCursor& c);
  static bool ReadPhase(ByteCursor& c, SecAggDevicePhase phase,
                        const SecAggSessionParams& p,
                        const SecAggSessionBuffers& b, SecAggDeviceSession* t);
};

void SecAggSessionBlob::WriteHeader(const SecAggDeviceSession& s,
                                    ByteCursor& c) {
  const SecAggSessionParams& p = s.params_;
  for (const char ch : kMagic) c.Put(static_cast<uint8_t>(ch), 1);
  c.Put(kFormatVersion, 2);
  c.Put(static_cast<uint8_t>(s.phase_), 1);
  c.Put(0, 1);
  c.Put(p.round_id, 8);
  const uint32_t words[7] = {p.devices,  p.degree,      p.threshold,
                             p.bits,     p.mask_length, p.min_survivors,
                             p.own_index};
  for (const uint32_t w : words) c.Put(w, 4);
  c.PutBytes(p.graph_seed, kGraphSeedBytes);
}

void SecAggSessionBlob::WritePhase(const SecAggDeviceSession& s,
                                   ByteCursor& c) {
  const SecAggSessionBuffers& b = s.buffers_;
  if (s.phase_ <= SecAggDevicePhase::kSharesSent) {
    c.PutBytes(s.enc_private_, 32);
    c.PutBytes(s.mask_private_, 32);
    c.PutBytes(s.self_seed_, 32);
    c.PutBytes(s.advert_.encryption_public, 32);
    c.PutBytes(s.advert_.mask_public, 32);
    c.PutBytes(s.advert_.self_seed_commitment, 32);
  }
  if (s.phase_ == SecAggDevicePhase::kSharesSent) {
    c.Put(s.peer_count_, 4);
    for (size_t a = 0; a < s.peer_count_; ++a) {
      c.Put(b.neighbours[a].device, 4);
      c.PutBytes(b.neighbours[a].encryption_public, 32);
      c.PutBytes(b.neighbours[a].mask_public, 32);
      c.Put(b.sealed[a].peer, 4);
      c.PutBytes(b.sealed[a].sealed, kSealedSharesBytes);
    }
  } else if (s.phase_ == SecAggDevicePhase::kMaskedSent) {
    c.Put(s.received_count_, 4);
    const Span<const ReceivedShares> received =
        View<const ReceivedShares>(b.sealed, s.received_count_);
    for (size_t a = 0; a < s.received_count_; ++a) {
      const ReceivedShares& r = received[a];
      c.Put(r.sender, 4);
      c.Put(r.shares.self_seed.index, 1);
      c.PutBytes(r.shares.self_seed.value, kShamirSecretBytes);
      c.Put(r.shares.mask_key.index, 1);
      c.PutBytes(r.shares.mask_key.value, kShamirSecretBytes);
    }
    for (size_t w = 0; w < s.params_.mask_length; ++w) c.Put(b.masked[w], 4);
  } else if (s.phase_ == SecAggDevicePhase::kRevealed) {
    c.PutBytes(s.survivors_digest_, 32);
    c.Put(s.received_count_, 4);
    const Span<const RevealedShare> revealed = s.revealed_shares();
    for (size_t a = 0; a < s.received_count_; ++a) {
      const RevealedShare& r = revealed[a];
      c.Put(r.sender, 4);
      c.Put(r.self_seed ? 1 : 0, 1);
      c.Put(r.share.index, 1);
      c.PutBytes(r.share.value, kShamirSecretBytes);
    }
  }
}

StatusWithSize SecAggSessionBlob::Write(const SecAggDeviceSession& s,
                                        ByteSpan out) {
  if (s.phase_ < SecAggDevicePhase::kAdvertised ||
      s.phase_ > SecAggDevicePhase::kRevealed || s.sealed_dropped_) {
    return StatusWithSize(Status::FailedPrecondition(), 0);
  }
  const size_t size = kHeaderBytes +
                      PhaseBytes(s.phase_, s.peer_count_, s.received_count_,
                                 s.params_.mask_length) +
                      kCrcBytes;
  if (out.size() < size) {
    return StatusWithSize(Status::ResourceExhausted(), size);
  }
  ByteCursor c = ByteCursor::Writer(out);
  WriteHeader(s, c);
  WritePhase(s, c);
  c.Put(Crc32(ConstByteSpan(out.data(), c.at())), 4);
  return StatusWithSize(size);
}

bool SecAggSessionBlob::ReadPhase(ByteCursor& c, SecAggDevicePhase phase,
                                  const SecAggSessionParams& p,
                                  const SecAggSessionBuffers& b,
                                  SecAggDeviceSession* t) {
  const uint32_t k = p.degree < p.devices - 1 ? p.degree : p.devices - 1;
  if (phase <= SecAggDevicePhase::kSharesSent) {
    c.GetBytes(t ? t->enc_private_ : nullptr, 32);
    c.GetBytes(t ? t->mask_private_ : nullptr, 32);
    c.GetBytes(t ? t->self_seed_ : nullptr, 32);
    c.GetBytes(t ? t->advert_.encryption_public : nullptr, 32);
    c.GetBytes(t ? t->advert_.mask_public : nullptr, 32);
    c.GetBytes(t ? t->advert_.self_seed_commitment : nullptr, 32);
  }
  if (phase == SecAggDevicePhase::kSharesSent) {
    const uint64_t count = c.Get(4);
    if (count < p.threshold || count > k) return false;
    if (t) Begin<SecAggPeerKeys>(b.neighbours, static_cast<size_t>(count));
    for (size_t a = 0; a < count; ++a) {
      const uint32_t device = static_cast<uint32_t>(c.Get(4));
      c.GetBytes(t ? b.neighbours[a].encryption_public : nullptr, 32);
      c.GetBytes(t ? b.neighbours[a].mask_public : nullptr, 32);
      const uint32_t peer = static_cast<uint32_t>(c.Get(4));
      c.GetBytes(t ? b.sealed[a].sealed : nullptr, kSealedSharesBytes);
      if (device >= p.devices || device == p.own_index || peer != device) {
        return false;
      }
      if (t) b.neighbours[a].device = b.sealed[a].peer = device;
    }
    if (t) t->peer_count_ = static_cast<uint32_t>(count);
  } else if (phase == SecAggDevicePhase::kMaskedSent) {
    const uint64_t count = c.Get(4);
    if (count > k) return false;
    const Span<ReceivedShares> received =
        t ? Begin<ReceivedShares>(b.sealed, static_cast<size_t>(count))
          : Span<ReceivedShares>();
    for (size_t a = 0; a < count; ++a) {
      ReceivedShares r;
      r.sender = static_cast<uint32_t>(c.Get(4));
      r.shares.self_seed.index = static_cast<uint8_t>(c.Get(1));
      c.GetBytes(r.shares.self_seed.value, kShamirSecretBytes);
      r.shares.mask_key.index = static_cast<uint8_t>(c.Get(1));
      c.GetBytes(r.shares.mask_key.value, kShamirSecretBytes);
      if (r.sender >= p.devices || r.shares.self_seed.index == 0 ||
          r.shares.self_seed.index != r.shares.mask_key.index) {
        return false;
      }
      if (t) received[a] = r;
      mbedtls_platform_zeroize(&r, sizeof(r));
    }
    const uint64_t limit = p.bits >= 32 ? 0xFFFFFFFFu : (1u << p.bits) - 1;
    for (size_t w = 0; w < p.mask_length; ++w) {
      const uint64_t v = c.Get(4);
      if (v > limit) return false;
      if (t) b.masked[w] = static_cast<uint32_t>(v);
    }
    if (t) t->received_count_ = static_cast<uint32_t>(count);
  } else if (phase == SecAggDevicePhase::kRevealed) {
    c.GetBytes(t ? t->survivors_digest_ : nullptr, 32);
    const uint64_t count = c.Get(4);
    if (count > k) return false;
    const Span<RevealedShare> revealed =
        t ? Begin<RevealedShare>(b.neighbours, static_cast<size_t>(count))
          : Span<RevealedShare>();
    for (size_t a = 0; a < count; ++a) {
      RevealedShare r;
      r.sender = static_cast<uint32_t>(c.Get(4));
      const uint64_t flag = c.Get(1);
      r.self_seed = flag == 1;
      r.share.index = static_cast<uint8_t>(c.Get(1));
      c.GetBytes(r.share.value, kShamirSecretBytes);
      if (r.sender >= p.devices || flag > 1 || r.share.index == 0) return false;
      if (t) revealed[a] = r;
      mbedtls_platform_zeroize(&r, sizeof(r));
    }
    if (t) t->received_count_ = static_cast<uint32_t>(count);
  }
  return c.ok();
}

bool SecAggSessionBlob::Read(ConstByteSpan blob,
                             const SecAggSessionBuffers& buffers,
                             SecAggDeviceSession* target) {
  if (blob.size() < kHeaderBytes + kCrcBytes) return false;
  const size_t body = blob.size() - kCrcBytes;
  ByteCursor crc = ByteCursor::Reader(blob.subspan(body, kCrcBytes));
  if (crc.Get(4) != Crc32(ConstByteSpan(blob.data(), body))) return false;
  ByteCursor c = ByteCursor::Reader(blob.first(body));
  for (const char ch : kMagic) {
    if (c.Get(1) != static_cast<uint8_t>(ch)) return false;
  }
  if (c.Get(2) != kFormatVersion) return false;
  const uint64_t phase_byte = c.Get(1);
  if (phase_byte < 1 || phase_byte > 4 || c.Get(1) != 0) return false;
  const auto phase = static_cast<SecAggDevicePhase>(phase_byte);
  SecAggSessionParams p;
  p.round_id = c.Get(8);
  uint32_t* words[7] = {&p.devices,     &p.degree,        &p.threshold, &p.bits,
                        &p.mask_length, &p.min_survivors, &p.own_index};
  for (uint32_t* w : words) *w = static_cast<uint32_t>(c.Get(4));
  c.GetBytes(p.graph_seed, kGraphSeedBytes);
  if (!c.ok() || !SecAggDeviceSession::ValidParams(p, buffers)) return false;
  if (target != nullptr) {
    target->Wipe(phase > SecAggDevicePhase::kSharesSent);
    target->params_ = p;
    target->phase_ = phase;
  }
  if (!ReadPhase(c, phase, p, buffers, target)) return false;
  return c.ok() && c.at() == body;
}

StatusWithSize SecAggDeviceSession::Serialize(ByteSpan out) const {
  return SecAggSessionBlob::Write(*this, out);
}

Status SecAggDeviceSession::Restore(ConstByteSpan blob) {
  if (!SecAggSessionBlob::Read(blob, buffers_, nullptr)) {
    return Status::DataLoss();
  }
  const bool loaded = SecAggSessionBlob::Read(blob, buffers_, this);
  EDGEADMM_ASSERT(loaded);
  return loaded ? Status::Ok() : Status::Internal();
}

}  // namespace edgeadmm
