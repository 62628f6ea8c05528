// Assertions for programming errors (never for bad input, which gets a Status).
//
// A failed assertion calls edgeadmm_panic(), a link-time hook: each platform
// (platform/posix, platform/baremetal, testing/) defines it once.
// Assertions stay on in release builds unless EDGEADMM_CFG_ASSERT_ENABLED is 0.
#pragma once

#include "edgeadmm/config.h"

// The file a panic names: the base name only where the compiler offers it
// (GCC >= 12, Clang >= 9), so that the firmware's strings, and with them its
// size, do not depend on the directory it was built in.
#if defined(__FILE_NAME__)
#define EDGEADMM_SOURCE_FILE __FILE_NAME__
#else
#define EDGEADMM_SOURCE_FILE __FILE__
#endif

extern "C" {
// Link-time hook: reports the failure and never returns.
[[noreturn]] void edgeadmm_panic(const char* file, int line,
                                 const char* message);
}

#if EDGEADMM_CFG_ASSERT_ENABLED
#define EDGEADMM_ASSERT(cond)                                           \
  do {                                                                  \
    if (!(cond)) edgeadmm_panic(EDGEADMM_SOURCE_FILE, __LINE__, #cond); \
  } while (0)
#else
#define EDGEADMM_ASSERT(cond) \
  do {                        \
    (void)sizeof(cond);       \
  } while (0)
#endif

// Unconditional panic for states that cannot happen.
#define EDGEADMM_PANIC(message) \
  edgeadmm_panic(EDGEADMM_SOURCE_FILE, __LINE__, message)
