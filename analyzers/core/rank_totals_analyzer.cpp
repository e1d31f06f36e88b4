// The rank_totals analyzer: each rank's span and device totals, communication time per name and
// host collective calls, read by the run and host_comm facts and every fact's wall span.
#include "analyzers/core/analyzer.h"
#include "analyzers/core/rank_totals.h"
#include "analyzers/core/tables.h"

namespace perfsage::analyzers {

Analyzer rank_totals_analyzer() {
  Analyzer a;
  a.name = "rank_totals";
  a.reads = {"host_events", "device_events", "op_tasks"};
  a.writes = {tables::rank_totals(), tables::hccl_totals(), tables::host_collective_calls()};
  a.uses_op_tasks = true;
  a.run = [](store::Database& db, int64_t run_id, const AnalyzerResources& resources) {
    compute_rank_totals(db, run_id, resources.passes);
  };
  return a;
}

}  // namespace perfsage::analyzers
