// Fuzzes the SecAgg+ phase frames (sdk/src/secagg/phase_frames.cc): the
// daemon decodes every device's phase message with them (SecAggService) and
// a device decodes the gateway's answers (SecAggPhaseClient). Invariants: a
// refused frame is INVALID_ARGUMENT; an accepted one holds no more entries
// than the caller's capacity and is written again by its encoder into
// exactly the same bytes (each frame has one encoding).
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "edgeadmm/secagg/phase_frames.h"
#include "fuzz_check.h"

namespace edgeadmm {
namespace {

constexpr size_t kCapacity = kSecAggMaxNeighbours;
constexpr size_t kMaxWords = 4096;

std::byte
    g_again[SecAggWordsBytes(kMaxWords) + SecAggKeysAnswerBytes(kCapacity)];
SecAggPeerKeys g_keys[kCapacity];
SecAggSealed g_sealed[kCapacity];
uint32_t g_words[kMaxWords];
uint32_t g_listed[kCapacity + 1];
RevealedShare g_reveal[kCapacity];

ByteSpan Again() { return ByteSpan(g_again, sizeof(g_again)); }

// `decoded` refused the input, or `encoded` (the decoded value written
// again) is the input byte for byte.
void RefusedOrSame(const Status& decoded, ConstByteSpan in,
                   const StatusWithSize& encoded) {
  if (!decoded.ok()) {
    FUZZ_CHECK(decoded == Status::InvalidArgument());
    return;
  }
  FUZZ_CHECK(encoded.ok() && encoded.size() == in.size());
  FUZZ_CHECK(std::memcmp(g_again, in.data(), in.size()) == 0);
}

// A list decoder's answer: refused, or at most `capacity` entries.
size_t CountOf(const StatusWithSize& n, size_t capacity) {
  if (!n.ok()) return 0;
  FUZZ_CHECK(n.size() <= capacity);
  return n.size();
}

}  // namespace

// C linkage inside the namespace: libFuzzer finds the unqualified name.
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const ConstByteSpan in(reinterpret_cast<const std::byte*>(data), size);

  SecAggSessionParams params;
  const Status round = DecodeSecAggRound(in, params);
  RefusedOrSame(
      round, in,
      round.ok() ? EncodeSecAggRound(params, Again()) : StatusWithSize());

  SecAggFrameHeader h;
  const Status header = DecodeSecAggHeader(in, h);
  if (!header.ok()) {
    FUZZ_CHECK(header == Status::InvalidArgument());
    return 0;  // every phase frame starts with the header
  }
  FUZZ_CHECK(h.phase >= 1 && h.phase <= 4);

  SecAggAdvertisement advert;
  const Status a = DecodeSecAggAdvertise(in, h, advert);
  RefusedOrSame(a, in,
                a.ok() ? EncodeSecAggAdvertise(h.round_id, advert, Again())
                       : StatusWithSize());

  const StatusWithSize keys = DecodeSecAggKeys(in, h, g_keys);
  const size_t nk = CountOf(keys, kCapacity);
  RefusedOrSame(keys.status(), in,
                keys.ok() ? EncodeSecAggKeys(
                                h.round_id,
                                Span<const SecAggPeerKeys>(g_keys, nk), Again())
                          : StatusWithSize());

  const StatusWithSize sealed = DecodeSecAggSealed(in, h, g_sealed);
  const size_t ns = CountOf(sealed, kCapacity);
  RefusedOrSame(
      sealed.status(), in,
      sealed.ok()
          ? EncodeSecAggSealed(h.round_id,
                               Span<const SecAggSealed>(g_sealed, ns), Again())
          : StatusWithSize());

  const StatusWithSize words = DecodeSecAggWords(in, h, g_words);
  const size_t nw = CountOf(words, kMaxWords);
  RefusedOrSame(
      words.status(), in,
      words.ok() ? EncodeSecAggWords(h.round_id,
                                     Span<const uint32_t>(g_words, nw), Again())
                 : StatusWithSize());

  uint32_t survivors = 0;
  const StatusWithSize listed =
      DecodeSecAggSurvivors(in, h, survivors, g_listed);
  const size_t nl = CountOf(listed, kCapacity + 1);
  SurvivorAnswer answer;
  answer.survivors = survivors;
  answer.listed = Span<const uint32_t>(g_listed, nl);
  RefusedOrSame(listed.status(), in,
                listed.ok() ? EncodeSecAggSurvivors(h.round_id, answer, Again())
                            : StatusWithSize());

  const StatusWithSize reveal = DecodeSecAggReveal(in, h, g_reveal);
  const size_t nr = CountOf(reveal, kCapacity);
  RefusedOrSame(
      reveal.status(), in,
      reveal.ok()
          ? EncodeSecAggReveal(h.round_id,
                               Span<const RevealedShare>(g_reveal, nr), Again())
          : StatusWithSize());
  return 0;
}

}  // namespace edgeadmm
