// Eigen settings forced into every C++ file of a bare-metal build (through
// the Eigen3::Eigen target of cmake/CrossDependencies.cmake).
//
// Eigen's temporaries fall back to std::malloc when alloca is unavailable (as
// on newlib), guarded only by an eigen_assert that NDEBUG removes. Routing
// eigen_assert to the panic hook makes that path end in a panic, so the
// compiler drops the malloc call and the firmware links no allocator
// (docs/sdk.md, "Rules it follows": no heap, Eigen only through maps, an
// allocation caught even with NDEBUG).
#pragma once

#if defined(__cplusplus) && !defined(eigen_assert)
extern "C" [[noreturn]] void edgeadmm_panic(const char* file, int line,
                                            const char* message);
// Base name only where the compiler offers it, as in edgeadmm/assert.h.
#if defined(__FILE_NAME__)
#define EDGEADMM_EIGEN_SOURCE_FILE __FILE_NAME__
#else
#define EDGEADMM_EIGEN_SOURCE_FILE __FILE__
#endif
#define eigen_assert(x)       \
  ((x) ? static_cast<void>(0) \
       : edgeadmm_panic(EDGEADMM_EIGEN_SOURCE_FILE, __LINE__, "Eigen: " #x))
#endif
