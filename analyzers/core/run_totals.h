// The run's totals kept in its runs row: framework, device, ranks, steps, step and summed
// device time.
#pragma once

#include <cstdint>
#include <string>

#include "store/database.h"
#include "store/run_registry.h"

namespace perfsage::analyzers {

struct RunIdentity {
  std::string framework, device, chip;
};

// Derives the totals from the run's per-rank tables (rank_totals, ranks, steps: the analyzers
// must have run) and stores them in its runs row.
store::RunRecord compute_run_totals(store::Database& db, int64_t run_id,
                                    const RunIdentity& identity);

struct RunCounts {
  int64_t ops = 0;      // Ascend device task executions
  int64_t kernels = 0;  // GPU kernel executions (and Ascend timeline tasks)
};
RunCounts count_run_records(store::Database& db, int64_t run_id);

}  // namespace perfsage::analyzers
