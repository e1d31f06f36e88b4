// The run-level summary: framework, device, ranks, steps, step and device time.
#pragma once

#include <cstdint>
#include <string>

#include "store/database.h"
#include "store/run_registry.h"

namespace perfsage::analyzers {

struct RunIdentity {
  std::string framework, device, chip;
};

// Derives the summary from the run's records and stores it in the runs table.
store::RunSummary summarize_run(store::Database& db, int64_t run_id, const RunIdentity& identity);

struct RunCounts {
  int64_t ops = 0;      // Ascend device task executions
  int64_t kernels = 0;  // GPU kernel executions (and Ascend timeline tasks)
};
RunCounts count_run_records(store::Database& db, int64_t run_id);

}  // namespace perfsage::analyzers
