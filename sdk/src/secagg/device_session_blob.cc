// The device SecAgg+ session's persisted blob (format in device_session.h).
// One description of the format, SecAggSessionBlob::Code, serves every
// use: Serialize writes the current phase's part from the session; Restore
// reads a blob twice, first to check it (the session is not touched), then
// to load it.
#include <initializer_list>

#include "byte_cursor.h"
#include "device_session_overlay.h"
#include "edgeadmm/crc32.h"
#include "edgeadmm/secagg/device_session.h"
#include "mbedtls/platform_util.h"

namespace edgeadmm {

using secagg_internal::Begin;
using secagg_internal::ByteCursor;
using secagg_internal::View;

namespace {

constexpr char kMagic[4] = {'E', 'A', 'S', 'S'};
constexpr uint16_t kFormatVersion = 2;
using secagg_blob::kCrcBytes;
using secagg_blob::kHeaderBytes;

enum class BlobMode : uint8_t {
  kWrite,  // the session's fields into the blob
  kCheck,  // the blob's fields read and checked; the session not touched
  kLoad,   // the blob's fields into the session
};

// A cursor that moves fields in the direction of its mode. The header's
// integers pass through the caller's locals: a local starts as the
// session's value when writing (From) and is read from the blob otherwise;
// the caller stores it only when loading. The buffers' entries are coded in
// place (Slot): the session's own entry when writing or loading (a load
// follows a check of the same blob), the caller's scratch entry when
// checking. Into() names a byte array of the session itself, which a check
// skips.
class BlobCursor {
 public:
  BlobCursor(BlobMode mode, ByteSpan out, ConstByteSpan in)
      : mode_(mode),
        cursor_(mode == BlobMode::kWrite ? ByteCursor::Writer(out)
                                         : ByteCursor::Reader(in)) {}

  bool writing() const { return mode_ == BlobMode::kWrite; }
  bool loading() const { return mode_ == BlobMode::kLoad; }
  template <typename T>
  T From(const T& field) const {
    return writing() ? field : T{};
  }
  // Where entry `a` is coded: entries[a], or `scratch` when checking (then
  // `entries` is empty).
  template <typename T>
  T& Slot(Span<T> entries, size_t a, T& scratch) const {
    return mode_ == BlobMode::kCheck ? scratch : entries[a];
  }
  // `entries` when writing, the same memory started afresh (zeroed,
  // device_session_overlay.h) when loading, nothing when checking.
  template <typename T, typename R>
  Span<T> Entries(Span<R> region, size_t count) const {
    if (writing()) return View<T>(region, count);
    return loading() ? Begin<T>(region, count) : Span<T>();
  }
  template <typename T>
  void Int(T& value, size_t bytes) {
    if (writing()) {
      cursor_.Put(value, bytes);
    } else {
      value = static_cast<T>(cursor_.Get(bytes));
    }
  }
  void Bytes(std::byte* p, size_t n) {
    if (writing()) {
      cursor_.PutBytes(p, n);
    } else {
      cursor_.GetBytes(p, n);
    }
  }
  void Into(std::byte* p, size_t n) {
    Bytes(mode_ == BlobMode::kCheck ? nullptr : p, n);
  }
  ByteCursor& cursor() { return cursor_; }

 private:
  BlobMode mode_;
  ByteCursor cursor_;
};

}  // namespace

class SecAggSessionBlob {
 public:
  static StatusWithSize Write(const SecAggDeviceSession& s, ByteSpan out);
  static bool Read(ConstByteSpan blob, BlobMode mode, SecAggDeviceSession& s);

 private:
  // The blob's fields in order, checked in every mode. `s` is read only when
  // writing (Serialize's const session; a revealed share's flag is stored
  // back unchanged into the caller's buffer) and written only when loading.
  static bool Code(BlobCursor& c, SecAggDeviceSession& s);
  static bool CodePhase(BlobCursor& c, SecAggDevicePhase phase,
                        const SecAggSessionParams& p, SecAggDeviceSession& s);
};

bool SecAggSessionBlob::Code(BlobCursor& c, SecAggDeviceSession& s) {
  for (const char ch : kMagic) {
    uint8_t v = static_cast<uint8_t>(ch);
    c.Int(v, 1);
    if (v != static_cast<uint8_t>(ch)) return false;
  }
  uint16_t version = kFormatVersion;
  c.Int(version, 2);
  uint8_t phase = c.From(static_cast<uint8_t>(s.phase_));
  c.Int(phase, 1);
  uint8_t zero = 0;
  c.Int(zero, 1);
  if (version != kFormatVersion || phase < 1 || phase > 4 || zero != 0) {
    return false;
  }
  SecAggSessionParams p = c.From(s.params_);
  c.Int(p.round_id, 8);
  for (uint32_t* w : {&p.devices, &p.degree, &p.threshold, &p.bits,
                      &p.mask_length, &p.min_survivors, &p.own_index}) {
    c.Int(*w, 4);
  }
  c.Bytes(p.graph_seed, kGraphSeedBytes);
  if (!c.cursor().ok() || !SecAggDeviceSession::ValidParams(p, s.buffers_)) {
    return false;
  }
  const auto typed = static_cast<SecAggDevicePhase>(phase);
  if (c.loading()) {
    s.Wipe(typed > SecAggDevicePhase::kSharesSent);
    s.params_ = p;
    s.phase_ = typed;
  }
  return CodePhase(c, typed, p, s) && c.cursor().ok();
}

bool SecAggSessionBlob::CodePhase(BlobCursor& c, SecAggDevicePhase phase,
                                  const SecAggSessionParams& p,
                                  SecAggDeviceSession& s) {
  const SecAggSessionBuffers& b = s.buffers_;
  const uint32_t k = p.degree < p.devices - 1 ? p.degree : p.devices - 1;
  if (phase <= SecAggDevicePhase::kSharesSent) {
    for (std::byte* secret :
         {s.enc_private_, s.mask_private_, s.self_seed_,
          s.advert_.encryption_public, s.advert_.mask_public,
          s.advert_.self_seed_commitment}) {
      c.Into(secret, 32);
    }
  }
  if (phase == SecAggDevicePhase::kSharesSent) {
    uint32_t count = c.From(s.peer_count_);
    c.Int(count, 4);
    if (count < p.threshold || count > k) return false;
    const Span<SecAggPeerKeys> keys =
        c.Entries<SecAggPeerKeys>(b.neighbours, count);
    const Span<SecAggSealed> sealed = c.Entries<SecAggSealed>(b.sealed, count);
    SecAggPeerKeys key_scratch;
    SecAggSealed message_scratch;
    for (size_t a = 0; a < count; ++a) {
      SecAggPeerKeys& key = c.Slot(keys, a, key_scratch);
      SecAggSealed& message = c.Slot(sealed, a, message_scratch);
      c.Int(key.device, 4);
      c.Bytes(key.encryption_public, kX25519KeyBytes);
      c.Bytes(key.mask_public, kX25519KeyBytes);
      c.Int(message.peer, 4);
      c.Bytes(message.sealed, kSealedSharesBytes);
      if (key.device >= p.devices || key.device == p.own_index ||
          message.peer != key.device) {
        return false;
      }
    }
    if (c.loading()) s.peer_count_ = count;
  } else if (phase == SecAggDevicePhase::kMaskedSent) {
    uint32_t count = c.From(s.received_count_);
    c.Int(count, 4);
    if (count > k) return false;
    const Span<ReceivedShares> received =
        c.Entries<ReceivedShares>(b.sealed, count);
    ReceivedShares scratch;  // shares: wiped below
    bool valid = true;
    for (size_t a = 0; a < count && valid; ++a) {
      ReceivedShares& r = c.Slot(received, a, scratch);
      c.Int(r.sender, 4);
      c.Int(r.shares.self_seed.index, 1);
      c.Bytes(r.shares.self_seed.value, kShamirSecretBytes);
      c.Int(r.shares.mask_key.index, 1);
      c.Bytes(r.shares.mask_key.value, kShamirSecretBytes);
      valid = r.sender < p.devices && r.shares.self_seed.index != 0 &&
              r.shares.self_seed.index == r.shares.mask_key.index;
    }
    mbedtls_platform_zeroize(&scratch, sizeof(scratch));
    if (!valid) return false;
    const uint64_t limit = p.bits >= 32 ? 0xFFFFFFFFu : (1u << p.bits) - 1;
    for (size_t w = 0; w < p.mask_length; ++w) {
      uint32_t v = c.From(b.masked[w]);
      c.Int(v, 4);
      if (v > limit) return false;
      if (c.loading()) b.masked[w] = v;
    }
    if (c.loading()) s.received_count_ = count;
  } else if (phase == SecAggDevicePhase::kRevealed) {
    c.Into(s.survivors_digest_, 32);
    uint32_t count = c.From(s.received_count_);
    c.Int(count, 4);
    if (count > k) return false;
    const Span<RevealedShare> revealed =
        c.Entries<RevealedShare>(b.neighbours, count);
    RevealedShare scratch;  // a share: wiped below
    bool valid = true;
    for (size_t a = 0; a < count && valid; ++a) {
      RevealedShare& r = c.Slot(revealed, a, scratch);
      uint8_t kind = r.self_seed ? 1 : 0;
      c.Int(r.sender, 4);
      c.Int(kind, 1);
      c.Int(r.share.index, 1);
      c.Bytes(r.share.value, kShamirSecretBytes);
      r.self_seed = kind == 1;
      valid = r.sender < p.devices && kind <= 1 && r.share.index != 0;
    }
    mbedtls_platform_zeroize(&scratch, sizeof(scratch));
    if (!valid) return false;
    if (c.loading()) s.received_count_ = count;
  }
  return true;
}

StatusWithSize SecAggSessionBlob::Write(const SecAggDeviceSession& s,
                                        ByteSpan out) {
  if (s.phase_ < SecAggDevicePhase::kAdvertised ||
      s.phase_ > SecAggDevicePhase::kRevealed || s.sealed_dropped_) {
    return StatusWithSize(Status::FailedPrecondition(), 0);
  }
  const size_t size =
      kHeaderBytes +
      secagg_blob::PhaseBytes(static_cast<int>(s.phase_), s.peer_count_,
                              s.received_count_, s.params_.mask_length) +
      kCrcBytes;
  if (out.size() < size) {
    return StatusWithSize(Status::ResourceExhausted(), size);
  }
  BlobCursor c(BlobMode::kWrite, out, ConstByteSpan());
  // A writing Code changes nothing in `s` (Code). A session that does not
  // code into exactly its computed size would be a bug: INTERNAL.
  if (!Code(c, const_cast<SecAggDeviceSession&>(s)) ||
      c.cursor().at() != size - kCrcBytes) {
    return StatusWithSize(Status::Internal(), 0);
  }
  c.cursor().Put(Crc32(ConstByteSpan(out.data(), size - kCrcBytes)), 4);
  return StatusWithSize(size);
}

bool SecAggSessionBlob::Read(ConstByteSpan blob, BlobMode mode,
                             SecAggDeviceSession& s) {
  if (blob.size() < kHeaderBytes + kCrcBytes) return false;
  const size_t body = blob.size() - kCrcBytes;
  ByteCursor crc = ByteCursor::Reader(blob.subspan(body, kCrcBytes));
  if (crc.Get(4) != Crc32(ConstByteSpan(blob.data(), body))) return false;
  BlobCursor c(mode, ByteSpan(), blob.first(body));
  return Code(c, s) && c.cursor().at() == body;
}

StatusWithSize SecAggDeviceSession::Serialize(ByteSpan out) const {
  return SecAggSessionBlob::Write(*this, out);
}

Status SecAggDeviceSession::Restore(ConstByteSpan blob) {
  if (!SecAggSessionBlob::Read(blob, BlobMode::kCheck, *this)) {
    return Status::DataLoss();
  }
  // A load after a passing check cannot fail; INTERNAL if it did.
  return SecAggSessionBlob::Read(blob, BlobMode::kLoad, *this)
             ? Status::Ok()
             : Status::Internal();
}

}  // namespace edgeadmm
