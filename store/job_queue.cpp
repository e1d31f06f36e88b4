#include "store/job_queue.h"

#include <sqlite3.h>

#include <array>

#include "store/bind.h"
#include "store/json_text.h"

namespace perfsage::store {
namespace {

constexpr std::array<const char*, 5> kStateNames = {"queued", "running", "done", "failed",
                                                    "quarantined"};
constexpr std::array<const char*, 3> kKindNames = {"run", "rank", "reduce"};

// The enum value whose name (by position in `names`) is `text`.
template <class Enum, size_t N>
std::optional<Enum> parse_name(const std::array<const char*, N>& names, std::string_view text) {
  for (size_t i = 0; i < N; ++i)
    if (text == names[i]) return static_cast<Enum>(i);
  return std::nullopt;
}

constexpr const char* kJobColumns =
    "SELECT id, job, inputs, source, signature, lenient, state, attempts, crashes, "
    "coalesce(reason,''), run_id, coalesce(owner,''), submitted, coalesce(started,''), "
    "coalesce(finished,'') FROM jobs ";

QueuedJob read_job(Statement& st) {
  QueuedJob j;
  j.id = st.int64(0);
  j.spec.job = st.text(1);
  j.spec.inputs = parse_json_string_array(st.text(2));
  j.spec.source = st.text(3);
  j.spec.signature = st.text(4);
  j.spec.lenient = st.int64(5) != 0;
  j.state = parse_job_state(st.text_view(6)).value_or(JobState::failed);
  j.attempts = static_cast<int>(st.int64(7));
  j.crashes = static_cast<int>(st.int64(8));
  j.reason = st.text(9);
  if (!st.is_null(10)) j.run_id = st.int64(10);
  j.owner = st.text(11);
  j.submitted = st.text(12);
  j.started = st.text(13);
  j.finished = st.text(14);
  return j;
}

int changes(Database& db) {
  return sqlite3_changes(db.handle());
}

// Running jobs of `owner` ('' = any) whose lease ended before `now_ms` (0 = whatever the lease).
constexpr const char* kInterrupted =
    "state='running' AND (?3='' OR owner=?3) AND (?4=0 OR lease_until_ms<?4)";

}  // namespace

const char* to_string(JobState state) {
  return kStateNames[static_cast<size_t>(state)];
}

std::optional<JobState> parse_job_state(std::string_view text) {
  return parse_name<JobState>(kStateNames, text);
}

const char* to_string(JobKind kind) {
  return kKindNames[static_cast<size_t>(kind)];
}

std::optional<JobKind> parse_job_kind(std::string_view text) {
  return parse_name<JobKind>(kKindNames, text);
}

bool JobQueue::fan_out(int64_t, const std::string&, const std::vector<RankInputs>&,
                       const std::string&) {
  throw StoreError(
      "this job queue does not fan cluster runs out by rank (only the queue "
      "several daemons share does)");
}

std::vector<QueuedJob> JobQueue::rank_jobs(int64_t) {
  return {};
}

FailureOutcome failure_outcome(FailureKind kind, int crashes, const std::string& reason,
                               const QueuePolicy& policy) {
  FailureOutcome out{JobState::failed, crashes, reason, 0};
  if (kind == FailureKind::crash) {
    ++out.crashes;
    out.next = out.crashes >= policy.max_crashes ? JobState::quarantined : JobState::queued;
    if (out.next == JobState::quarantined) {
      out.reason = "quarantined after " + std::to_string(out.crashes) + " crashes; last: " + reason;
    }
  } else if (kind == FailureKind::interrupted) {
    out.next = JobState::queued;
    out.attempts_delta = -1;
  }
  return out;
}

EnqueueResult SqliteJobQueue::enqueue(const JobSpec& spec, Dedup dedup, const std::string& now) {
  std::string inputs = json_string_array(spec.inputs);
  Transaction txn(db_);
  auto find = db_.prepare(
      "SELECT id FROM jobs WHERE inputs=?1 AND signature=?2 AND "
      "(?3 = 0 OR state IN ('queued','running')) ORDER BY id DESC LIMIT 1");
  bind_all(find, inputs, spec.signature, dedup == Dedup::pending ? 1 : 0);
  if (find.step()) return {find.int64(0), false};
  auto add = db_.prepare(
      "INSERT INTO jobs(job, inputs, source, signature, lenient, state, submitted) "
      "VALUES(?1, ?2, ?3, ?4, ?5, 'queued', ?6)");
  insert(add, spec.job, inputs, spec.source, spec.signature, spec.lenient ? 1 : 0, now);
  int64_t id = db_.last_insert_rowid();
  txn.commit();
  return {id, true};
}

std::optional<int64_t> SqliteJobQueue::find(const std::vector<std::string>& inputs,
                                            const std::string& signature) {
  auto st =
      db_.prepare("SELECT id FROM jobs WHERE inputs=?1 AND signature=?2 ORDER BY id DESC LIMIT 1");
  // Bound without a copy (bind_all): the text must outlive step().
  const std::string inputs_json = json_string_array(inputs);
  bind_all(st, inputs_json, signature);
  if (st.step()) return st.int64(0);
  return std::nullopt;
}

std::optional<QueuedJob> SqliteJobQueue::claim(const std::string& owner, const std::string& now,
                                               int64_t lease_until_ms) {
  // One statement: the oldest queued job becomes this owner's (SQLite serialises writers; the
  // PostgreSQL form is the same UPDATE over a SELECT ... FOR UPDATE SKIP LOCKED).
  auto st = db_.prepare(
      "UPDATE jobs SET state='running', owner=?1, lease_until_ms=?2, started=?3, "
      "attempts=attempts+1 WHERE id=(SELECT id FROM jobs WHERE state='queued' ORDER BY id "
      "LIMIT 1) RETURNING id");
  bind_all(st, owner, lease_until_ms, now);
  if (!st.step()) return std::nullopt;
  int64_t id = st.int64(0);
  st.reset();
  return get(id);
}

bool SqliteJobQueue::renew(int64_t id, const std::string& owner, int64_t lease_until_ms) {
  auto st =
      db_.prepare("UPDATE jobs SET lease_until_ms=?1 WHERE id=?2 AND owner=?3 AND state='running'");
  insert(st, lease_until_ms, id, owner);
  return changes(db_) > 0;
}

bool SqliteJobQueue::complete(int64_t id, const std::string& owner, int64_t run_id,
                              const std::string& now) {
  auto st = db_.prepare(
      "UPDATE jobs SET state='done', run_id=?1, finished=?2, reason=NULL, owner=NULL, "
      "lease_until_ms=NULL WHERE id=?3 AND owner=?4 AND state='running'");
  insert(st, run_id, now, id, owner);
  return changes(db_) > 0;
}

JobState SqliteJobQueue::fail(int64_t id, const std::string& owner, FailureKind kind,
                              const std::string& reason, const std::string& now) {
  Transaction txn(db_);
  auto cur = db_.prepare("SELECT crashes, state FROM jobs WHERE id=?1 AND owner=?2");
  bind_all(cur, id, owner);
  if (!cur.step() || cur.text_view(1) != "running") {
    auto job = get(id);
    return job ? job->state : JobState::failed;
  }
  auto out = failure_outcome(kind, static_cast<int>(cur.int64(0)), reason, policy_);
  cur.reset();
  const bool final_state = out.next != JobState::queued;
  auto st = db_.prepare(
      "UPDATE jobs SET state=?1, crashes=?2, reason=?3, attempts=attempts+?4, owner=NULL, "
      "lease_until_ms=NULL, finished=CASE WHEN ?5 THEN ?6 ELSE NULL END WHERE id=?7");
  insert(st, to_string(out.next), out.crashes, out.reason, out.attempts_delta, final_state ? 1 : 0,
         now, id);
  txn.commit();
  return out.next;
}

int SqliteJobQueue::requeue_running(const std::string& owner, int64_t now_ms,
                                    const std::string& now) {
  Transaction txn(db_);
  // Jobs claimed max_attempts times without an end took their daemon down with them (or the
  // daemon keeps dying for another reason): they stop here instead of cycling forever.
  auto quarantine = db_.prepare(
      std::string("UPDATE jobs SET state='quarantined', owner=NULL, lease_until_ms=NULL, "
                  "finished=?1, reason='quarantined after ' || attempts || ' attempts that "
                  "never ended (the daemon stopped while running it)' WHERE attempts>=?2 AND ") +
      kInterrupted);
  insert(quarantine, now, policy_.max_attempts, owner, now_ms);
  auto requeue = db_.prepare(
      std::string("UPDATE jobs SET state='queued', owner=NULL, lease_until_ms=NULL, "
                  "reason='interrupted while running (' || ?1 || '); queued again' WHERE "
                  "?2=?2 AND ") +
      kInterrupted);
  insert(requeue, now_ms == 0 ? "daemon restarted" : "lease expired", 0, owner, now_ms);
  int n = changes(db_);
  txn.commit();
  return n;
}

int SqliteJobQueue::recover(const std::string& owner, const std::string& now) {
  return requeue_running(owner, 0, now);
}

int SqliteJobQueue::reclaim_expired(int64_t now_ms, const std::string& now) {
  return requeue_running("", now_ms, now);
}

std::optional<QueuedJob> SqliteJobQueue::get(int64_t id) {
  auto st = db_.prepare(std::string(kJobColumns) + "WHERE id=?1");
  st.bind(1, id);
  if (!st.step()) return std::nullopt;
  return read_job(st);
}

std::optional<int64_t> SqliteJobQueue::job_of_run(int64_t run_id) {
  auto st = db_.prepare("SELECT max(id) FROM jobs WHERE run_id=?1");
  st.bind(1, run_id);
  if (st.step() && !st.is_null(0)) return st.int64(0);
  return std::nullopt;
}

std::vector<QueuedJob> SqliteJobQueue::list(const JobFilter& filter) {
  auto st = db_.prepare(std::string(kJobColumns) +
                        "WHERE (?1='' OR state=?1) AND (?2='' OR job=?2) AND (?3=0 OR id<?3) "
                        "ORDER BY id DESC LIMIT ?4");
  std::string state = filter.state ? to_string(*filter.state) : "";
  bind_all(st, state, filter.job, filter.before_id, static_cast<int64_t>(filter.limit));
  std::vector<QueuedJob> out;
  while (st.step()) out.push_back(read_job(st));
  return out;
}

std::map<JobState, int64_t> SqliteJobQueue::counts() {
  std::map<JobState, int64_t> out;
  for (size_t i = 0; i < kStateNames.size(); ++i) out[static_cast<JobState>(i)] = 0;
  auto st = db_.prepare("SELECT state, count(*) FROM jobs GROUP BY state");
  while (st.step()) {
    if (auto s = parse_job_state(st.text_view(0))) out[*s] = st.int64(1);
  }
  return out;
}

}  // namespace perfsage::store
