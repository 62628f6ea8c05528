// Link-time hooks for the fuzz targets: a failed assertion is a crash the
// fuzzer must report; logging is silent.
#include <cstdio>
#include <cstdlib>

#include "edgeadmm/assert.h"
#include "edgeadmm/log.h"

extern "C" void edgeadmm_panic(const char* file, int line,
                               const char* message) {
  std::fprintf(stderr, "edgeadmm_panic %s:%d: %s\n", file, line, message);
  std::abort();
}

extern "C" void edgeadmm_log(int, const char*, ...) {}
