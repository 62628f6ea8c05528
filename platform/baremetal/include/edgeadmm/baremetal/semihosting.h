// Arm semihosting (Arm IHI 0069): console output and program exit through the
// debugger or QEMU (`-semihosting-config enable=on,target=native`). Without a
// debugger attached a semihosting call faults, so production boards route the
// log hook to a UART instead.
#pragma once

namespace edgeadmm::baremetal {

// Writes a NUL-terminated string to the host console (SYS_WRITE0).
void SemihostingWrite(const char* text);

// Ends the program with `code` as the host process' exit status
// (SYS_EXIT_EXTENDED). Never returns.
[[noreturn]] void SemihostingExit(int code);

}  // namespace edgeadmm::baremetal
