// Copies a store's write-ahead log into the database file on a thread of its own. RunWriter
// turns SQLite's automatic checkpoint off while a run is written, so that the commit does not
// stop to copy the whole run (150 ms for a 1 M-row op table) before analysis can start; the
// caller starts this right after the commit and analysis runs meanwhile (a passive checkpoint
// waits for no reader or writer).
#pragma once

#include <string>
#include <thread>

namespace perfsage::store {

class BackgroundCheckpoint {
 public:
  // Does nothing for an in-memory store.
  explicit BackgroundCheckpoint(const std::string& path);
  ~BackgroundCheckpoint();  // waits for the checkpoint
  BackgroundCheckpoint(const BackgroundCheckpoint&) = delete;
  BackgroundCheckpoint& operator=(const BackgroundCheckpoint&) = delete;

 private:
  std::thread thread_;
};

}  // namespace perfsage::store
