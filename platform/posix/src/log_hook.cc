// POSIX log hook: one line per call on stderr, prefixed with the level.
#include <cstdarg>
#include <cstdio>

#include "edgeadmm/log.h"

extern "C" void edgeadmm_log(int level, const char* format, ...) {
  static const char* const kNames[] = {"debug", "info", "warn", "error"};
  const char* name = (level >= 0 && level <= 3) ? kNames[level] : "log";
  char line[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(line, sizeof(line), format, args);
  va_end(args);
  std::fprintf(stderr, "[%s] %s\n", name, line);
}
