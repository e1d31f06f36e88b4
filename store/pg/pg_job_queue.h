// The JobQueue contract (store/job_queue.h) on PostgreSQL, shared by several perfsaged:
// claims take the oldest queued job with FOR UPDATE SKIP LOCKED (no two daemons take one job,
// none waits on another's row lock), every change names the owner holding the lease (a daemon
// that lost its lease changes nothing), pending duplicates meet a unique index, and an enqueue
// notifies the channel idle daemons LISTEN on.
//
// Leases run on the database's clock: the caller's lease_until_ms and now_ms are read as
// offsets from its own clock (`local_ms`, injectable for tests), applied to the server's
// now(), so clock skew between hosts never expires a lease early.
#pragma once

#include <chrono>
#include <functional>
#include <mutex>

#include "store/job_queue.h"
#include "store/pg/pg_connection.h"

namespace perfsage::store::pg {

// The channel an enqueue notifies.
inline constexpr const char* kJobsChannel = "perfsage_jobs";

int64_t system_clock_ms();

class PgJobQueue final : public JobQueue {
 public:
  // Connects to `uri` and applies the schema migrations. Thread-safe: calls are serialised on
  // the one connection. A job's run id is that of the store of the daemon that completed it:
  // job_of_run answers for `instance`'s runs (empty: any daemon's).
  explicit PgJobQueue(const std::string& uri, QueuePolicy policy = {},
                      std::function<int64_t()> local_ms = system_clock_ms,
                      std::string instance = "");
  EnqueueResult enqueue(const JobSpec& spec, Dedup dedup, const std::string& now) override;
  std::optional<int64_t> find(const std::vector<std::string>& inputs,
                              const std::string& signature) override;
  std::optional<QueuedJob> claim(const std::string& owner, const std::string& now,
                                 int64_t lease_until_ms) override;
  bool renew(int64_t id, const std::string& owner, int64_t lease_until_ms) override;
  bool complete(int64_t id, const std::string& owner, int64_t run_id,
                const std::string& now) override;
  JobState fail(int64_t id, const std::string& owner, FailureKind kind, const std::string& reason,
                const std::string& now) override;
  int recover(const std::string& owner, const std::string& now) override;
  int reclaim_expired(int64_t now_ms, const std::string& now) override;
  std::optional<QueuedJob> get(int64_t id) override;
  std::optional<int64_t> job_of_run(int64_t run_id) override;
  std::vector<QueuedJob> list(const JobFilter& filter) override;
  std::map<JobState, int64_t> counts() override;
  bool fans_out() const override { return true; }
  bool fan_out(int64_t id, const std::string& owner, const std::vector<RankInputs>& ranks,
               const std::string& now) override;
  std::vector<QueuedJob> rank_jobs(int64_t reduce_id) override;

  const std::string& where() const { return c_.where(); }

 private:
  std::optional<QueuedJob> get_locked(int64_t id);
  int requeue_running(const std::string& owner, std::optional<int64_t> now_ms,
                      const std::string& now);
  // `at_ms` of the caller's clock on the database's clock, as SQL over parameter $n.
  std::string db_time(int n) const;
  std::mutex mutex_;
  Connection c_;
  QueuePolicy policy_;
  std::function<int64_t()> local_ms_;
  std::string instance_;
};

// Waits for enqueues and catalog publications on its own connection (LISTEN): an idle daemon
// wakes when work arrives, and its catalog replica follows publications, instead of polling.
class JobNotifications {
 public:
  explicit JobNotifications(const std::string& uri);
  // True when a job was enqueued within the timeout; false on timeout or a lost connection.
  bool wait(std::chrono::milliseconds timeout);

 private:
  Connection c_;
};

}  // namespace perfsage::store::pg
