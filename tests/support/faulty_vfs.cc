#include "faulty_vfs.h"

#include <sqlite3.h>

#include <cstdlib>

namespace edgeadmm::testing {
namespace {

// A file of the shim: our header, then the wrapped VFS's file (szOsFile).
struct FaultyFile {
  sqlite3_file base;
  sqlite3_file* real;
};

FaultyVfs* g_faults = nullptr;
sqlite3_vfs* g_real = nullptr;

sqlite3_file* Real(sqlite3_file* file) {
  return reinterpret_cast<FaultyFile*>(file)->real;
}

int Close(sqlite3_file* f) { return Real(f)->pMethods->xClose(Real(f)); }
int Read(sqlite3_file* f, void* out, int amount, sqlite3_int64 offset) {
  return Real(f)->pMethods->xRead(Real(f), out, amount, offset);
}
int Write(sqlite3_file* f, const void* data, int amount, sqlite3_int64 offset) {
  const int injected = g_faults->OnWrite();
  if (injected != SQLITE_OK) return injected;
  return Real(f)->pMethods->xWrite(Real(f), data, amount, offset);
}
int Truncate(sqlite3_file* f, sqlite3_int64 size) {
  const int injected = g_faults->OnTruncate();
  if (injected != SQLITE_OK) return injected;
  return Real(f)->pMethods->xTruncate(Real(f), size);
}
int Sync(sqlite3_file* f, int flags) {
  const int injected = g_faults->OnSync();
  if (injected != SQLITE_OK) return injected;
  return Real(f)->pMethods->xSync(Real(f), flags);
}
int FileSize(sqlite3_file* f, sqlite3_int64* size) {
  return Real(f)->pMethods->xFileSize(Real(f), size);
}
int Lock(sqlite3_file* f, int level) {
  return Real(f)->pMethods->xLock(Real(f), level);
}
int Unlock(sqlite3_file* f, int level) {
  return Real(f)->pMethods->xUnlock(Real(f), level);
}
int CheckReservedLock(sqlite3_file* f, int* out) {
  return Real(f)->pMethods->xCheckReservedLock(Real(f), out);
}
int FileControl(sqlite3_file* f, int op, void* arg) {
  return Real(f)->pMethods->xFileControl(Real(f), op, arg);
}
int SectorSize(sqlite3_file* f) {
  return Real(f)->pMethods->xSectorSize(Real(f));
}
int DeviceCharacteristics(sqlite3_file* f) {
  return Real(f)->pMethods->xDeviceCharacteristics(Real(f));
}
int ShmMap(sqlite3_file* f, int region, int size, int extend,
           void volatile** out) {
  return Real(f)->pMethods->xShmMap(Real(f), region, size, extend, out);
}
int ShmLock(sqlite3_file* f, int offset, int n, int flags) {
  return Real(f)->pMethods->xShmLock(Real(f), offset, n, flags);
}
void ShmBarrier(sqlite3_file* f) { Real(f)->pMethods->xShmBarrier(Real(f)); }
int ShmUnmap(sqlite3_file* f, int delete_flag) {
  return Real(f)->pMethods->xShmUnmap(Real(f), delete_flag);
}
int Fetch(sqlite3_file* f, sqlite3_int64 offset, int amount, void** out) {
  return Real(f)->pMethods->xFetch(Real(f), offset, amount, out);
}
int Unfetch(sqlite3_file* f, sqlite3_int64 offset, void* page) {
  return Real(f)->pMethods->xUnfetch(Real(f), offset, page);
}

// Version 3 (shared memory and mmap): what the unix VFS offers for WAL.
const sqlite3_io_methods kMethods = {
    3,        &Close,     &Read,        &Write,         &Truncate,
    &Sync,    &FileSize,  &Lock,        &Unlock,        &CheckReservedLock,
    &FileControl,         &SectorSize,  &DeviceCharacteristics,
    &ShmMap,  &ShmLock,   &ShmBarrier,  &ShmUnmap,      &Fetch,
    &Unfetch};

int Open(sqlite3_vfs*, sqlite3_filename name, sqlite3_file* file, int flags,
         int* out_flags) {
  auto* faulty = reinterpret_cast<FaultyFile*>(file);
  faulty->real = reinterpret_cast<sqlite3_file*>(faulty + 1);
  faulty->base.pMethods = nullptr;
  const int rc = g_real->xOpen(g_real, name, faulty->real, flags, out_flags);
  // SQLite calls xClose only when pMethods is set.
  if (faulty->real->pMethods != nullptr) faulty->base.pMethods = &kMethods;
  return rc;
}

int Delete(sqlite3_vfs*, const char* name, int sync_dir) {
  return g_real->xDelete(g_real, name, sync_dir);
}
int Access(sqlite3_vfs*, const char* name, int flags, int* out) {
  return g_real->xAccess(g_real, name, flags, out);
}
int FullPathname(sqlite3_vfs*, const char* name, int size, char* out) {
  return g_real->xFullPathname(g_real, name, size, out);
}
void* DlOpen(sqlite3_vfs*, const char* name) {
  return g_real->xDlOpen(g_real, name);
}
void DlError(sqlite3_vfs*, int size, char* out) {
  g_real->xDlError(g_real, size, out);
}
void (*DlSym(sqlite3_vfs*, void* handle, const char* symbol))(void) {
  return g_real->xDlSym(g_real, handle, symbol);
}
void DlClose(sqlite3_vfs*, void* handle) { g_real->xDlClose(g_real, handle); }
int Randomness(sqlite3_vfs*, int size, char* out) {
  return g_real->xRandomness(g_real, size, out);
}
int Sleep(sqlite3_vfs*, int us) { return g_real->xSleep(g_real, us); }
int CurrentTime(sqlite3_vfs*, double* out) {
  return g_real->xCurrentTime(g_real, out);
}
int GetLastError(sqlite3_vfs*, int size, char* out) {
  return g_real->xGetLastError(g_real, size, out);
}
int CurrentTimeInt64(sqlite3_vfs*, sqlite3_int64* out) {
  return g_real->xCurrentTimeInt64(g_real, out);
}

}  // namespace

FaultyVfs& FaultyVfs::Install() {
  static FaultyVfs* installed = [] {
    g_real = sqlite3_vfs_find(nullptr);
    if (g_real == nullptr) std::abort();
    g_faults = new FaultyVfs();
    // Version 2 (xCurrentTimeInt64); no syscall overrides.
    static sqlite3_vfs vfs = {
        2,        static_cast<int>(sizeof(FaultyFile)) + g_real->szOsFile,
        g_real->mxPathname, nullptr, "edgeadmm-faulty", nullptr, &Open,
        &Delete,  &Access,  &FullPathname, &DlOpen, &DlError, &DlSym,
        &DlClose, &Randomness, &Sleep, &CurrentTime, &GetLastError,
        &CurrentTimeInt64, nullptr, nullptr, nullptr};
    if (sqlite3_vfs_register(&vfs, /*makeDflt=*/1) != SQLITE_OK) std::abort();
    return g_faults;
  }();
  return *installed;
}

void FaultyVfs::FailFrom(int64_t k, Fault fault) {
  armed_ = false;  // the fields below are set before a caller sees it armed
  fault_ = fault;
  fail_from_ = k;
  calls_ = 0;
  failures_ = 0;
  armed_ = true;
}

void FaultyVfs::Heal() { armed_ = false; }

int FaultyVfs::Count(bool hit, int code) {
  if (!armed_ || !hit) return SQLITE_OK;
  if (calls_++ < fail_from_) return SQLITE_OK;
  ++failures_;
  return code;
}

int FaultyVfs::OnWrite() {
  return Count(fault_ != Fault::kSync,
               fault_ == Fault::kFull ? SQLITE_FULL : SQLITE_IOERR_WRITE);
}

int FaultyVfs::OnTruncate() {
  // A read-only file system refuses a truncate too; a full disk does not.
  return fault_ == Fault::kReadOnly && armed_ && calls_ >= fail_from_
             ? SQLITE_IOERR_TRUNCATE
             : SQLITE_OK;
}

int FaultyVfs::OnSync() {
  return Count(fault_ == Fault::kSync, SQLITE_IOERR_FSYNC);
}

}  // namespace edgeadmm::testing
