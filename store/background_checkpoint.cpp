#include "store/background_checkpoint.h"

#include <sqlite3.h>

namespace perfsage::store {

BackgroundCheckpoint::BackgroundCheckpoint(const std::string& path) {
  if (path.empty() || path == ":memory:") return;
  thread_ = std::thread([path] {
    // A plain connection of its own: the caller's stays on the caller's thread. A failure
    // (busy, I/O) leaves the log for SQLite's automatic checkpoint to copy later.
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr) ==
        SQLITE_OK) {
      sqlite3_busy_timeout(db, 1000);
      sqlite3_wal_checkpoint_v2(db, nullptr, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
    }
    sqlite3_close(db);
  });
}

BackgroundCheckpoint::~BackgroundCheckpoint() {
  if (thread_.joinable()) thread_.join();
}

}  // namespace perfsage::store
