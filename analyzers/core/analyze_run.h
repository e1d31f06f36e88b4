// Runs every analyzer over one ingested run, in dependency order.
#pragma once

#include <cstdint>

#include "analyzers/core/run_summary.h"
#include "store/database.h"

namespace perfsage::analyzers {

store::RunSummary analyze_run(store::Database& db, int64_t run_id, const RunIdentity& identity);

}  // namespace perfsage::analyzers
