// The daemon's persistent job queue: what to analyse, who is analysing it, and how it ended.
// JobQueue is the contract; SqliteJobQueue keeps the jobs in the fact store. A shared PostgreSQL
// table claimed with SELECT ... FOR UPDATE SKIP LOCKED can implement the same contract so that
// several daemons share one queue (docs/scale-out.md): every state change names the owner that
// holds the job's lease, and a lease that is not renewed lets another owner take the job back.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "store/database.h"

namespace perfsage::store {

enum class JobState { queued, running, done, failed, quarantined };
const char* to_string(JobState state);
std::optional<JobState> parse_job_state(std::string_view text);

// What a job does (docs/scale-out.md, "Cluster runs"): analyses its inputs as one run, or is
// one rank of a cluster run fanned out by rank, or that cluster run's reduce, which assembles
// the run from its ranks' results once none of them is queued or running.
enum class JobKind { run, rank, reduce };
const char* to_string(JobKind kind);
std::optional<JobKind> parse_job_kind(std::string_view text);

struct JobSpec {
  std::string job;                  // the job's name: runs of one training job share it
  std::vector<std::string> inputs;  // absolute paths
  std::string source;               // watch | api
  // What the inputs looked like when the job was made (paths, sizes, mtimes): the same inputs
  // with the same signature are one job, a rewritten run is a new one.
  std::string signature;
  bool lenient = false;
};

struct QueuedJob {
  int64_t id = 0;
  JobSpec spec;
  JobState state = JobState::queued;
  int attempts = 0;    // times claimed
  int crashes = 0;     // times its worker died or ran out of time
  std::string reason;  // why it failed or was quarantined (last failure while retried)
  std::optional<int64_t> run_id;
  std::string owner;                         // the daemon holding it while running
  std::string submitted, started, finished;  // ISO-8601 UTC
  JobKind kind = JobKind::run;
  int64_t parent = 0;  // a rank job's reduce job
  int64_t rank = 0;    // a rank job's rank
};

// One rank of a cluster run fanned out by rank: its rank and its own inputs.
struct RankInputs {
  int64_t rank = 0;
  std::vector<std::string> inputs;
};

// How a job that did not complete ended.
enum class FailureKind {
  error,        // the analysis said no (bad input, bad request): final
  crash,        // the worker died or timed out: retried, quarantined at max_crashes
  interrupted,  // the daemon stopped it (shutdown): queued again, the attempt not counted
};

struct QueuePolicy {
  int max_crashes = 2;   // crashes before quarantine
  int max_attempts = 5;  // claims without an end (the daemon itself died each time)
};

enum class Dedup {
  same_signature,  // skip when a job with these inputs and signature exists in any state
  pending,         // skip only when such a job is queued or running (explicit submissions)
};

struct EnqueueResult {
  int64_t id = 0;
  bool added = false;  // false: an existing job matched and its id is returned
};

struct JobFilter {
  std::optional<JobState> state;
  std::string job;
  int64_t before_id = 0;  // paging: jobs with a smaller id (0 = from the newest)
  int limit = 100;
};

// What a failure does to a running job that has crashed `crashes` times before: the state it
// is left in, its crash count, the reason stored and the change of its attempts (every
// implementation applies the same policy).
struct FailureOutcome {
  JobState next = JobState::failed;
  int crashes = 0;
  std::string reason;
  int attempts_delta = 0;
};
FailureOutcome failure_outcome(FailureKind kind, int crashes, const std::string& reason,
                               const QueuePolicy& policy);

class JobQueue {
 public:
  virtual ~JobQueue() = default;
  virtual EnqueueResult enqueue(const JobSpec& spec, Dedup dedup, const std::string& now) = 0;
  // The newest job with these inputs and signature, in any state.
  virtual std::optional<int64_t> find(const std::vector<std::string>& inputs,
                                      const std::string& signature) = 0;
  // Takes the oldest queued job for `owner` until `lease_until_ms` (wall clock, ms since epoch).
  virtual std::optional<QueuedJob> claim(const std::string& owner, const std::string& now,
                                         int64_t lease_until_ms) = 0;
  // Renews the lease of a running job; false when the owner no longer holds it.
  virtual bool renew(int64_t id, const std::string& owner, int64_t lease_until_ms) = 0;
  virtual bool complete(int64_t id, const std::string& owner, int64_t run_id,
                        const std::string& now) = 0;
  // Records a failure; returns the state the job is left in (failed, queued or quarantined).
  virtual JobState fail(int64_t id, const std::string& owner, FailureKind kind,
                        const std::string& reason, const std::string& now) = 0;
  // After a restart: the owner's running jobs were interrupted with it; they are queued again
  // (or quarantined when they have been claimed max_attempts times). Returns how many.
  virtual int recover(const std::string& owner, const std::string& now) = 0;
  // Running jobs of any owner whose lease ended before `now_ms` are queued again.
  virtual int reclaim_expired(int64_t now_ms, const std::string& now) = 0;
  virtual std::optional<QueuedJob> get(int64_t id) = 0;
  // The newest job that produced the run.
  virtual std::optional<int64_t> job_of_run(int64_t run_id) = 0;
  virtual std::vector<QueuedJob> list(const JobFilter& filter) = 0;
  virtual std::map<JobState, int64_t> counts() = 0;

  // Whether this queue fans cluster runs out by rank (the queue several daemons share does; one
  // daemon's own queue analyses a cluster run as one job).
  virtual bool fans_out() const { return false; }
  // Fans running job `id` out: a queued rank job per entry (its job name, source and leniency,
  // its signature with the rank), and `id` becomes their reduce, queued again without counting
  // the claim as an attempt, claimable once none of them is queued or running. In one
  // transaction; false when `owner` no longer holds the job (nothing written).
  virtual bool fan_out(int64_t id, const std::string& owner, const std::vector<RankInputs>& ranks,
                       const std::string& now);
  // A reduce job's rank jobs, by rank.
  virtual std::vector<QueuedJob> rank_jobs(int64_t reduce_id);
};

class SqliteJobQueue final : public JobQueue {
 public:
  explicit SqliteJobQueue(Database& db, QueuePolicy policy = {}) : db_(db), policy_(policy) {}
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

 private:
  int requeue_running(const std::string& owner, int64_t now_ms, const std::string& now);
  Database& db_;
  QueuePolicy policy_;
};

}  // namespace perfsage::store
