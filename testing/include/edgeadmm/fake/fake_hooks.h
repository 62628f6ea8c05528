// Test versions of the link-time hooks (library edgeadmm::fake_hooks): a
// panic hook that tests can catch and a log hook that records lines. Link it
// instead of edgeadmm::posix_hooks (or a board's hooks), not with them.
#pragma once

#include <cstdint>

namespace edgeadmm {
namespace fake {

// Runs fn(arg) and returns true if it hit a panic (EDGEADMM_ASSERT or
// EDGEADMM_PANIC), which then returns here via longjmp. Frames between the
// panic and this call are abandoned without running destructors, so use it
// only on code whose locals are trivially destructible. A panic outside any
// RunExpectingPanic prints the message and aborts, like the POSIX hook.
bool RunExpectingPanic(void (*fn)(void*), void* arg);

// Number of panics caught so far and the message of the last one ("" none).
uint32_t PanicCount();
const char* LastPanicMessage();

// Lines logged at `level` (EDGEADMM_LOG_LEVEL_*) since the last ResetLog, and
// the last line logged at any level ("" none). Lines are also echoed to
// stderr.
uint32_t LogCount(int level);
const char* LastLogLine();
void ResetLog();

}  // namespace fake
}  // namespace edgeadmm
