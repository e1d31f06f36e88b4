// Reads for browsing runs (the daemon's API): a filtered, paged list of runs with their finding
// counts, the jobs, and a job's findings across its runs.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "store/database.h"

namespace perfsage::store {

struct RunFilter {
  std::string job;
  std::string since, until;  // ISO-8601 UTC, inclusive; empty = open
  std::string status;
  int64_t before_id = 0;  // paging: runs with a smaller id (0 = from the newest)
  int limit = 50;
};

struct RunRow {
  int64_t id = 0;
  std::string job, created, status, framework, device, chip;
  std::vector<std::string> inputs;
  int64_t steps = 0;
  double step_time_us = 0;
  std::map<int, int64_t> findings_by_severity;  // perfsage.v1.Severity number → count
  double top_gain_share = 0;
  int64_t queue_job = 0;  // set by the daemon from its queue (store::JobQueue::job_of_run)
};

// Newest first.
std::vector<RunRow> list_run_rows(Database& db, const RunFilter& filter);
std::vector<RunRow> run_rows(Database& db, const std::vector<int64_t>& ids);

struct JobRow {
  std::string name;
  int64_t runs = 0;
  std::string last_run;
};
std::vector<JobRow> list_jobs(Database& db);

// One stored finding of a run of the job, with its run's creation time.
struct FindingRow {
  int64_t run_id = 0;
  std::string created, id, pack, rule;
  int severity = 0;
  double gain_us = 0, gain_share = 0;
  std::string payload;  // serialized perfsage.v1.Finding
};
// The findings of the job's newest `last_runs` runs, oldest run first; `run_ids` gets those runs.
std::vector<FindingRow> job_finding_rows(Database& db, const std::string& job, int last_runs,
                                         std::vector<int64_t>& run_ids);
std::vector<FindingRow> run_finding_rows(Database& db, int64_t run_id);

}  // namespace perfsage::store
