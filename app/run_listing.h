// The stored runs and jobs as the front ends list them (GET /api/v1/runs, /runs/N, /jobs):
// filtered, paged run summaries newest first, the job names, and which queue job produced a
// run. The front ends translate their parameters into a RunQuery and render what comes back.
#pragma once

#include <google/protobuf/repeated_ptr_field.h>

#include <cstdint>
#include <string>
#include <vector>

#include "app/queue_view.h"
#include "app/result.h"
#include "app/store_types.h"
#include "perfsage/v1/api.pb.h"

namespace perfsage::app {

struct RunQuery {
  std::string job;
  std::string since, until;  // ISO-8601 UTC prefixes, inclusive; empty = open
  std::string status;
  int64_t before_id = 0;  // paging: runs with a smaller id (0 = from the newest)
  int limit = 50;
};

// True for an ISO-8601 time or a prefix of one (2026, 2026-01, 2026-01-02T10:00:00Z), or empty.
bool valid_time_prefix(const std::string& t);

// Newest first; next_page_token is set when the page is full. A usage error when since or
// until is not an ISO-8601 time. The runs jobs analyse now (`running`) are shown, and filtered,
// as status "running" with their stage and progress, whatever the store says of them yet.
Result<perfsage::v1::RunList> list_runs(Database& db, const RunQuery& query,
                                        const std::vector<JobProgress>& running = {});

// Whether the store holds run `id`.
bool run_exists(Database& db, int64_t id);

// Every job with its number of runs and its last run's time.
perfsage::v1::JobNames list_jobs(Database& db);

// The queue job that produced each run; 0 for none.
void add_queue_jobs(JobQueue& queue,
                    google::protobuf::RepeatedPtrField<perfsage::v1::RunSummary>& runs);
void add_queue_job(JobQueue& queue, perfsage::v1::RunSummary& run);

// Runs a job of `running` analyses now: their stored status says nothing yet (an "analyzed" run
// has no findings until its packs are evaluated), so they show as "running" with the job's stage,
// progress and id.
void mark_running(google::protobuf::RepeatedPtrField<perfsage::v1::RunSummary>& runs,
                  const std::vector<JobProgress>& running);
void mark_running(perfsage::v1::RunSummary& run, const std::vector<JobProgress>& running);

}  // namespace perfsage::app
