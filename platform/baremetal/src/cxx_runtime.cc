// C++ runtime symbols for a firmware built with -fno-exceptions -fno-rtti and
// no heap. libstdc++'s versions print through a verbose terminate handler that
// allocates; these panic instead.
#include "edgeadmm/assert.h"

// Called through a vtable slot whose function is pure virtual (a bug).
extern "C" [[noreturn]] void __cxa_pure_virtual() {
  EDGEADMM_PANIC("pure virtual function called");
}
