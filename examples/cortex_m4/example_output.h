// Output of the Cortex-M4 example programs (main.cc here and
// ../cortex_m4_sharing/main.cc) on both sides: the board's console on the
// firmware (EDGEADMM_EXAMPLE_BAREMETAL=1), stdout on the host twin. Lines are
// "key bits value" for reals (compare_output.py reads the exact IEEE-754
// bits), and the program ends with Finish (error or stack use, then "done").
#pragma once

#include <cstdint>
#include <cstring>

#include "edgeadmm/real.h"
#include "edgeadmm/status.h"

#if EDGEADMM_EXAMPLE_BAREMETAL
#include "edgeadmm/baremetal/format.h"
#include "edgeadmm/baremetal/stack.h"
#include "edgeadmm/board/board.h"
#else
#include <cstdio>
#endif

namespace edgeadmm::example {

inline void Print(const char* line) {
#if EDGEADMM_EXAMPLE_BAREMETAL
  board::ConsoleWrite(line);
#else
  std::fputs(line, stdout);
#endif
}

// printf-style formatting into `out` on both sides.
template <typename... Args>
void FormatTo(char* out, size_t size, const char* format, Args... args) {
#if EDGEADMM_EXAMPLE_BAREMETAL
  baremetal::Format(out, size, format, args...);
#else
  std::snprintf(out, size, format, args...);
#endif
}

// "key bits value": the exact IEEE-754 bits (what the comparison reads) and a
// readable approximation.
// Takes double: a float Real widens exactly, so the bits are comparable.
inline void PrintReal(const char* key, double value) {
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  char line[96];
  FormatTo(line, sizeof(line), "%s %016llx %.12g\n", key,
           static_cast<unsigned long long>(bits), value);
  Print(line);
}

// main's exit code for `status`: prints "error <status>", or the peak stack
// (firmware only) and "done".
inline int Finish(Status status) {
  if (!status.ok()) {
    Print("error ");
    Print(status.str());
    Print("\n");
    return 1;
  }
#if EDGEADMM_EXAMPLE_BAREMETAL
  char line[64];
  FormatTo(line, sizeof(line), "stack_used %u\n",
           static_cast<unsigned>(baremetal::StackBytesUsed()));
  Print(line);
#endif
  Print("done\n");
  return 0;
}

}  // namespace edgeadmm::example
