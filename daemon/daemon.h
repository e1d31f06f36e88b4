// perfsaged's main loop. One thread owns the job queue's writes, the watchers, the run tracker
// and the forkserver; it waits in poll() on a signalfd (SIGTERM, SIGINT, SIGHUP), the inotify
// descriptors, the forkserver's socket and an eventfd the HTTP threads use to wake it.
//
//   start: store + queue recovery → forkserver + knowledge (must load) → watches + scan →
//          HTTP bound → READY
//   loop:  file events → run tracker → complete runs queued; free workers claim jobs;
//          SIGHUP / pack folder change → knowledge reload (the old keeps serving on failure)
//   stop:  SIGTERM/SIGINT → no new jobs; running ones get the grace period, then go back to
//          the queue; exit 0
#pragma once

#include <atomic>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "app/job_queue.h"
#include "app/fleet_catalog.h"
#include "app/shared_queue.h"
#include "app/store_types.h"
#include "app/stored_run.h"
#include "daemon/config.h"
#include "daemon/http_server.h"
#include "daemon/inotify_watcher.h"
#include "daemon/job_runner.h"
#include "daemon/metrics.h"
#include "daemon/reader_pool.h"
#include "daemon/run_layout.h"
#include "daemon/run_tracker.h"
#include "daemon/shared_state.h"
#include "daemon/worker_pool.h"

namespace perfsage::daemon {

class Daemon {
 public:
  // `executable` is perfsaged itself (started again as the forkserver).
  Daemon(DaemonConfig config, std::string token, std::filesystem::path executable,
         std::string version);
  ~Daemon();
  // Runs until SIGTERM or SIGINT; returns the exit code. Signals must already be blocked in
  // every thread (block_daemon_signals() before any thread starts).
  int run();

 private:
  bool start_up();
  void scan_roots(SteadyTime now);
  void on_run_events(SteadyTime now);
  void queue_ready_runs(SteadyTime now);
  void on_forkserver(SteadyTime now);
  void restart_forkserver(SteadyTime now);
  bool reload(const std::string& trigger);
  void watch_pack_folders(const std::vector<std::string>& paths);
  void publish(SteadyTime now);
  int wait_ms(SteadyTime now) const;
  SubmitOutcome submit(const std::string& path, const std::string& job, bool lenient);
  void wake();
  // At the end: every connection closed, the logs of the store and the queue copied and cut.
  void close_stores();
  std::string job_for(const std::filesystem::path& path) const;
  std::string iso_now() const;

  DaemonConfig config_;
  std::string token_, version_, owner_;
  std::filesystem::path executable_;
  std::unique_ptr<app::Database> db_;  // the queue's file
  // The SQLite queue file's, or in shared mode the PostgreSQL queue (thread-safe: the HTTP
  // threads' submissions and reads use it too).
  std::unique_ptr<app::JobQueue> queue_;
  std::unique_ptr<app::SharedQueueNotifications> notifications_;
  // Shared mode: the runs of the whole fleet (published here when a job ends, imported into a
  // local replica that the API reads) and the packs of every daemon.
  std::unique_ptr<app::FleetCatalog> catalog_;
  // Imports what other daemons published; notes whether the database answered.
  void sync_catalog();
  void publish_packs();
  std::thread notification_waiter_;
  std::atomic<bool> stop_waiting_{false};
  std::mutex submit_mu_;  // the HTTP threads' own writer connection
  std::unique_ptr<app::Database> submit_db_;
  Metrics metrics_;
  SharedState state_;
  std::unique_ptr<ReaderPool> readers_, queue_readers_;
  WorkerPool pool_;
  std::unique_ptr<JobRunner> runner_;
  RunLayout layout_;
  RunTracker tracker_;
  std::unique_ptr<InotifyWatcher> runs_watch_, packs_watch_;
  std::vector<std::string> pack_paths_;
  std::unique_ptr<HttpServer> http_;
  int sigfd_ = -1, wakefd_ = -1;
  std::atomic<bool> reload_requested_{false}, store_ok_{true}, stopping_{false};
  bool store_damaged_ = false;  // quick_check failed at start: no new run goes into it
  bool knowledge_loaded_ = false;
  int failures_ = 0;  // main-loop iterations in a row that the store (or database) failed
  uint64_t generation_ = 0;
  size_t watch_roots_ = 0;  // configured watch folders that could be watched (scan_roots)
  std::optional<SteadyTime> pack_reload_at_, forkserver_restart_at_, grace_end_;
  SteadyTime started_, next_reclaim_{};
  bool shared_ = false;  // the queue is shared in PostgreSQL (config_.postgres)
};

// Blocks SIGTERM, SIGINT and SIGHUP in the calling thread (and the threads it starts later), so
// that only the main loop's signalfd sees them; SIGPIPE is ignored.
void block_daemon_signals();

}  // namespace perfsage::daemon
