// Fuzzes SecAggDeviceSession::Restore (sdk/src/secagg/
// device_session_blob.cc), which reads the session's blob back from flash
// after a reset. The input is the blob without its CRC-32: the target
// appends the right one, so the mutations reach the field checks behind it
// (the CRC's own check is a unit test's). Invariants: a refused blob is
// DATA_LOSS and leaves the session idle; an accepted one is written again
// by Serialize into exactly the same bytes.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "edgeadmm/crc32.h"
#include "edgeadmm/secagg/device_session.h"
#include "fuzz_check.h"

namespace edgeadmm {
namespace {

constexpr size_t kK = 8;
constexpr size_t kM = 64;
constexpr size_t kMaxBlob = SecAggSessionBlobBytes(kK, kM) + 64;

std::byte g_blob[kMaxBlob];
std::byte g_again[kMaxBlob];

}  // namespace

// C linkage inside the namespace: libFuzzer finds the unqualified name.
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size + 4 > kMaxBlob) return 0;
  if (size > 0) std::memcpy(g_blob, data, size);  // data may be null then
  const uint32_t crc = Crc32(ConstByteSpan(g_blob, size));
  for (size_t i = 0; i < 4; ++i) {
    g_blob[size + i] = static_cast<std::byte>(crc >> (8 * i));
  }
  const ConstByteSpan blob(g_blob, size + 4);

  static SecAggSessionArrays<kK, kM> arrays;
  SecAggDeviceSession session(arrays.buffers());
  const Status restored = session.Restore(blob);
  if (!restored.ok()) {
    FUZZ_CHECK(restored == Status::DataLoss());
    FUZZ_CHECK(session.phase() == SecAggDevicePhase::kIdle);
    return 0;
  }
  FUZZ_CHECK(session.phase() >= SecAggDevicePhase::kAdvertised &&
             session.phase() <= SecAggDevicePhase::kRevealed);
  const StatusWithSize n = session.Serialize(ByteSpan(g_again, kMaxBlob));
  FUZZ_CHECK(n.ok() && n.size() == blob.size());
  FUZZ_CHECK(std::memcmp(g_again, g_blob, blob.size()) == 0);
  return 0;
}

}  // namespace edgeadmm
