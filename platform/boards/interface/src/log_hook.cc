// Bare-metal log hook: one line per call on the board's console
// (board::ConsoleWrite), prefixed with the level. Formatting uses the
// heap-free Format, never newlib's printf.
#include <cstdarg>

#include "edgeadmm/baremetal/format.h"
#include "edgeadmm/board/board.h"
#include "edgeadmm/log.h"

extern "C" void edgeadmm_log(int level, const char* format, ...) {
  static const char* const kNames[] = {"debug", "info", "warn", "error"};
  const char* name = (level >= 0 && level <= 3) ? kNames[level] : "log";
  char line[256];
  const int prefix =
      edgeadmm::baremetal::Format(line, sizeof(line), "[%s] ", name);
  va_list args;
  va_start(args, format);
  edgeadmm::baremetal::FormatV(line + prefix, sizeof(line) - 1 - prefix, format,
                               args);
  va_end(args);
  int end = 0;
  while (line[end] != '\0') ++end;
  line[end] = '\n';
  line[end + 1] = '\0';
  edgeadmm::board::ConsoleWrite(line);
}
