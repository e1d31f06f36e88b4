// Runs every analyzer over one ingested run, in the order their declarations give.
#pragma once

#include <cstdint>
#include <vector>

#include "analyzers/core/analyzer.h"
#include "analyzers/core/run_totals.h"
#include "store/database.h"

namespace perfsage::analyzers {

// Brings the derived tables to their declared shape, runs every analyzer (analyzers()) in order,
// then summarises the run.
store::RunRecord analyze_run(store::Database& db, int64_t run_id, const RunIdentity& identity,
                              const AnalyzerResources& resources);

}  // namespace perfsage::analyzers
