// Malloc/new interposer behind NoHeapScope (see no_heap_check.h).
//
// Defining malloc & co. in the executable interposes them for the whole
// process (libstdc++ and glibc's own callers included); the originals are
// reached through glibc's exported __libc_* entry points.
#include "no_heap_check.h"

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <new>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define EDGEADMM_NO_HEAP_INTERPOSE 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define EDGEADMM_NO_HEAP_INTERPOSE 0
#endif
#endif
#if !defined(EDGEADMM_NO_HEAP_INTERPOSE) && defined(__GLIBC__)
#define EDGEADMM_NO_HEAP_INTERPOSE 1
#endif
#ifndef EDGEADMM_NO_HEAP_INTERPOSE
#define EDGEADMM_NO_HEAP_INTERPOSE 0
#endif

namespace edgeadmm {
namespace {

// Depth of open scopes and violations on this thread. Static TLS in the
// executable: reading it never allocates.
thread_local int scope_depth = 0;
thread_local size_t thread_violations = 0;
std::atomic<size_t> total_violations{0};
char last_violation[64] = "";

[[maybe_unused]] void Record(const char* what, size_t size) {
  if (scope_depth == 0) return;
  ++thread_violations;
  total_violations.fetch_add(1, std::memory_order_relaxed);
  // snprintf of %s/%zu does not allocate in glibc.
  std::snprintf(last_violation, sizeof(last_violation), "%s(%zu)", what, size);
}

}  // namespace

bool NoHeapCheckEnabled() { return EDGEADMM_NO_HEAP_INTERPOSE != 0; }

size_t TotalHeapViolations() {
  return total_violations.load(std::memory_order_relaxed);
}

const char* LastHeapViolation() { return last_violation; }

NoHeapScope::NoHeapScope() : start_(thread_violations) { ++scope_depth; }

NoHeapScope::~NoHeapScope() { End(); }

size_t NoHeapScope::violations() const {
  return (open_ ? thread_violations : end_) - start_;
}

size_t NoHeapScope::End() {
  if (open_) {
    end_ = thread_violations;
    open_ = false;
    --scope_depth;
  }
  return end_ - start_;
}

}  // namespace edgeadmm

#if EDGEADMM_NO_HEAP_INTERPOSE

extern "C" {
void* __libc_malloc(size_t size);
void* __libc_calloc(size_t count, size_t size);
void* __libc_realloc(void* ptr, size_t size);
void __libc_free(void* ptr);
void* __libc_memalign(size_t alignment, size_t size);

void* malloc(size_t size) {
  edgeadmm::Record("malloc", size);
  return __libc_malloc(size);
}

void* calloc(size_t count, size_t size) {
  edgeadmm::Record("calloc", count * size);
  return __libc_calloc(count, size);
}

void* realloc(void* ptr, size_t size) {
  edgeadmm::Record("realloc", size);
  return __libc_realloc(ptr, size);
}

void free(void* ptr) { __libc_free(ptr); }

void* memalign(size_t alignment, size_t size) {
  edgeadmm::Record("memalign", size);
  return __libc_memalign(alignment, size);
}

void* aligned_alloc(size_t alignment, size_t size) {
  edgeadmm::Record("aligned_alloc", size);
  return __libc_memalign(alignment, size);
}

int posix_memalign(void** out, size_t alignment, size_t size) {
  if (alignment % sizeof(void*) != 0 || (alignment & (alignment - 1)) != 0) {
    return EINVAL;
  }
  edgeadmm::Record("posix_memalign", size);
  void* p = __libc_memalign(alignment, size);
  if (p == nullptr) return ENOMEM;
  *out = p;
  return 0;
}
}  // extern "C"

namespace {

void* NewImpl(const char* what, size_t size, size_t alignment, bool nothrow) {
  edgeadmm::Record(what, size);
  if (size == 0) size = 1;
  void* p = alignment <= alignof(std::max_align_t)
                ? __libc_malloc(size)
                : __libc_memalign(alignment, size);
  if (p == nullptr && !nothrow) {
#if defined(__cpp_exceptions)
    throw std::bad_alloc();
#else
    std::abort();
#endif
  }
  return p;
}

constexpr size_t kDefault = alignof(std::max_align_t);

}  // namespace

void* operator new(size_t size) {
  return NewImpl("operator new", size, kDefault, false);
}
void* operator new[](size_t size) {
  return NewImpl("operator new[]", size, kDefault, false);
}
void* operator new(size_t size, const std::nothrow_t&) noexcept {
  return NewImpl("operator new", size, kDefault, true);
}
void* operator new[](size_t size, const std::nothrow_t&) noexcept {
  return NewImpl("operator new[]", size, kDefault, true);
}
void* operator new(size_t size, std::align_val_t al) {
  return NewImpl("operator new", size, static_cast<size_t>(al), false);
}
void* operator new[](size_t size, std::align_val_t al) {
  return NewImpl("operator new[]", size, static_cast<size_t>(al), false);
}
void* operator new(size_t size, std::align_val_t al,
                   const std::nothrow_t&) noexcept {
  return NewImpl("operator new", size, static_cast<size_t>(al), true);
}
void* operator new[](size_t size, std::align_val_t al,
                     const std::nothrow_t&) noexcept {
  return NewImpl("operator new[]", size, static_cast<size_t>(al), true);
}

void operator delete(void* p) noexcept { __libc_free(p); }
void operator delete[](void* p) noexcept { __libc_free(p); }
void operator delete(void* p, size_t) noexcept { __libc_free(p); }
void operator delete[](void* p, size_t) noexcept { __libc_free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept {
  __libc_free(p);
}
void operator delete[](void* p, const std::nothrow_t&) noexcept {
  __libc_free(p);
}
void operator delete(void* p, std::align_val_t) noexcept { __libc_free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { __libc_free(p); }
void operator delete(void* p, size_t, std::align_val_t) noexcept {
  __libc_free(p);
}
void operator delete[](void* p, size_t, std::align_val_t) noexcept {
  __libc_free(p);
}
void operator delete(void* p, std::align_val_t,
                     const std::nothrow_t&) noexcept {
  __libc_free(p);
}
void operator delete[](void* p, std::align_val_t,
                       const std::nothrow_t&) noexcept {
  __libc_free(p);
}

#endif  // EDGEADMM_NO_HEAP_INTERPOSE
