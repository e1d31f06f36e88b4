// Runs every analyzer over one ingested run, in dependency order.
#pragma once

#include <cstdint>
#include <vector>

#include "analyzers/core/run_summary.h"
#include "analyzers/patterns/pattern_spec.h"
#include "analyzers/roofline/hardware_db.h"
#include "store/database.h"

namespace perfsage::analyzers {

// The data analyzers read besides the run: loaded by the application, never found by them.
struct AnalyzerResources {
  const roofline::HardwareDb& hardware;
  const std::vector<patterns::Pattern>& patterns;
};

store::RunSummary analyze_run(store::Database& db, int64_t run_id, const RunIdentity& identity,
                              const AnalyzerResources& resources);

}  // namespace perfsage::analyzers
