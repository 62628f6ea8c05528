// A check that aborts (so libFuzzer reports it) in every build mode.
#pragma once

#include <cstdio>
#include <cstdlib>

#define FUZZ_CHECK(cond)                                                  \
  do {                                                                    \
    if (!(cond)) {                                                        \
      std::fprintf(stderr, "%s:%d: FUZZ_CHECK(%s)\n", __FILE__, __LINE__, \
                   #cond);                                                \
      std::abort();                                                       \
    }                                                                     \
  } while (0)
