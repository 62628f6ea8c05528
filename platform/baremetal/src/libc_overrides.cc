// Heap-free replacements for newlib functions that would link malloc: the
// newlib-nano printf core reaches _malloc_r/_free_r (asprintf's growing
// buffers), so snprintf/vsnprintf here format with the bare-metal Format
// subset (format.h) instead. Linked into every firmware image with the hooks.
#include <cstdarg>
#include <cstddef>

#include "edgeadmm/baremetal/format.h"

extern "C" int vsnprintf(char* buffer, size_t size, const char* format,
                         va_list args) {
  return edgeadmm::baremetal::FormatV(buffer, size, format, args);
}

extern "C" int snprintf(char* buffer, size_t size, const char* format, ...) {
  va_list args;
  va_start(args, format);
  const int length = edgeadmm::baremetal::FormatV(buffer, size, format, args);
  va_end(args);
  return length;
}
