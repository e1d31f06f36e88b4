// Runs queued jobs in workers: claims a job while a worker slot is free, hands it to the
// forkserver, follows its progress, kills it at its time limit, and records how it ended —
// done with its run, failed with the analysis' error (final), or crashed (a signal, a time or
// memory limit, no result; retried, then quarantined by the queue's policy).
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "app/job_queue.h"
#include "app/store_types.h"
#include "daemon/config.h"
#include "daemon/ipc.pb.h"
#include "daemon/metrics.h"
#include "daemon/worker_pool.h"

namespace perfsage::daemon {

using SteadyTime = std::chrono::steady_clock::time_point;

struct Clocks {
  std::function<std::string()> iso_now;  // ISO-8601 UTC for the queue's records
  std::function<int64_t()> wall_ms;      // ms since the epoch, for leases
};

struct RunningJobView {
  int64_t job_id = 0;
  std::string job;
  int pid = 0;
  std::string stage;
  double fraction = -1;
  double seconds = 0;
  int64_t run_id = 0;  // the store's run it analyses, once known
};

class JobRunner {
 public:
  JobRunner(app::JobQueue& queue, WorkerPool& pool, Metrics& metrics, const DaemonConfig& config,
            Clocks clocks, std::string owner)
      : queue_(queue),
        pool_(pool),
        metrics_(metrics),
        config_(config),
        clocks_(std::move(clocks)),
        owner_(std::move(owner)) {}

  // How a job's end with a run is written: true when written, false when this daemon no longer
  // holds the job (its result is dropped); throws app::StoreError when the queue's database is
  // away (retried). Default: the queue's complete(); shared mode publishes the run with it.
  using Completion = std::function<bool(const app::QueuedJob& job, const ipc::JobResult& result)>;
  void set_completion(Completion c) { completion_ = std::move(c); }

  // Claims and starts jobs while slots are free (and jobs are accepted).
  void fill(SteadyTime now);
  void on_message(const ipc::FromForkserver& msg, SteadyTime now);
  // The forkserver died: its workers died with it.
  void on_forkserver_lost(const std::string& status);
  // Kills workers past their time limit; renews leases.
  void tick(SteadyTime now);
  std::optional<SteadyTime> next_deadline() const;
  // Shutdown: no new jobs; `interrupt_all` kills the running ones, which go back to the queue.
  void stop_accepting() { accepting_ = false; }
  void interrupt_all();
  size_t running() const { return running_.size(); }
  // Ends of jobs the queue could not record yet (its database was away).
  size_t unrecorded() const { return unrecorded_.size(); }
  std::vector<RunningJobView> snapshot(SteadyTime now) const;

 private:
  struct Running {
    app::QueuedJob job;
    int pid = 0;
    SteadyTime started, deadline, renew_at;
    std::string stage = "starting";
    double fraction = -1;
    int64_t run_id = 0;
    std::optional<ipc::JobResult> result;
    bool timed_out = false, interrupted = false;
    bool lost = false;  // the lease ran out (this daemon was paused or cut off): not ours now
  };
  void end(std::map<int64_t, Running>::iterator it, const ipc::WorkerExited& exited,
           SteadyTime now);
  void finish(Running& r, const ipc::WorkerExited& exited, SteadyTime now);
  void fail(Running& r, app::FailureKind kind, const std::string& reason);
  // A cluster's ranks came back instead of a run: the job becomes their reduce.
  void fan_out(Running& r);
  // Writes a job's end to the queue; when the queue's database is away (a shared PostgreSQL
  // restarting), keeps it and tries again on every tick, renewing the job's lease meanwhile, so
  // the result is written on reconnect instead of the job being analysed a second time.
  void record(int64_t id, std::function<void()> write);
  struct Unrecorded {
    int64_t id = 0;
    std::function<void()> write;
  };
  std::vector<Unrecorded> unrecorded_;

  app::JobQueue& queue_;
  WorkerPool& pool_;
  Metrics& metrics_;
  const DaemonConfig& config_;
  Clocks clocks_;
  std::string owner_;
  Completion completion_;
  bool accepting_ = true;
  std::map<int64_t, Running> running_;
};

}  // namespace perfsage::daemon
