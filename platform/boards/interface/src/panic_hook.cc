// Bare-metal panic hook: report the failed assertion on the board's console
// and stop the firmware (board::Halt) with exit status 134 (as SIGABRT on a
// host).
// The C library's assert() and abort() are routed here as well, so neither
// pulls in newlib's stdio (which allocates).
#include "edgeadmm/assert.h"
#include "edgeadmm/baremetal/format.h"
#include "edgeadmm/board/board.h"

namespace {
constexpr int kPanicExitCode = 134;
}  // namespace

extern "C" [[noreturn]] void edgeadmm_panic(const char* file, int line,
                                            const char* message) {
  char text[256];
  edgeadmm::baremetal::Format(
      text, sizeof(text), "edgeadmm panic at %s:%d: %s\n", file, line, message);
  edgeadmm::board::ConsoleWrite(text);
  edgeadmm::board::Halt(kPanicExitCode);
}

// newlib's assert() calls this.
extern "C" [[noreturn]] void __assert_func(const char* file, int line,
                                           const char* /*function*/,
                                           const char* expression) {
  edgeadmm_panic(file, line, expression);
}

extern "C" [[noreturn]] void abort() { edgeadmm_panic("", 0, "abort()"); }
