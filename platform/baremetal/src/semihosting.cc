#include "edgeadmm/baremetal/semihosting.h"

#include <cstdint>

namespace edgeadmm::baremetal {
namespace {

constexpr uint32_t kSysOpen = 0x01;
constexpr uint32_t kSysClose = 0x02;
constexpr uint32_t kSysWrite = 0x05;
constexpr uint32_t kSysRead = 0x06;
constexpr uint32_t kSysSeek = 0x0A;
constexpr uint32_t kSysFlen = 0x0C;
constexpr uint32_t kSysWrite0 = 0x04;
constexpr uint32_t kSysGetCmdline = 0x15;
constexpr uint32_t kSysExit = 0x18;
constexpr uint32_t kSysExitExtended = 0x20;
constexpr uint32_t kAdpStoppedApplicationExit = 0x20026;

// One semihosting request: operation in r0, argument in r1, `bkpt 0xAB` on
// M-profile cores; the result comes back in r0.
uint32_t Call(uint32_t operation, const void* argument) {
  register uint32_t r0 asm("r0") = operation;
  register const void* r1 asm("r1") = argument;
  asm volatile("bkpt 0xAB" : "+r"(r0) : "r"(r1) : "memory");
  return r0;
}

}  // namespace

void SemihostingWrite(const char* text) { Call(kSysWrite0, text); }

bool SemihostingCommandLine(char* buffer, size_t size) {
  if (size == 0) return false;
  // Parameter block: the buffer and its size in, the length written out.
  uint32_t block[2] = {reinterpret_cast<uintptr_t>(buffer),
                       static_cast<uint32_t>(size)};
  if (Call(kSysGetCmdline, block) != 0) return false;
  buffer[block[1] < size ? block[1] : size - 1] = '\0';
  return true;
}

int SemihostingOpen(const char* path, SemihostingMode mode) {
  size_t length = 0;
  while (path[length] != '\0') ++length;
  const uint32_t block[3] = {reinterpret_cast<uintptr_t>(path),
                             static_cast<uint32_t>(mode),
                             static_cast<uint32_t>(length)};
  return static_cast<int>(Call(kSysOpen, block));
}

bool SemihostingReadFile(int handle, void* buffer, size_t size) {
  const uint32_t block[3] = {static_cast<uint32_t>(handle),
                             reinterpret_cast<uintptr_t>(buffer),
                             static_cast<uint32_t>(size)};
  return Call(kSysRead, block) == 0;  // the bytes NOT read
}

bool SemihostingWriteFile(int handle, const void* data, size_t size) {
  const uint32_t block[3] = {static_cast<uint32_t>(handle),
                             reinterpret_cast<uintptr_t>(data),
                             static_cast<uint32_t>(size)};
  return Call(kSysWrite, block) == 0;  // the bytes NOT written
}

bool SemihostingSeek(int handle, uint32_t position) {
  const uint32_t block[2] = {static_cast<uint32_t>(handle), position};
  return Call(kSysSeek, block) == 0;
}

long SemihostingFileLength(int handle) {
  const uint32_t block[1] = {static_cast<uint32_t>(handle)};
  return static_cast<long>(static_cast<int32_t>(Call(kSysFlen, block)));
}

void SemihostingClose(int handle) {
  const uint32_t block[1] = {static_cast<uint32_t>(handle)};
  Call(kSysClose, block);
}

void SemihostingExit(int code) {
  const uint32_t block[2] = {kAdpStoppedApplicationExit,
                             static_cast<uint32_t>(code)};
  Call(kSysExitExtended, block);
  // Hosts without SYS_EXIT_EXTENDED: plain exit (status 0 only for success).
  Call(kSysExit, reinterpret_cast<const void*>(
                     code == 0 ? kAdpStoppedApplicationExit : 0x20023u));
  for (;;) {
  }
}

}  // namespace edgeadmm::baremetal
