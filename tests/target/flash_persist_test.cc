// The board's persistent storage across QEMU runs: board::OpenFlash (the
// SemihostingFlash model in a host file) and FlashStorage on it. One step
// per run, driven by run_flash_persist.py with the same backing file:
//   <image> <file> fresh        the new file reads erased (0xFF) and holds
//                               no key; the model refuses a 0 -> 1 program;
//                               writes "client" v1 and "ledger" v100
//   <image> <file> read V       "client" holds blob V, "ledger" blob 100
//   <image> <file> write V [N]  writes "client" blob V; with N the power
//                               fails during the N-th flash operation of
//                               the write (exit status 3)
// Prints "client vV" for what it read, "wrote vV in K flash operations".
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "edgeadmm/baremetal/format.h"
#include "edgeadmm/baremetal/semihosting.h"
#include "edgeadmm/board/board.h"
#include "edgeadmm/device_client.h"

namespace edgeadmm {
namespace {

constexpr uint32_t kMaxVersion = 64;
constexpr uint32_t kLedgerVersion = 100;
// Largest test blob (version kLedgerVersion) fits FlashStorage's capacity.
constexpr size_t BlobSize(uint32_t version) { return 200 + 37 * version; }
std::byte blob[BlobSize(kLedgerVersion)];
std::byte out[BlobSize(kLedgerVersion) + 16];

void Print(const char* format, unsigned a = 0, unsigned b = 0) {
  char text[160];
  baremetal::Format(text, sizeof(text), format, a, b);
  baremetal::SemihostingWrite(text);
}

int Fail(const char* what, unsigned a = 0) {
  Print("FAILED: ", 0);
  Print(what, a);
  Print("\n");
  return 1;
}

ConstByteSpan Blob(uint32_t version) {
  for (size_t i = 0; i < BlobSize(version); ++i) {
    blob[i] = static_cast<std::byte>(version * 31 + i * 7 + (i >> 8));
  }
  return ConstByteSpan(blob, BlobSize(version));
}

// The version of blob stored under `key`, 0 if none matches, -1 if absent.
int StoredVersion(const char* key) {
  const StatusWithSize read =
      board::PersistentStorage().Read(key, ByteSpan(out, sizeof(out)));
  if (read.status().code() == StatusCode::kNotFound) return -1;
  if (!read.ok()) return 0;
  for (uint32_t v = 1; v <= kLedgerVersion; ++v) {
    if (v > kMaxVersion && v != kLedgerVersion) continue;
    const ConstByteSpan expected = Blob(v);
    if (read.size() == expected.size() &&
        std::memcmp(out, expected.data(), expected.size()) == 0) {
      return static_cast<int>(v);
    }
  }
  return 0;
}

int Fresh() {
  baremetal::SemihostingFlash& flash = board::Flash();
  const size_t total = flash.sector_size() * flash.sector_count();
  for (size_t at = 0; at < total; at += sizeof(out)) {
    const size_t n = total - at < sizeof(out) ? total - at : sizeof(out);
    if (!flash.Read(at, ByteSpan(out, n)).ok()) return Fail("flash read");
    for (size_t i = 0; i < n; ++i) {
      if (out[i] != std::byte{0xff}) return Fail("not erased at %u", at + i);
    }
  }
  if (StoredVersion("client") != -1 || StoredVersion("ledger") != -1) {
    return Fail("a fresh flash holds a key");
  }
  Print("fresh: %u bytes erased, no keys\n", static_cast<unsigned>(total));
  // NOR semantics on the last sector (no slot uses it with two keys).
  const size_t sector = flash.sector_count() - 1;
  const size_t offset = sector * flash.sector_size();
  std::byte zeros[board::kFlashProgramUnit] = {};
  std::byte ones[board::kFlashProgramUnit];
  std::memset(ones, 0xff, sizeof(ones));
  if (!flash.Program(offset, ConstByteSpan(zeros, sizeof(zeros))).ok() ||
      flash.Program(offset, ConstByteSpan(ones, sizeof(ones))).code() !=
          StatusCode::kFailedPrecondition ||
      flash.Program(offset + 1, ConstByteSpan(zeros, sizeof(zeros))).code() !=
          StatusCode::kInvalidArgument ||
      !flash.Erase(sector).ok() ||
      !flash.Program(offset, ConstByteSpan(ones, sizeof(ones))).ok()) {
    return Fail("flash semantics");
  }
  Print("flash semantics: 0 -> 1 program refused, erase restores 0xFF\n");
  if (!board::PersistentStorage().Write("client", Blob(1)).ok() ||
      !board::PersistentStorage().Write("ledger", Blob(kLedgerVersion)).ok()) {
    return Fail("write");
  }
  if (StoredVersion("client") != 1) return Fail("client v1 not read back");
  Print("wrote client v1, ledger v%u\n", kLedgerVersion);
  return 0;
}

int ReadBack(uint32_t version) {
  const int client = StoredVersion("client");
  Print("client v%u\n", client < 0 ? 0u : static_cast<unsigned>(client));
  if (StoredVersion("ledger") != static_cast<int>(kLedgerVersion)) {
    return Fail("ledger not v%u", kLedgerVersion);
  }
  if (client != static_cast<int>(version)) return Fail("expected v%u", version);
  return 0;
}

int Write(uint32_t version, uint32_t cut_at) {
  board::Flash().CutPowerAt(cut_at);
  const uint32_t before = board::Flash().operations();
  if (!board::PersistentStorage().Write("client", Blob(version)).ok()) {
    return Fail("write v%u", version);
  }
  Print("wrote v%u in %u flash operations\n", version,
        board::Flash().operations() - before);
  return StoredVersion("client") == static_cast<int>(version)
             ? 0
             : Fail("v%u not read back", version);
}

int Run() {
  static_assert(DeviceClient::RecordBytes(123) <= 8192 - 88,
                "the reference job's record fits a FlashStorage bank");
  char line[256];
  if (!baremetal::SemihostingCommandLine(line, sizeof(line))) {
    return Fail("no command line");
  }
  const char* words[5] = {};
  int count = 0;
  for (char* p = line; *p != '\0' && count < 5;) {
    while (*p == ' ') ++p;
    if (*p == '\0') break;
    words[count++] = p;
    while (*p != '\0' && *p != ' ') ++p;
    if (*p == ' ') *p++ = '\0';
  }
  if (count < 3) return Fail("usage: <image> <file> <command> [args]");
  if (!board::OpenFlash(words[1]).ok()) return Fail("cannot open the file");
  const uint32_t a =
      count > 3 ? static_cast<uint32_t>(std::strtoul(words[3], nullptr, 10))
                : 0;
  const uint32_t b =
      count > 4 ? static_cast<uint32_t>(std::strtoul(words[4], nullptr, 10))
                : 0;
  if (std::strcmp(words[2], "fresh") == 0) return Fresh();
  if (std::strcmp(words[2], "read") == 0) return ReadBack(a);
  if (std::strcmp(words[2], "write") == 0 && a >= 1 && a <= kMaxVersion) {
    return Write(a, b);
  }
  return Fail("unknown command");
}

}  // namespace
}  // namespace edgeadmm

int main() { return edgeadmm::Run(); }
