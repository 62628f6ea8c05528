// Arm semihosting (Arm IHI 0069): console output and program exit through the
// debugger or QEMU (`-semihosting-config enable=on,target=native`). Without a
// debugger attached a semihosting call faults, so production boards route the
// log hook to a UART instead.
#pragma once

#include <cstddef>

namespace edgeadmm::baremetal {

// Writes a NUL-terminated string to the host console (SYS_WRITE0).
void SemihostingWrite(const char* text);

// Copies the command line QEMU passes (`-semihosting-config arg=...`, else
// the image name and `-append`) into `buffer`, NUL-terminated
// (SYS_GET_CMDLINE). False if the host has none or it does not fit.
bool SemihostingCommandLine(char* buffer, size_t size);

// Ends the program with `code` as the host process' exit status
// (SYS_EXIT_EXTENDED). Never returns.
[[noreturn]] void SemihostingExit(int code);

}  // namespace edgeadmm::baremetal
