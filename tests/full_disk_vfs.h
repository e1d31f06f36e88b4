// A full disk on demand, for tests: an SQLite VFS over the default one whose writes to database
// files (not to their write-ahead logs) fail with SQLITE_FULL while it is set to full, as on a
// disk with room left for the log but not for the checkpoint that copies it into the file; with
// `logs_too`, writes to the logs fail as well (a disk with no room at all). It also measures the
// largest size a write-ahead log reached. Registered as the default VFS of the test process;
// writes pass through unchanged otherwise.
#pragma once

#include <sqlite3.h>

#include <atomic>
#include <cstdint>
#include <cstring>

namespace perfsage::test {

class FullDiskVfs {
 public:
  // Installs the VFS (once per process) and returns it.
  static FullDiskVfs& install() {
    static FullDiskVfs vfs;
    return vfs;
  }
  void set_full(bool full, bool logs_too = false) {
    full_ = full;
    logs_full_ = full && logs_too;
  }
  int failed_writes() const { return failed_; }
  // The furthest byte written into any write-ahead log since the last reset.
  int64_t largest_log() const { return largest_log_; }
  void reset_largest_log() { largest_log_ = 0; }

 private:
  struct File {
    sqlite3_file base;
    sqlite3_file* real;  // follows this struct in the same allocation
    bool database;       // the main database file, not a log or journal
    bool log;            // a write-ahead log
  };

  FullDiskVfs() {
    real_ = sqlite3_vfs_find(nullptr);
    vfs_ = *real_;
    vfs_.zName = "perfsage-full-disk";
    vfs_.szOsFile = static_cast<int>(sizeof(File)) + real_->szOsFile;
    vfs_.pAppData = this;
    vfs_.xOpen = open;
    methods_ = {};
    sqlite3_vfs_register(&vfs_, 1);
  }

  static FullDiskVfs& self(sqlite3_vfs* vfs) { return *static_cast<FullDiskVfs*>(vfs->pAppData); }
  static sqlite3_file* real(sqlite3_file* f) { return reinterpret_cast<File*>(f)->real; }

  static int open(sqlite3_vfs* vfs, const char* name, sqlite3_file* file, int flags, int* out) {
    FullDiskVfs& me = self(vfs);
    auto* f = reinterpret_cast<File*>(file);
    f->real = reinterpret_cast<sqlite3_file*>(f + 1);
    f->database = (flags & SQLITE_OPEN_MAIN_DB) != 0;
    f->log = (flags & SQLITE_OPEN_WAL) != 0;
    int rc = me.real_->xOpen(me.real_, name, f->real, flags, out);
    if (f->real->pMethods == nullptr) {
      f->base.pMethods = nullptr;
      return rc;
    }
    me.wrap(f->real->pMethods);
    f->base.pMethods = &me.methods_;
    return rc;
  }

  // The real file's methods, with xWrite checked; the same for every file of the default VFS.
  void wrap(const sqlite3_io_methods* m) {
    if (methods_.iVersion != 0) return;
    real_methods_ = m;
    methods_ = *m;
    methods_.xClose = [](sqlite3_file* f) {
      int rc = real(f)->pMethods->xClose(real(f));
      f->pMethods = nullptr;
      return rc;
    };
    methods_.xRead = [](sqlite3_file* f, void* p, int n, sqlite3_int64 o) {
      return real(f)->pMethods->xRead(real(f), p, n, o);
    };
    methods_.xWrite = [](sqlite3_file* f, const void* p, int n, sqlite3_int64 o) {
      FullDiskVfs& me = install();
      const File* file = reinterpret_cast<File*>(f);
      if ((me.full_ && file->database) || (me.logs_full_ && file->log)) {
        ++me.failed_;
        return SQLITE_FULL;
      }
      if (file->log) {
        int64_t end = o + n, seen = me.largest_log_;
        while (end > seen && !me.largest_log_.compare_exchange_weak(seen, end)) {
        }
      }
      return real(f)->pMethods->xWrite(real(f), p, n, o);
    };
    methods_.xTruncate = [](sqlite3_file* f, sqlite3_int64 n) {
      return real(f)->pMethods->xTruncate(real(f), n);
    };
    methods_.xSync = [](sqlite3_file* f, int flags) {
      return real(f)->pMethods->xSync(real(f), flags);
    };
    methods_.xFileSize = [](sqlite3_file* f, sqlite3_int64* n) {
      return real(f)->pMethods->xFileSize(real(f), n);
    };
    methods_.xLock = [](sqlite3_file* f, int l) { return real(f)->pMethods->xLock(real(f), l); };
    methods_.xUnlock = [](sqlite3_file* f, int l) {
      return real(f)->pMethods->xUnlock(real(f), l);
    };
    methods_.xCheckReservedLock = [](sqlite3_file* f, int* r) {
      return real(f)->pMethods->xCheckReservedLock(real(f), r);
    };
    methods_.xFileControl = [](sqlite3_file* f, int op, void* arg) {
      return real(f)->pMethods->xFileControl(real(f), op, arg);
    };
    methods_.xSectorSize = [](sqlite3_file* f) { return real(f)->pMethods->xSectorSize(real(f)); };
    methods_.xDeviceCharacteristics = [](sqlite3_file* f) {
      return real(f)->pMethods->xDeviceCharacteristics(real(f));
    };
    methods_.xShmMap = [](sqlite3_file* f, int pg, int sz, int ext, void volatile** p) {
      // No room at all: the log's index (the -shm file) cannot be made or grown either.
      FullDiskVfs& me = install();
      if (me.logs_full_ && ext) {
        ++me.failed_;
        return SQLITE_IOERR_SHMSIZE;
      }
      return real(f)->pMethods->xShmMap(real(f), pg, sz, ext, p);
    };
    methods_.xShmLock = [](sqlite3_file* f, int off, int n, int flags) {
      return real(f)->pMethods->xShmLock(real(f), off, n, flags);
    };
    methods_.xShmBarrier = [](sqlite3_file* f) { real(f)->pMethods->xShmBarrier(real(f)); };
    methods_.xShmUnmap = [](sqlite3_file* f, int del) {
      return real(f)->pMethods->xShmUnmap(real(f), del);
    };
    // No memory map: SQLite would read pages through it, which is fine, but keep one path.
    methods_.xFetch = [](sqlite3_file*, sqlite3_int64, int, void** p) {
      *p = nullptr;
      return SQLITE_OK;
    };
    methods_.xUnfetch = [](sqlite3_file*, sqlite3_int64, void*) { return SQLITE_OK; };
  }

  sqlite3_vfs* real_ = nullptr;
  sqlite3_vfs vfs_{};
  const sqlite3_io_methods* real_methods_ = nullptr;
  sqlite3_io_methods methods_{};
  std::atomic<bool> full_{false}, logs_full_{false};
  std::atomic<int64_t> largest_log_{0};
  std::atomic<int> failed_{0};
};

}  // namespace perfsage::test
