// Self-test of the no-heap harness: allocations inside a NoHeapScope are
// caught (whatever the allocation function), none outside is flagged.
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>

#include "gtest/gtest.h"
#include "no_heap_check.h"

namespace edgeadmm {
namespace {

// Called through volatile pointers so the compiler cannot elide the pairs.
void* (*volatile malloc_fn)(size_t) = &std::malloc;
void* (*volatile calloc_fn)(size_t, size_t) = &std::calloc;
void* (*volatile realloc_fn)(void*, size_t) = &std::realloc;
void (*volatile free_fn)(void*) = &std::free;
void* (*volatile new_fn)(size_t) = &::operator new;
void (*volatile delete_fn)(void*) = &::operator delete;

class NoHeapCheckTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!NoHeapCheckEnabled()) GTEST_SKIP() << "interposer off (sanitizers)";
  }
};

TEST_F(NoHeapCheckTest, MallocInsideScopeIsAViolation) {
  const size_t total_before = TotalHeapViolations();
  size_t violations;
  {
    NoHeapScope scope;
    void* p = malloc_fn(32);
    violations = scope.End();
    free_fn(p);
  }
  EXPECT_EQ(violations, 1u);
  EXPECT_STREQ(LastHeapViolation(), "malloc(32)");
  EXPECT_EQ(TotalHeapViolations(), total_before + 1);
}

TEST_F(NoHeapCheckTest, EveryAllocationFunctionIsCaught) {
  size_t violations;
  {
    NoHeapScope scope;
    void* a = calloc_fn(4, 8);
    void* b = realloc_fn(nullptr, 16);
    void* c = new_fn(24);
    void* d = nullptr;
    EXPECT_EQ(posix_memalign(&d, 64, 40), 0);
    void* e = aligned_alloc(64, 128);
    std::unique_ptr<int[]> f(new int[10]);
    violations = scope.End();
    free_fn(a);
    free_fn(b);
    delete_fn(c);
    free_fn(d);
    free_fn(e);
  }
  EXPECT_EQ(violations, 6u);
  EXPECT_STREQ(LastHeapViolation(), "operator new[](40)");
}

TEST_F(NoHeapCheckTest, LibraryAllocationsAreCaught) {
  size_t violations;
  {
    NoHeapScope scope;
    std::string s(1000, 'x');  // beyond the small-string buffer
    violations = scope.End();
    EXPECT_EQ(s.size(), 1000u);
  }
  EXPECT_GE(violations, 1u);
}

TEST_F(NoHeapCheckTest, NothingOutsideAScopeIsFlagged) {
  const size_t total_before = TotalHeapViolations();
  void* p = malloc_fn(64);
  void* q = new_fn(64);
  std::string s(1000, 'y');
  free_fn(p);
  delete_fn(q);
  EXPECT_EQ(TotalHeapViolations(), total_before);
}

TEST_F(NoHeapCheckTest, FreeAndStackWorkAreNotViolations) {
  void* p = malloc_fn(64);
  size_t violations;
  {
    NoHeapScope scope;
    char buffer[256];
    std::memset(buffer, 1, sizeof(buffer));
    free_fn(p);
    violations = scope.End();
    EXPECT_EQ(buffer[255], 1);
  }
  EXPECT_EQ(violations, 0u);
}

TEST_F(NoHeapCheckTest, EndStopsCountingAndScopesNest) {
  NoHeapScope outer;
  size_t inner_violations;
  {
    NoHeapScope inner;
    free_fn(malloc_fn(8));
    inner_violations = inner.End();
    free_fn(malloc_fn(8));  // still inside `outer`
    EXPECT_EQ(inner.violations(), 1u);
  }
  free_fn(malloc_fn(8));
  const size_t outer_violations = outer.End();
  free_fn(malloc_fn(8));  // after End: not counted
  EXPECT_EQ(inner_violations, 1u);
  EXPECT_EQ(outer_violations, 3u);
  EXPECT_EQ(outer.violations(), 3u);
}

TEST_F(NoHeapCheckTest, OtherThreadsAreNotCounted) {
  std::atomic<bool> go{false};
  size_t violations;
  {
    NoHeapScope scope;
    // Starting the thread allocates on this thread; the other thread's
    // allocation happens only after `before` is read.
    std::thread t([&] {
      while (!go) {
      }
      free_fn(malloc_fn(100));
    });
    const size_t before = scope.violations();
    go = true;
    t.join();
    violations = scope.violations() - before;
    scope.End();
  }
  EXPECT_EQ(violations, 0u);
}

}  // namespace
}  // namespace edgeadmm
