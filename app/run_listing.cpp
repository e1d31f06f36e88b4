#include "app/run_listing.h"

#include <algorithm>
#include <cctype>

#include "app/run_detail.h"
#include "store/job_queue.h"
#include "store/run_index.h"

namespace perfsage::app {
namespace v1 = perfsage::v1;

bool valid_time_prefix(const std::string& t) {
  // ISO-8601 prefixes compare as text: 2026, 2026-01, 2026-01-02, 2026-01-02T10:00:00Z ...
  for (char c : t) {
    if (!std::isdigit(static_cast<unsigned char>(c)) && c != '-' && c != ':' && c != 'T' &&
        c != 'Z' && c != '.')
      return false;
  }
  return t.empty() || (t.size() >= 4 && std::isdigit(static_cast<unsigned char>(t[0])));
}

namespace {
bool is_running(int64_t run_id, const std::vector<JobProgress>& running) {
  for (const auto& r : running)
    if (r.run_id != 0 && r.run_id == run_id) return true;
  return false;
}

// status=running: the runs jobs are analysing, matched against the other filters here (there
// are at most as many as workers).
v1::RunList running_runs(Database& db, const RunQuery& query,
                         const std::vector<JobProgress>& running) {
  std::vector<int64_t> ids;
  for (const auto& r : running)
    if (r.run_id != 0 && (query.before_id == 0 || r.run_id < query.before_id))
      ids.push_back(r.run_id);
  auto rows = store::run_rows(db, ids);
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.id > b.id; });
  v1::RunList out;
  for (const auto& r : rows) {
    if (!query.job.empty() && r.job != query.job) continue;
    if (!query.since.empty() && r.created < query.since) continue;
    if (!query.until.empty() && r.created > query.until) continue;
    if (out.runs_size() == query.limit) break;
    *out.add_runs() = run_summary(r);
  }
  mark_running(*out.mutable_runs(), running);
  return out;
}
}  // namespace

Result<v1::RunList> list_runs(Database& db, const RunQuery& query,
                              const std::vector<JobProgress>& running) {
  if (!valid_time_prefix(query.since) || !valid_time_prefix(query.until)) {
    return Error{ErrorKind::usage,
                 "since and until must be ISO-8601 times, e.g. 2026-01-31T12:00:00Z"};
  }
  store::RunFilter f;
  f.job = query.job;
  f.since = query.since;
  f.until = query.until;
  if (query.status == "running") return running_runs(db, query, running);
  f.status = query.status;
  f.limit = query.limit;
  f.before_id = query.before_id;
  auto rows = store::list_run_rows(db, f);
  v1::RunList out;
  for (const auto& r : rows) {
    // A run being analysed is "running" whatever the store says of it yet.
    if (!query.status.empty() && is_running(r.id, running)) continue;
    *out.add_runs() = run_summary(r);
  }
  mark_running(*out.mutable_runs(), running);
  if (static_cast<int>(rows.size()) == f.limit) {
    out.set_next_page_token(std::to_string(rows.back().id));
  }
  return out;
}

bool run_exists(Database& db, int64_t id) {
  return !store::run_rows(db, {id}).empty();
}

v1::JobNames list_jobs(Database& db) {
  v1::JobNames out;
  for (const auto& j : store::list_jobs(db)) {
    auto* o = out.add_jobs();
    o->set_name(j.name);
    o->set_runs(j.runs);
    o->set_last_run(j.last_run);
  }
  return out;
}

void add_queue_jobs(JobQueue& queue, google::protobuf::RepeatedPtrField<v1::RunSummary>& runs) {
  for (auto& r : runs) r.set_queue_job(queue.job_of_run(r.id()).value_or(0));
}

void add_queue_job(JobQueue& queue, v1::RunSummary& run) {
  run.set_queue_job(queue.job_of_run(run.id()).value_or(0));
}

void mark_running(v1::RunSummary& run, const std::vector<JobProgress>& running) {
  for (const auto& r : running) {
    if (r.run_id == 0 || r.run_id != run.id()) continue;
    run.set_status("running");
    run.set_stage(r.stage);
    run.set_progress(r.fraction);
    run.set_queue_job(r.job_id);
  }
}

void mark_running(google::protobuf::RepeatedPtrField<v1::RunSummary>& runs,
                  const std::vector<JobProgress>& running) {
  for (auto& r : runs) mark_running(r, running);
}

}  // namespace perfsage::app
