// The board's persistent storage across runs: board::OpenStorage, the
// board's Flash() and FlashStorage on it, with power-loss injection
// (board::CutPowerDuringFlashOperation; on the QEMU boards the flash model
// in a host file of QEMU's working directory). One step per run, driven by
// run_flash_persist.py in the same working directory:
//   <image> fresh        the new flash reads erased (0xFF) and holds no key;
//                        it refuses a 0 -> 1 program; writes "client" v1
//                        and "ledger" v100
//   <image> read V       "client" holds blob V, "ledger" blob 100
//   <image> write V [N]  writes "client" blob V; with N the power fails
//                        during the N-th flash operation of the write (exit
//                        status board::kPowerCutExitCode)
// Prints "client vV" for what it read, "wrote vV in K flash operations".
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "edgeadmm/baremetal/format.h"
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
  board::ConsoleWrite(text);
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
  baremetal::FlashDevice& flash = board::Flash();
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
  const size_t unit = flash.program_unit();
  if (unit > sizeof(blob)) return Fail("program unit of %u bytes", unit);
  std::byte* zeros = blob;  // one program unit of each
  std::byte* ones = blob + unit;
  std::memset(zeros, 0, unit);
  std::memset(ones, 0xff, unit);
  if (!flash.Program(offset, ConstByteSpan(zeros, unit)).ok() ||
      flash.Program(offset, ConstByteSpan(ones, unit)).code() !=
          StatusCode::kFailedPrecondition ||
      flash.Program(offset + 1, ConstByteSpan(zeros, unit)).code() !=
          StatusCode::kInvalidArgument ||
      !flash.Erase(sector).ok() ||
      !flash.Program(offset, ConstByteSpan(ones, unit)).ok()) {
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
  if (!board::CutPowerDuringFlashOperation(cut_at)) {
    return Fail("the board cannot simulate a power loss");
  }
  const uint32_t before = board::FlashOperations();
  if (!board::PersistentStorage().Write("client", Blob(version)).ok()) {
    return Fail("write v%u", version);
  }
  Print("wrote v%u in %u flash operations\n", version,
        board::FlashOperations() - before);
  return StoredVersion("client") == static_cast<int>(version)
             ? 0
             : Fail("v%u not read back", version);
}

int Run() {
  static_assert(DeviceClient::RecordBytes(123) <= 8192 - 88,
                "the reference job's record fits a FlashStorage bank");
  char line[256];
  if (!board::CommandLine(line, sizeof(line))) {
    return Fail("no command line");
  }
  const char* words[4] = {};
  int count = 0;
  for (char* p = line; *p != '\0' && count < 4;) {
    while (*p == ' ') ++p;
    if (*p == '\0') break;
    words[count++] = p;
    while (*p != '\0' && *p != ' ') ++p;
    if (*p == ' ') *p++ = '\0';
  }
  if (count < 2) return Fail("usage: <image> <command> [args]");
  if (!board::OpenStorage().ok()) return Fail("cannot open the flash");
  const uint32_t a =
      count > 2 ? static_cast<uint32_t>(std::strtoul(words[2], nullptr, 10))
                : 0;
  const uint32_t b =
      count > 3 ? static_cast<uint32_t>(std::strtoul(words[3], nullptr, 10))
                : 0;
  if (std::strcmp(words[1], "fresh") == 0) return Fresh();
  if (std::strcmp(words[1], "read") == 0) return ReadBack(a);
  if (std::strcmp(words[1], "write") == 0 && a >= 1 && a <= kMaxVersion) {
    return Write(a, b);
  }
  return Fail("unknown command");
}

}  // namespace
}  // namespace edgeadmm

int main() { return edgeadmm::Run(); }
