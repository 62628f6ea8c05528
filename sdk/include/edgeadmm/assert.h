// Assertions for programming errors (never for bad input, which gets a Status).
//
// A failed assertion calls edgeadmm_panic(), a link-time hook: each platform
// (platform/posix, platform/baremetal, testing/) defines it once.
// Assertions stay on in release builds unless EDGEADMM_CFG_ASSERT_ENABLED is 0.
#pragma once

#include "edgeadmm/config.h"

extern "C" {
// Link-time hook: reports the failure and never returns.
[[noreturn]] void edgeadmm_panic(const char* file, int line,
                                 const char* message);
}

#if EDGEADMM_CFG_ASSERT_ENABLED
#define EDGEADMM_ASSERT(cond)                              \
  do {                                                     \
    if (!(cond)) edgeadmm_panic(__FILE__, __LINE__, #cond); \
  } while (0)
#else
#define EDGEADMM_ASSERT(cond) \
  do {                        \
    (void)sizeof(cond);       \
  } while (0)
#endif

// Unconditional panic for states that cannot happen.
#define EDGEADMM_PANIC(message) edgeadmm_panic(__FILE__, __LINE__, message)
