// C++ runtime symbols for a firmware built with -fno-exceptions -fno-rtti and
// no heap. libstdc++'s versions print through a verbose terminate handler that
// allocates; these panic instead.
#include "edgeadmm/assert.h"

// Called through a vtable slot whose function is pure virtual (a bug).
extern "C" [[noreturn]] void __cxa_pure_virtual() {
  EDGEADMM_PANIC("pure virtual function called");
}

// Static objects with destructors register them here (with -fuse-cxa-atexit,
// GCC's default). A firmware never returns from main, so exit-time
// destructors never run: registration is a no-op, which keeps newlib's atexit
// tables (and their allocator) out of the image.
extern "C" int __cxa_atexit(void (*)(void*), void*, void*) { return 0; }

// The handle those registrations name; normally defined by crtbegin.o, which
// firmware images (-nostartfiles) do not link.
extern "C" {
void* __dso_handle = nullptr;
}
