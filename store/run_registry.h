// Reads and updates the runs table: lookup by fingerprint, run records, listing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "store/database.h"
#include "store/records.h"

namespace perfsage::store {

// One row of the runs table: the run's identity and the totals the analyzers stored
// (analyzers/core/run_totals.h).
struct RunRecord {
  int64_t id = 0;
  std::string job;
  std::vector<std::string> inputs;
  std::string kind, framework, device, chip, fingerprint, created, status;
  int64_t ranks = 0, steps = 0;
  double step_time_us = 0, device_time_us = 0;
};

// A run's status: its records are committed ('ingested'), then every analyzer has run on them
// ('analyzed'). Only an analyzed run is complete: one left ingested (a crash or kill during
// analysis) must be analysed again before it is used.
inline constexpr const char* kRunIngested = "ingested";
inline constexpr const char* kRunAnalyzed = "analyzed";

// The run that already holds exactly these inputs, if any (complete or not: see status).
std::optional<int64_t> find_run_by_fingerprint(Database& db, const std::string& fingerprint);
std::optional<RunRecord> load_run(Database& db, int64_t run_id);
std::vector<RunRecord> list_runs(Database& db, const std::string& job = "");
void update_run_totals(Database& db, const RunRecord& s);
void set_run_status(Database& db, int64_t run_id, const std::string& status);
std::vector<IngestFile> load_ingest_files(Database& db, int64_t run_id);
// Removes a run and every row that belongs to it.
void delete_run(Database& db, int64_t run_id);

}  // namespace perfsage::store
