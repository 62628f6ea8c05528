/* lwIP compiler/platform abstraction for arm-none-eabi (newlib): little
 * endian, C99 integer types from <stdint.h>, diagnostics dropped and failed
 * lwIP assertions routed to the SDK's panic hook (edgeadmm_panic). */
#ifndef EDGEADMM_LWIP_ARCH_CC_H
#define EDGEADMM_LWIP_ARCH_CC_H

#define BYTE_ORDER LITTLE_ENDIAN
#define LWIP_NO_UNISTD_H 1

#ifdef __cplusplus
extern "C" {
#endif
void edgeadmm_panic(const char* file, int line, const char* message)
    __attribute__((noreturn));
#ifdef __cplusplus
}
#endif

#define LWIP_PLATFORM_DIAG(x) \
  do {                        \
  } while (0)
/* Base name only (GCC >= 12): lwIP's paths lie in the build directory, and
 * the image must not grow with the directory's name. */
#if defined(__FILE_NAME__)
#define LWIP_PLATFORM_ASSERT(x) edgeadmm_panic(__FILE_NAME__, __LINE__, (x))
#else
#define LWIP_PLATFORM_ASSERT(x) edgeadmm_panic(__FILE__, __LINE__, (x))
#endif

#endif /* EDGEADMM_LWIP_ARCH_CC_H */
