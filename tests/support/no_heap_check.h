// No-heap harness for host tests (library edgeadmm::no_heap_check).
//
// Linking this library replaces malloc, calloc, realloc, free, memalign,
// aligned_alloc, posix_memalign and every operator new/delete of the test
// program with versions that forward to glibc and, while a NoHeapScope is
// open on the calling thread, count every allocation as a violation. The
// allocation still succeeds, so a violating test fails through its
// assertion instead of crashing:
//
//   size_t violations;
//   {
//     NoHeapScope scope;
//     ... code that must not allocate ...
//     violations = scope.End();
//   }
//   EXPECT_EQ(violations, 0u) << LastHeapViolation();
//
// Under sanitizers (which own malloc) the interposer is compiled out;
// NoHeapCheckEnabled() then returns false and nothing is counted. Tests start
// with EDGEADMM_REQUIRE_NO_HEAP_CHECK(): it skips them there, and fails them
// in any build without a sanitizer whose interposer is off.
#pragma once

#include <cstddef>

namespace edgeadmm {

// Whether allocations are being intercepted in this build.
bool NoHeapCheckEnabled();

// Set by CMake for every build without a sanitizer.
#ifndef EDGEADMM_NO_HEAP_CHECK_REQUIRED
#define EDGEADMM_NO_HEAP_CHECK_REQUIRED 0
#endif

// For the first line of a GoogleTest body or SetUp (see the file comment).
#define EDGEADMM_REQUIRE_NO_HEAP_CHECK()                                    \
  do {                                                                      \
    if (!::edgeadmm::NoHeapCheckEnabled()) {                                \
      if (EDGEADMM_NO_HEAP_CHECK_REQUIRED) {                                \
        FAIL() << "the no-heap interposer is off in a build that needs it"; \
      }                                                                     \
      GTEST_SKIP() << "interposer off (sanitizer build)";                   \
    }                                                                       \
  } while (0)

// Allocations seen inside NoHeapScopes (all threads) since program start.
size_t TotalHeapViolations();

// A description of the last violation, e.g. "malloc(24)" ("" if none).
const char* LastHeapViolation();

// While alive, every allocation on the constructing thread is a violation.
// Scopes nest. Not copyable or movable.
class NoHeapScope {
 public:
  NoHeapScope();
  ~NoHeapScope();
  NoHeapScope(const NoHeapScope&) = delete;
  NoHeapScope& operator=(const NoHeapScope&) = delete;

  // Allocations on this thread since the scope opened (up to End()).
  size_t violations() const;

  // Closes the scope early (idempotent) and returns violations(); use it so
  // that the failing assertion's own allocations are not counted.
  size_t End();

 private:
  size_t start_;
  size_t end_ = 0;
  bool open_ = true;
};

}  // namespace edgeadmm
