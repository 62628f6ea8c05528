#include "edgeadmm/secagg/phase_frames.h"

#include <initializer_list>

#include "byte_cursor.h"

namespace edgeadmm {
namespace {

using secagg_internal::ByteCursor;

StatusWithSize Start(uint8_t phase, uint64_t round_id, size_t size,
                     ByteSpan out, ByteCursor& w) {
  if (out.size() < size)
    return StatusWithSize(Status::ResourceExhausted(), size);
  w.Put(kSecAggFrameVersion, 1);
  w.Put(phase, 1);
  w.Put(round_id, 8);
  return StatusWithSize(size);
}

// The header of `frame` for `phase`, then its count of `count_bytes`
// entries of `entry` bytes each, which with `tail` bytes after them must
// fill the frame exactly.
StatusWithSize Open(ConstByteSpan frame, uint8_t phase, size_t count_bytes,
                    size_t entry, size_t tail, size_t capacity,
                    SecAggFrameHeader& header, ByteCursor& r) {
  const Status s = DecodeSecAggHeader(frame, header);
  if (!s.ok()) return StatusWithSize(s, 0);
  if (header.phase != phase)
    return StatusWithSize(Status::InvalidArgument(), 0);
  if (frame.size() < kSecAggFrameHeaderBytes + count_bytes + tail) {
    return StatusWithSize(Status::InvalidArgument(), 0);
  }
  r.GetBytes(nullptr, kSecAggFrameHeaderBytes);
  const uint64_t count = r.Get(count_bytes);
  if (count > capacity || frame.size() != kSecAggFrameHeaderBytes +
                                              count_bytes + count * entry +
                                              tail) {
    return StatusWithSize(Status::InvalidArgument(), 0);
  }
  return StatusWithSize(static_cast<size_t>(count));
}

}  // namespace

StatusWithSize EncodeSecAggRound(const SecAggSessionParams& params,
                                 ByteSpan out) {
  if (!SecAggDeviceSession::ValidRoundParams(params)) {
    return StatusWithSize(Status::InvalidArgument(), 0);
  }
  ByteCursor w = ByteCursor::Writer(out);
  const StatusWithSize s =
      Start(0, params.round_id, SecAggRoundBytes(), out, w);
  if (!s.ok()) return s;
  for (uint32_t v :
       {params.devices, params.degree, params.threshold, params.bits,
        params.mask_length, params.min_survivors, params.own_index}) {
    w.Put(v, 4);
  }
  w.PutBytes(params.graph_seed, kGraphSeedBytes);
  return s;
}

Status DecodeSecAggRound(ConstByteSpan frame, SecAggSessionParams& params) {
  if (frame.size() != SecAggRoundBytes()) return Status::InvalidArgument();
  ByteCursor r = ByteCursor::Reader(frame);
  if (r.Get(1) != kSecAggFrameVersion || r.Get(1) != 0) {
    return Status::InvalidArgument();
  }
  SecAggSessionParams p;
  p.round_id = r.Get(8);
  uint32_t* const fields[] = {&p.devices,  &p.degree,      &p.threshold,
                              &p.bits,     &p.mask_length, &p.min_survivors,
                              &p.own_index};
  for (uint32_t* f : fields) *f = static_cast<uint32_t>(r.Get(4));
  r.GetBytes(p.graph_seed, kGraphSeedBytes);
  if (!SecAggDeviceSession::ValidRoundParams(p)) {
    return Status::InvalidArgument();
  }
  params = p;
  return Status::Ok();
}

Status DecodeSecAggHeader(ConstByteSpan frame, SecAggFrameHeader& header) {
  if (frame.size() < kSecAggFrameHeaderBytes) return Status::InvalidArgument();
  ByteCursor r = ByteCursor::Reader(frame);
  if (r.Get(1) != kSecAggFrameVersion) return Status::InvalidArgument();
  const auto phase = static_cast<uint8_t>(r.Get(1));
  if (phase < 1 || phase > 4) return Status::InvalidArgument();
  header.phase = phase;
  header.round_id = r.Get(8);
  return Status::Ok();
}

StatusWithSize EncodeSecAggPoll(uint8_t phase, uint64_t round_id,
                                ByteSpan out) {
  if (phase < 1 || phase > 3) {
    return StatusWithSize(Status::InvalidArgument(), 0);
  }
  ByteCursor w = ByteCursor::Writer(out);
  return Start(phase, round_id, kSecAggFrameHeaderBytes, out, w);
}

StatusWithSize EncodeSecAggAdvertise(uint64_t round_id,
                                     const SecAggAdvertisement& advert,
                                     ByteSpan out) {
  ByteCursor w = ByteCursor::Writer(out);
  const StatusWithSize s = Start(1, round_id, SecAggAdvertiseBytes(), out, w);
  if (!s.ok()) return s;
  w.PutBytes(advert.encryption_public, kX25519KeyBytes);
  w.PutBytes(advert.mask_public, kX25519KeyBytes);
  w.PutBytes(advert.self_seed_commitment, kSelfSeedCommitmentBytes);
  return s;
}

StatusWithSize EncodeSecAggKeys(uint64_t round_id,
                                Span<const SecAggPeerKeys> keys, ByteSpan out) {
  if (keys.size() > 0xffff) return StatusWithSize(Status::InvalidArgument(), 0);
  ByteCursor w = ByteCursor::Writer(out);
  const StatusWithSize s =
      Start(1, round_id, SecAggKeysAnswerBytes(keys.size()), out, w);
  if (!s.ok()) return s;
  w.Put(keys.size(), 2);
  for (const SecAggPeerKeys& k : keys) {
    w.Put(k.device, 4);
    w.PutBytes(k.encryption_public, kX25519KeyBytes);
    w.PutBytes(k.mask_public, kX25519KeyBytes);
  }
  return s;
}

StatusWithSize EncodeSecAggSealed(uint64_t round_id,
                                  Span<const SecAggSealed> sealed,
                                  ByteSpan out) {
  if (sealed.size() > 0xffff) {
    return StatusWithSize(Status::InvalidArgument(), 0);
  }
  ByteCursor w = ByteCursor::Writer(out);
  const StatusWithSize s =
      Start(2, round_id, SecAggSealedBytes(sealed.size()), out, w);
  if (!s.ok()) return s;
  w.Put(sealed.size(), 2);
  for (const SecAggSealed& m : sealed) {
    w.Put(m.peer, 4);
    w.PutBytes(m.sealed, kSealedSharesBytes);
  }
  return s;
}

StatusWithSize EncodeSecAggWords(uint64_t round_id, Span<const uint32_t> words,
                                 ByteSpan out) {
  if (words.size() > 0xffffffffu) {
    return StatusWithSize(Status::InvalidArgument(), 0);
  }
  ByteCursor w = ByteCursor::Writer(out);
  const StatusWithSize s =
      Start(3, round_id, SecAggWordsBytes(words.size()), out, w);
  if (!s.ok()) return s;
  w.Put(words.size(), 4);
  for (uint32_t v : words) w.Put(v, 4);
  return s;
}

StatusWithSize EncodeSecAggSurvivors(uint64_t round_id,
                                     const SurvivorAnswer& answer,
                                     ByteSpan out) {
  if (answer.listed.size() > 0xffff) {
    return StatusWithSize(Status::InvalidArgument(), 0);
  }
  ByteCursor w = ByteCursor::Writer(out);
  const StatusWithSize s =
      Start(3, round_id, SecAggSurvivorsBytes(answer.listed.size()), out, w);
  if (!s.ok()) return s;
  w.Put(answer.listed.size(), 2);
  for (uint32_t v : answer.listed) w.Put(v, 4);
  w.Put(answer.survivors, 4);
  return s;
}

StatusWithSize EncodeSecAggReveal(uint64_t round_id,
                                  Span<const RevealedShare> shares,
                                  ByteSpan out) {
  if (shares.size() > 0xffff) {
    return StatusWithSize(Status::InvalidArgument(), 0);
  }
  ByteCursor w = ByteCursor::Writer(out);
  const StatusWithSize s =
      Start(4, round_id, SecAggRevealBytes(shares.size()), out, w);
  if (!s.ok()) return s;
  w.Put(shares.size(), 2);
  for (const RevealedShare& r : shares) {
    w.Put(r.sender, 4);
    w.Put(r.self_seed ? 1 : 0, 1);
    w.Put(r.share.index, 1);
    w.PutBytes(r.share.value, kShamirSecretBytes);
  }
  return s;
}

Status DecodeSecAggAdvertise(ConstByteSpan frame, SecAggFrameHeader& header,
                             SecAggAdvertisement& advert) {
  const Status s = DecodeSecAggHeader(frame, header);
  if (!s.ok()) return s;
  if (header.phase != 1 || frame.size() != SecAggAdvertiseBytes()) {
    return Status::InvalidArgument();
  }
  ByteCursor r = ByteCursor::Reader(frame);
  r.GetBytes(nullptr, kSecAggFrameHeaderBytes);
  r.GetBytes(advert.encryption_public, kX25519KeyBytes);
  r.GetBytes(advert.mask_public, kX25519KeyBytes);
  r.GetBytes(advert.self_seed_commitment, kSelfSeedCommitmentBytes);
  return Status::Ok();
}

StatusWithSize DecodeSecAggKeys(ConstByteSpan frame, SecAggFrameHeader& header,
                                Span<SecAggPeerKeys> out) {
  ByteCursor r = ByteCursor::Reader(frame);
  const StatusWithSize n =
      Open(frame, 1, 2, kSecAggKeysEntryBytes, 0, out.size(), header, r);
  if (!n.ok()) return n;
  for (size_t i = 0; i < n.size(); ++i) {
    out[i].device = static_cast<uint32_t>(r.Get(4));
    r.GetBytes(out[i].encryption_public, kX25519KeyBytes);
    r.GetBytes(out[i].mask_public, kX25519KeyBytes);
  }
  return n;
}

StatusWithSize DecodeSecAggSealed(ConstByteSpan frame,
                                  SecAggFrameHeader& header,
                                  Span<SecAggSealed> out) {
  ByteCursor r = ByteCursor::Reader(frame);
  const StatusWithSize n =
      Open(frame, 2, 2, kSecAggSealedEntryBytes, 0, out.size(), header, r);
  if (!n.ok()) return n;
  for (size_t i = 0; i < n.size(); ++i) {
    out[i].peer = static_cast<uint32_t>(r.Get(4));
    r.GetBytes(out[i].sealed, kSealedSharesBytes);
  }
  return n;
}

StatusWithSize DecodeSecAggWords(ConstByteSpan frame, SecAggFrameHeader& header,
                                 Span<uint32_t> out) {
  ByteCursor r = ByteCursor::Reader(frame);
  const StatusWithSize n = Open(frame, 3, 4, 4, 0, out.size(), header, r);
  if (!n.ok()) return n;
  for (size_t i = 0; i < n.size(); ++i) {
    out[i] = static_cast<uint32_t>(r.Get(4));
  }
  return n;
}

StatusWithSize DecodeSecAggSurvivors(ConstByteSpan frame,
                                     SecAggFrameHeader& header,
                                     uint32_t& survivors,
                                     Span<uint32_t> listed) {
  ByteCursor r = ByteCursor::Reader(frame);
  const StatusWithSize n = Open(frame, 3, 2, 4, 4, listed.size(), header, r);
  if (!n.ok()) return n;
  for (size_t i = 0; i < n.size(); ++i) {
    listed[i] = static_cast<uint32_t>(r.Get(4));
  }
  survivors = static_cast<uint32_t>(r.Get(4));
  return n;
}

StatusWithSize DecodeSecAggReveal(ConstByteSpan frame,
                                  SecAggFrameHeader& header,
                                  Span<RevealedShare> out) {
  ByteCursor r = ByteCursor::Reader(frame);
  const StatusWithSize n =
      Open(frame, 4, 2, kSecAggRevealEntryBytes, 0, out.size(), header, r);
  if (!n.ok()) return n;
  for (size_t i = 0; i < n.size(); ++i) {
    out[i].sender = static_cast<uint32_t>(r.Get(4));
    const uint64_t kind = r.Get(1);
    if (kind > 1) return StatusWithSize(Status::InvalidArgument(), 0);
    out[i].self_seed = kind == 1;
    out[i].share.index = static_cast<uint8_t>(r.Get(1));
    r.GetBytes(out[i].share.value, kShamirSecretBytes);
  }
  return n;
}

void FormatSecAggRoundPath(uint64_t round_id,
                           char (&out)[kMaxSecAggRoundPathBytes]) {
  char* p = out;
  for (const char* c = kSecAggRoundPath; *c != '\0';) *p++ = *c++;
  *p++ = '?';
  for (const char* c = kSecAggRoundQueryKey; *c != '\0';) *p++ = *c++;
  // The digits, last first, then reversed in place. (The 64-bit division
  // is libgcc's, which the discrete Gaussian's sampler links anyway.)
  char* first = p;
  do {
    *p++ = static_cast<char>('0' + round_id % 10);
    round_id /= 10;
  } while (round_id != 0);
  for (char* last = p - 1; first < last; ++first, --last) {
    const char c = *first;
    *first = *last;
    *last = c;
  }
  *p = '\0';
}

}  // namespace edgeadmm
