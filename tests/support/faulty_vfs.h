// FaultyVfs: an SQLite VFS that wraps the default one and fails writes or
// syncs on demand, the way SQLite tests itself (its test_vfs.c and the
// "ioerr" tests: fail the k-th I/O for k = 0, 1, 2, ... until an operation
// completes without reaching it). Test-only: the production code opens the
// default VFS and has no hook; Install() makes this shim the default.
// Another thread than SQLite's may arm and heal it (a test's device thread).
#pragma once

#include <atomic>
#include <cstdint>

namespace edgeadmm::testing {

class FaultyVfs {
 public:
  enum class Fault {
    kFull,      // xWrite -> SQLITE_FULL (ENOSPC)
    kReadOnly,  // xWrite and xTruncate -> SQLITE_IOERR_WRITE (EROFS)
    kSync,      // xSync -> SQLITE_IOERR_FSYNC (the writes themselves land)
  };

  // Registers the shim once per process as SQLite's default VFS:
  // connections opened from then on go through it. Starts healthy.
  static FaultyVfs& Install();

  // Restarts the count of the I/O calls `fault` hits (xWrite for kFull and
  // kReadOnly, xSync for kSync) at 0; the `k`-th such call from now (0:
  // the next) and every later one fail until Heal(), as on a disk that
  // stays full.
  void FailFrom(int64_t k, Fault fault);
  // No more failures.
  void Heal();
  // Calls of the armed kind since FailFrom, failed ones included.
  int64_t calls() const { return calls_; }
  // Calls that failed since FailFrom.
  int64_t failures() const { return failures_; }

  // Used by the shim's file methods: the SQLite code to return for one
  // write / truncate / sync call (SQLITE_OK: pass it through).
  int OnWrite();
  int OnTruncate();
  int OnSync();

 private:
  FaultyVfs() = default;
  int Count(bool hit, int code);

  std::atomic<bool> armed_{false};
  std::atomic<Fault> fault_{Fault::kFull};
  std::atomic<int64_t> fail_from_{0};
  std::atomic<int64_t> calls_{0};
  std::atomic<int64_t> failures_{0};
};

}  // namespace edgeadmm::testing
