// Serialises the processes (and threads) that ingest and analyse the same inputs into one
// store. SQLite serialises single transactions, but a run is written by one (the ingest) and
// completed by several more (the analyzers): without this, two `perfsage ingest` of the same
// inputs both found no run and stored it twice, or one reused a run the other was still
// analysing. Held from the fingerprint look-up until the run is complete.
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace perfsage::store {

class RunLock {
 public:
  // Locks `fingerprint` on the store at `store_path`, waiting while another holder has it;
  // `on_wait` is called once before waiting. The lock is an open-file-description lock on one
  // byte (chosen by the fingerprint) of `<store>-lock`: the kernel drops it when its holder
  // exits, kill -9 included. Nothing is locked for ":memory:" or when the lock file cannot be
  // opened for writing (a read-only folder: nothing can be ingested there anyway).
  RunLock(const std::string& store_path, std::string_view fingerprint,
          const std::function<void()>& on_wait = {});
  ~RunLock();
  RunLock(const RunLock&) = delete;
  RunLock& operator=(const RunLock&) = delete;

  bool held() const { return fd_ >= 0; }
  // `<store>-lock`, beside SQLite's own `-wal` and `-shm` files.
  static std::string lock_file(const std::string& store_path);

 private:
  int fd_ = -1;
};

}  // namespace perfsage::store
