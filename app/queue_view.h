// The daemon's job queue as the API shows it (GET /api/v1/queue, /queue/N, the counts in
// /status), read through the JobQueue contract: one daemon's SQLite queue file or the queue
// several daemons share in PostgreSQL. What the queue cannot
// know — the stage and progress of a job running now — the caller passes as JobProgress.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "app/job_queue.h"
#include "app/result.h"
#include "app/store_types.h"
#include "perfsage/v1/api.pb.h"

namespace perfsage::app {

struct JobProgress {
  int64_t job_id = 0;
  std::string stage;
  double fraction = -1;
  int pid = 0;
  int64_t run_id = 0;  // the store's run the job analyses, once known
};

struct QueueQuery {
  std::string state;  // queued | running | done | failed | quarantined; empty = all
  std::string job;
  int64_t before_id = 0;  // paging: jobs with a smaller id (0 = from the newest)
  int limit = 50;
};

// Whether `state` names a queue state (empty: all states).
bool valid_queue_state(const std::string& state);

// Jobs per state, in the states' order (queued, running, done, failed, quarantined).
std::vector<std::pair<std::string, int64_t>> queue_counts(JobQueue& queue);

// The counts and one page of jobs, newest first (next_page_token set when the page is full);
// pending runs are the caller's. A usage error for an unknown state.
Result<perfsage::v1::QueueState> queue_view(JobQueue& queue, const QueueQuery& query,
                                            const std::vector<JobProgress>& running);

// One queue job; nullopt when there is none with that id.
std::optional<perfsage::v1::QueueJob> queue_job(JobQueue& queue, int64_t id,
                                                const std::vector<JobProgress>& running);

}  // namespace perfsage::app
