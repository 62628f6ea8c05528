#include "edgeadmm/baremetal/semihosting.h"

#include <cstdint>

namespace edgeadmm::baremetal {
namespace {

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
