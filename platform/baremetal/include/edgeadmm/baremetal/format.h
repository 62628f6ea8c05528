// A heap-free printf subset for bare-metal logging. newlib's printf family can
// reach malloc (stdio buffers, dtoa big numbers), which the firmware must not
// link, so the log hook and the MCU test harness format with this instead.
//
// Supported: flags `-0+ `, width and precision (also `*`), length modifiers
// hh h l ll z j t, conversions d i u x X o c s p % f F e E g G. Floating-point
// output is exact to about 15 significant digits (the conversion scales by
// powers of ten in double precision); print bit patterns with %llx when exact
// values matter.
#pragma once

#include <cstdarg>
#include <cstddef>

namespace edgeadmm::baremetal {

// Formats into `buffer` (always NUL-terminated when size > 0, truncating) and
// returns the length the full output would have, like vsnprintf.
int FormatV(char* buffer, size_t size, const char* format, va_list args);

// Variadic form of FormatV.
int Format(char* buffer, size_t size, const char* format, ...)
    __attribute__((format(printf, 3, 4)));

}  // namespace edgeadmm::baremetal
