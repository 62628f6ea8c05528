// POSIX panic hook: print the failed assertion to stderr and abort (core dump).
#include <cstdio>
#include <cstdlib>

#include "edgeadmm/assert.h"

extern "C" [[noreturn]] void edgeadmm_panic(const char* file, int line,
                                            const char* message) {
  std::fprintf(stderr, "edgeadmm panic at %s:%d: %s\n", file, line, message);
  std::fflush(stderr);
  std::abort();
}
