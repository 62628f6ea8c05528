// Logging: a link-time hook so a board decides where lines go (stderr,
// semihosting, UART, or nowhere). Format strings follow printf.
#pragma once

#include "edgeadmm/config.h"

extern "C" {
// Link-time hook: writes one log line. `level` is one of EDGEADMM_LOG_LEVEL_*.
void edgeadmm_log(int level, const char* format, ...)
    __attribute__((format(printf, 2, 3)));
}

#define EDGEADMM_LOG_LEVEL_DEBUG 0
#define EDGEADMM_LOG_LEVEL_INFO 1
#define EDGEADMM_LOG_LEVEL_WARN 2
#define EDGEADMM_LOG_LEVEL_ERROR 3

#define EDGEADMM_LOG_AT(level, ...)                          \
  do {                                                       \
    if ((level) >= EDGEADMM_CFG_LOG_LEVEL) edgeadmm_log((level), __VA_ARGS__); \
  } while (0)
#define EDGEADMM_LOG_DEBUG(...) EDGEADMM_LOG_AT(EDGEADMM_LOG_LEVEL_DEBUG, __VA_ARGS__)
#define EDGEADMM_LOG_INFO(...) EDGEADMM_LOG_AT(EDGEADMM_LOG_LEVEL_INFO, __VA_ARGS__)
#define EDGEADMM_LOG_WARN(...) EDGEADMM_LOG_AT(EDGEADMM_LOG_LEVEL_WARN, __VA_ARGS__)
#define EDGEADMM_LOG_ERROR(...) EDGEADMM_LOG_AT(EDGEADMM_LOG_LEVEL_ERROR, __VA_ARGS__)
