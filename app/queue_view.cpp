#include "app/queue_view.h"

#include "store/job_queue.h"

namespace perfsage::app {
namespace v1 = perfsage::v1;

namespace {

v1::QueueJob to_proto(const store::QueuedJob& j, const std::vector<JobProgress>& running) {
  v1::QueueJob out;
  out.set_id(j.id);
  out.set_job(j.spec.job);
  for (const auto& in : j.spec.inputs) out.add_inputs(in);
  out.set_source(j.spec.source);
  out.set_state(store::to_string(j.state));
  out.set_attempts(j.attempts);
  out.set_crashes(j.crashes);
  out.set_reason(j.reason);
  out.set_run_id(j.run_id.value_or(0));
  out.set_submitted(j.submitted);
  out.set_started(j.started);
  out.set_finished(j.finished);
  out.set_kind(to_string(j.kind));
  out.set_parent(j.parent);
  out.set_rank(j.rank);
  out.set_progress(-1);
  for (const auto& r : running) {
    if (r.job_id != j.id) continue;
    out.set_stage(r.stage);
    out.set_progress(r.fraction);
    out.set_pid(r.pid);
  }
  return out;
}

}  // namespace

bool valid_queue_state(const std::string& state) {
  return state.empty() || store::parse_job_state(state).has_value();
}

std::vector<std::pair<std::string, int64_t>> queue_counts(JobQueue& queue) {
  std::vector<std::pair<std::string, int64_t>> out;
  for (const auto& [state, n] : queue.counts()) out.emplace_back(store::to_string(state), n);
  return out;
}

Result<v1::QueueState> queue_view(JobQueue& queue, const QueueQuery& query,
                                  const std::vector<JobProgress>& running) {
  store::JobFilter f;
  if (!query.state.empty()) {
    f.state = store::parse_job_state(query.state);
    if (!f.state) {
      return Error{ErrorKind::usage, "state must be queued, running, done, failed or quarantined"};
    }
  }
  f.job = query.job;
  f.limit = query.limit;
  f.before_id = query.before_id;
  v1::QueueState out;
  for (const auto& [st, n] : queue.counts()) (*out.mutable_counts())[store::to_string(st)] = n;
  auto jobs = queue.list(f);
  for (const auto& j : jobs) *out.add_jobs() = to_proto(j, running);
  if (static_cast<int>(jobs.size()) == f.limit) {
    out.set_next_page_token(std::to_string(jobs.back().id));
  }
  return out;
}

std::optional<v1::QueueJob> queue_job(JobQueue& queue, int64_t id,
                                      const std::vector<JobProgress>& running) {
  auto job = queue.get(id);
  if (!job) return std::nullopt;
  return to_proto(*job, running);
}

}  // namespace perfsage::app
