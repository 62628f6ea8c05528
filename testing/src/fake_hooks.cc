#include "edgeadmm/fake/fake_hooks.h"

#include <csetjmp>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "edgeadmm/assert.h"
#include "edgeadmm/log.h"

namespace edgeadmm {
namespace fake {
namespace {

constexpr int kLevels = 4;

std::jmp_buf* catch_point = nullptr;
uint32_t panic_count = 0;
char panic_message[160] = "";
uint32_t log_counts[kLevels] = {};
char last_log_line[256] = "";

}  // namespace

bool RunExpectingPanic(void (*fn)(void*), void* arg) {
  std::jmp_buf here;
  std::jmp_buf* const outer = catch_point;
  catch_point = &here;
  bool panicked = false;
  if (setjmp(here) == 0) {
    fn(arg);
  } else {
    panicked = true;
  }
  catch_point = outer;
  return panicked;
}

uint32_t PanicCount() { return panic_count; }
const char* LastPanicMessage() { return panic_message; }

uint32_t LogCount(int level) {
  return (level >= 0 && level < kLevels) ? log_counts[level] : 0;
}
const char* LastLogLine() { return last_log_line; }
void ResetLog() {
  for (uint32_t& c : log_counts) c = 0;
  last_log_line[0] = '\0';
}

}  // namespace fake
}  // namespace edgeadmm

extern "C" [[noreturn]] void edgeadmm_panic(const char* file, int line,
                                            const char* message) {
  using namespace edgeadmm::fake;
  ++panic_count;
  std::snprintf(panic_message, sizeof(panic_message), "%s:%d: %s", file, line,
                message);
  if (catch_point != nullptr) std::longjmp(*catch_point, 1);
  std::fprintf(stderr, "edgeadmm panic at %s\n", panic_message);
  std::abort();
}

extern "C" void edgeadmm_log(int level, const char* format, ...) {
  using namespace edgeadmm::fake;
  va_list args;
  va_start(args, format);
  std::vsnprintf(last_log_line, sizeof(last_log_line), format, args);
  va_end(args);
  if (level >= 0 && level < kLevels) ++log_counts[level];
  std::fprintf(stderr, "[log %d] %s\n", level, last_log_line);
}
