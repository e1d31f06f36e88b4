#include "store/pg/pg_job_queue.h"

#include <chrono>

#include "store/json_text.h"
#include "store/pg/pg_catalog.h"
#include "store/pg/pg_schema.h"

namespace perfsage::store::pg {
namespace {

constexpr const char* kJobColumns =
    "SELECT id, job, inputs, source, signature, lenient, state, attempts, crashes, "
    "coalesce(reason,''), run_id, coalesce(owner,''), submitted, coalesce(started,''), "
    "coalesce(finished,''), kind, coalesce(parent, 0), coalesce(rank, 0) FROM jobs ";

// A queued job `j` may be claimed unless it is a reduce whose rank jobs have not all ended:
// whichever daemon ends the last rank job, the next claim of any daemon takes the reduce.
constexpr const char* kReduceReady =
    "(j.kind <> 'reduce' OR NOT EXISTS (SELECT 1 FROM jobs c WHERE c.parent = j.id AND "
    "c.state IN ('queued', 'running')))";

// The database clock in epoch milliseconds.
constexpr const char* kNowMs = "(extract(epoch from clock_timestamp()) * 1000)::bigint";

QueuedJob read_job(const Result& r, int row) {
  QueuedJob j;
  j.id = r.int64(row, 0);
  j.spec.job = r.text(row, 1);
  j.spec.inputs = parse_json_string_array(r.text(row, 2));
  j.spec.source = r.text(row, 3);
  j.spec.signature = r.text(row, 4);
  j.spec.lenient = r.text(row, 5) == "t";
  j.state = parse_job_state(r.text(row, 6)).value_or(JobState::failed);
  j.attempts = static_cast<int>(r.int64(row, 7));
  j.crashes = static_cast<int>(r.int64(row, 8));
  j.reason = r.text(row, 9);
  if (!r.is_null(row, 10)) j.run_id = r.int64(row, 10);
  j.owner = r.text(row, 11);
  j.submitted = r.text(row, 12);
  j.started = r.text(row, 13);
  j.finished = r.text(row, 14);
  j.kind = parse_job_kind(r.text(row, 15)).value_or(JobKind::run);
  j.parent = r.int64(row, 16);
  j.rank = r.int64(row, 17);
  return j;
}

}  // namespace

int64_t system_clock_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

PgJobQueue::PgJobQueue(const std::string& uri, QueuePolicy policy,
                       std::function<int64_t()> local_ms, std::string instance)
    : c_(uri), policy_(policy), local_ms_(std::move(local_ms)), instance_(std::move(instance)) {
  migrate(c_);
}

std::string PgJobQueue::db_time(int n) const {
  return "(" + std::string(kNowMs) + " + $" + std::to_string(n) + "::bigint)";
}

EnqueueResult PgJobQueue::enqueue(const JobSpec& spec, Dedup dedup, const std::string& now) {
  std::lock_guard lock(mutex_);
  const std::string inputs = json_string_array(spec.inputs);
  Transaction txn(c_);
  auto existing = c_.exec(
      "SELECT id FROM jobs WHERE md5(inputs) = md5($1) AND inputs = $1 AND signature = $2 AND "
      "($3 = '0' OR state IN ('queued','running')) ORDER BY id DESC LIMIT 1",
      {param(inputs), param(spec.signature), param(dedup == Dedup::pending ? "1" : "0")});
  if (existing.rows() > 0) return {existing.int64(0, 0), false};
  // Another daemon enqueueing the same inputs at this moment meets the unique index: one row
  // is added, the other statement adds none and finds it.
  auto added = c_.exec(
      "INSERT INTO jobs(job, inputs, source, signature, lenient, state, submitted) "
      "VALUES($1, $2, $3, $4, $5, 'queued', $6) "
      "ON CONFLICT (md5(inputs), signature) WHERE state IN ('queued','running') DO NOTHING "
      "RETURNING id",
      {param(spec.job), param(inputs), param(spec.source), param(spec.signature),
       param(spec.lenient ? "true" : "false"), param(now)});
  if (added.rows() == 0) {
    txn.commit();
    auto pending = c_.exec(
        "SELECT id FROM jobs WHERE md5(inputs) = md5($1) AND inputs = $1 AND signature = $2 "
        "AND state IN ('queued','running') ORDER BY id DESC LIMIT 1",
        {param(inputs), param(spec.signature)});
    return {pending.rows() ? pending.int64(0, 0) : 0, false};
  }
  c_.exec("SELECT pg_notify($1, $2)", {param(kJobsChannel), param(added.text(0, 0))});
  txn.commit();
  return {added.int64(0, 0), true};
}

std::optional<int64_t> PgJobQueue::find(const std::vector<std::string>& inputs,
                                        const std::string& signature) {
  std::lock_guard lock(mutex_);
  const std::string json = json_string_array(inputs);
  auto r = c_.exec(
      "SELECT id FROM jobs WHERE md5(inputs) = md5($1) AND inputs = $1 AND signature = $2 "
      "ORDER BY id DESC LIMIT 1",
      {param(json), param(signature)});
  if (r.rows() == 0) return std::nullopt;
  return r.int64(0, 0);
}

std::optional<QueuedJob> PgJobQueue::claim(const std::string& owner, const std::string& now,
                                           int64_t lease_until_ms) {
  std::lock_guard lock(mutex_);
  const int64_t lease = lease_until_ms - local_ms_();
  auto r =
      c_.exec("UPDATE jobs SET state = 'running', owner = $1, lease_until_ms = " + db_time(2) +
                  ", started = $3, attempts = attempts + 1 WHERE id = (SELECT id FROM jobs j WHERE "
                  "state = 'queued' AND " +
                  kReduceReady + " ORDER BY id FOR UPDATE SKIP LOCKED LIMIT 1) RETURNING id",
              {param(owner), param(lease), param(now)});
  if (r.rows() == 0) return std::nullopt;
  return get_locked(r.int64(0, 0));
}

bool PgJobQueue::renew(int64_t id, const std::string& owner, int64_t lease_until_ms) {
  std::lock_guard lock(mutex_);
  const int64_t lease = lease_until_ms - local_ms_();
  auto r = c_.exec("UPDATE jobs SET lease_until_ms = " + db_time(1) +
                       " WHERE id = $2 AND owner = $3 AND state = 'running'",
                   {param(lease), param(id), param(owner)});
  return r.affected() > 0;
}

bool PgJobQueue::complete(int64_t id, const std::string& owner, int64_t run_id,
                          const std::string& now) {
  std::lock_guard lock(mutex_);
  auto r = c_.exec(
      "UPDATE jobs SET state = 'done', run_id = $1, finished = $2, reason = NULL, owner = NULL, "
      "lease_until_ms = NULL, done_by = $4 WHERE id = $3 AND owner = $4 AND state = 'running'",
      {param(run_id), param(now), param(id), param(owner)});
  return r.affected() > 0;
}

JobState PgJobQueue::fail(int64_t id, const std::string& owner, FailureKind kind,
                          const std::string& reason, const std::string& now) {
  std::lock_guard lock(mutex_);
  Transaction txn(c_);
  auto cur = c_.exec("SELECT crashes, state FROM jobs WHERE id = $1 AND owner = $2 FOR UPDATE",
                     {param(id), param(owner)});
  if (cur.rows() == 0 || cur.text(0, 1) != "running") {
    auto job = get_locked(id);
    return job ? job->state : JobState::failed;
  }
  auto out = failure_outcome(kind, static_cast<int>(cur.int64(0, 0)), reason, policy_);
  const bool final_state = out.next != JobState::queued;
  c_.exec(
      "UPDATE jobs SET state = $1, crashes = $2, reason = $3, attempts = attempts + $4, "
      "owner = NULL, lease_until_ms = NULL, finished = $5 WHERE id = $6",
      {param(to_string(out.next)), param(int64_t{out.crashes}), param(out.reason),
       param(int64_t{out.attempts_delta}), final_state ? param(now) : Param(), param(id)});
  if (out.next == JobState::queued)
    c_.exec("SELECT pg_notify($1, $2)", {param(kJobsChannel), param(id)});
  txn.commit();
  return out.next;
}

int PgJobQueue::requeue_running(const std::string& owner, std::optional<int64_t> now_ms,
                                const std::string& now) {
  // Running jobs of `owner` ('' = any) whose lease ended before now_ms (none = whatever the
  // lease), now_ms read on the database's clock.
  const std::string interrupted =
      " state = 'running' AND ($1 = '' OR owner = $1) AND ($2::bigint IS NULL OR "
      "lease_until_ms < " +
      db_time(2) + ")";
  const Param when = now_ms ? param(*now_ms - local_ms_()) : Param();
  Transaction txn(c_);
  c_.exec(
      "UPDATE jobs SET state = 'quarantined', owner = NULL, lease_until_ms = NULL, "
      "finished = $4, reason = 'quarantined after ' || attempts || ' attempts that never ended "
      "(the daemon stopped while running it)' WHERE attempts >= $3 AND" +
          interrupted,
      {param(owner), when, param(int64_t{policy_.max_attempts}), param(now)});
  auto r = c_.exec(
      "UPDATE jobs SET state = 'queued', owner = NULL, lease_until_ms = NULL, "
      "reason = 'interrupted while running (' || $3 || '); queued again' WHERE" +
          interrupted,
      {param(owner), when, param(now_ms ? "lease expired" : "daemon restarted")});
  if (r.affected() > 0) c_.exec("SELECT pg_notify($1, 'requeued')", {param(kJobsChannel)});
  txn.commit();
  return static_cast<int>(r.affected());
}

int PgJobQueue::recover(const std::string& owner, const std::string& now) {
  std::lock_guard lock(mutex_);
  return requeue_running(owner, std::nullopt, now);
}

int PgJobQueue::reclaim_expired(int64_t now_ms, const std::string& now) {
  std::lock_guard lock(mutex_);
  return requeue_running("", now_ms, now);
}

bool PgJobQueue::fan_out(int64_t id, const std::string& owner, const std::vector<RankInputs>& ranks,
                         const std::string& now) {
  std::lock_guard lock(mutex_);
  Transaction txn(c_);
  auto held = c_.exec(
      "SELECT job, source, signature, lenient FROM jobs WHERE id = $1 AND owner = $2 AND "
      "state = 'running' AND kind = 'run' FOR UPDATE",
      {param(id), param(owner)});
  if (held.rows() == 0) return false;
  for (const auto& r : ranks) {
    // A rank's signature is the cluster's with its rank: the same file analysed alone is
    // another job.
    c_.exec(
        "INSERT INTO jobs(job, inputs, source, signature, lenient, state, submitted, kind, "
        "parent, rank) VALUES($1, $2, $3, $4 || ' rank ' || $5, $6, 'queued', $7, 'rank', $8, "
        "$5::bigint)",
        {param(held.text(0, 0)), param(json_string_array(r.inputs)), param(held.text(0, 1)),
         param(held.text(0, 2)), param(r.rank), param(held.text(0, 3)), param(now), param(id)});
  }
  c_.exec(
      "UPDATE jobs SET kind = 'reduce', state = 'queued', owner = NULL, lease_until_ms = NULL, "
      "attempts = attempts - 1 WHERE id = $1",
      {param(id)});
  c_.exec("SELECT pg_notify($1, $2)", {param(kJobsChannel), param(id)});
  txn.commit();
  return true;
}

std::vector<QueuedJob> PgJobQueue::rank_jobs(int64_t reduce_id) {
  std::lock_guard lock(mutex_);
  auto r =
      c_.exec(std::string(kJobColumns) + "WHERE parent = $1 ORDER BY rank, id", {param(reduce_id)});
  std::vector<QueuedJob> out;
  for (int i = 0; i < r.rows(); ++i) out.push_back(read_job(r, i));
  return out;
}

std::optional<QueuedJob> PgJobQueue::get_locked(int64_t id) {
  auto r = c_.exec(std::string(kJobColumns) + "WHERE id = $1", {param(id)});
  if (r.rows() == 0) return std::nullopt;
  return read_job(r, 0);
}

std::optional<QueuedJob> PgJobQueue::get(int64_t id) {
  std::lock_guard lock(mutex_);
  return get_locked(id);
}

std::optional<int64_t> PgJobQueue::job_of_run(int64_t run_id) {
  std::lock_guard lock(mutex_);
  auto r = c_.exec("SELECT max(id) FROM jobs WHERE run_id = $1 AND ($2 = '' OR done_by = $2)",
                   {param(run_id), param(instance_)});
  if (r.rows() == 0 || r.is_null(0, 0)) return std::nullopt;
  return r.int64(0, 0);
}

std::vector<QueuedJob> PgJobQueue::list(const JobFilter& filter) {
  std::lock_guard lock(mutex_);
  auto r = c_.exec(std::string(kJobColumns) +
                       "WHERE ($1 = '' OR state = $1) AND ($2 = '' OR job = $2) AND "
                       "($3::bigint = 0 OR id < $3::bigint) ORDER BY id DESC LIMIT $4",
                   {param(filter.state ? to_string(*filter.state) : ""), param(filter.job),
                    param(filter.before_id), param(int64_t{filter.limit})});
  std::vector<QueuedJob> out;
  for (int i = 0; i < r.rows(); ++i) out.push_back(read_job(r, i));
  return out;
}

std::map<JobState, int64_t> PgJobQueue::counts() {
  std::lock_guard lock(mutex_);
  std::map<JobState, int64_t> out;
  for (auto s : {JobState::queued, JobState::running, JobState::done, JobState::failed,
                 JobState::quarantined})
    out[s] = 0;
  auto r = c_.exec("SELECT state, count(*) FROM jobs GROUP BY state");
  for (int i = 0; i < r.rows(); ++i) {
    if (auto s = parse_job_state(r.text(i, 0))) out[*s] = r.int64(i, 1);
  }
  return out;
}

JobNotifications::JobNotifications(const std::string& uri) : c_(uri) {
  c_.listen(kJobsChannel);
  c_.listen(kCatalogChannel);
}

bool JobNotifications::wait(std::chrono::milliseconds timeout) {
  return c_.wait(timeout);
}

}  // namespace perfsage::store::pg
