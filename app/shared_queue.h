// Shared mode (docs/scale-out.md): the job queue several perfsaged share in PostgreSQL, and the
// notifications that wake an idle daemon when a job arrives. The daemon names them through app/
// like every type below it.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "app/job_queue.h"

namespace perfsage::app {

// Connects to the database at `uri` (a libpq URI) and brings its schema up to date. A job's
// run id is the catalog's (app/fleet_catalog.h) when `instance` is empty; else that of
// `instance`'s own store, and job_of_run answers for its runs only. Throws app::StoreError
// naming the server (never the password) when it cannot.
std::unique_ptr<JobQueue> open_shared_queue(const std::string& uri, QueuePolicy policy,
                                            const std::string& instance);

// Brings the shared database's perfsage schema up to date (`perfsaged --migrate`); returns its
// version. Throws app::StoreError naming the server and the step that failed.
int migrate_shared_database(const std::string& uri);

// Waits for jobs enqueued by any daemon (LISTEN on the queue's channel).
class SharedQueueNotifications {
 public:
  explicit SharedQueueNotifications(const std::string& uri);
  ~SharedQueueNotifications();
  // True when a job arrived within the timeout; false on timeout or a lost connection (the
  // next call connects again).
  bool wait(std::chrono::milliseconds timeout);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace perfsage::app
