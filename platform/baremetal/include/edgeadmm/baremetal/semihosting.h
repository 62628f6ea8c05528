// Arm semihosting (Arm IHI 0069): console output and program exit through the
// debugger or QEMU (`-semihosting-config enable=on,target=native`). Without a
// debugger attached a semihosting call faults, so production boards route the
// log hook to a UART instead.
#pragma once

#include <cstddef>
#include <cstdint>

namespace edgeadmm::baremetal {

// Writes a NUL-terminated string to the host console (SYS_WRITE0).
void SemihostingWrite(const char* text);

// Copies the command line QEMU passes (`-semihosting-config arg=...`, else
// the image name and `-append`) into `buffer`, NUL-terminated
// (SYS_GET_CMDLINE). False if the host has none or it does not fit.
bool SemihostingCommandLine(char* buffer, size_t size);

// Host files (SYS_OPEN, SYS_READ, SYS_WRITE, SYS_SEEK, SYS_FLEN, SYS_CLOSE;
// with QEMU's target=native, paths relative to QEMU's working directory).
// What a host-file write has written survives the end of the program (the
// host process' exit), like flash survives a power loss.
enum class SemihostingMode : uint32_t {
  kReadBinary = 1,             // "rb"
  kReadWriteBinary = 3,        // "r+b": existing file
  kReadWriteCreateBinary = 7,  // "w+b": created or truncated
};
// A host file handle, or -1 if it cannot be opened.
int SemihostingOpen(const char* path, SemihostingMode mode);
// Whole-buffer transfers at the current position: true if all bytes moved.
bool SemihostingReadFile(int handle, void* buffer, size_t size);
bool SemihostingWriteFile(int handle, const void* data, size_t size);
bool SemihostingSeek(int handle, uint32_t position);
// The file's length in bytes, or -1.
long SemihostingFileLength(int handle);
void SemihostingClose(int handle);

// Ends the program with `code` as the host process' exit status
// (SYS_EXIT_EXTENDED). Never returns.
[[noreturn]] void SemihostingExit(int code);

}  // namespace edgeadmm::baremetal
