// POSIX log hook: one line per call on stderr, prefixed with the level.
// Control characters in the text (a newline in a stored name, say) become
// '?', so no value a line carries can start a forged line.
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
  for (char* c = line; *c != '\0'; ++c) {
    const unsigned char u = static_cast<unsigned char>(*c);
    if (u < 0x20 || u == 0x7f) *c = '?';
  }
  std::fprintf(stderr, "[%s] %s\n", name, line);
}
