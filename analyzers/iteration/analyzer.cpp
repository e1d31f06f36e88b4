// The iteration analyzer: Per-rank step breakdown, GPU activity and host-side schedule statistics.
#include "analyzers/core/analyzer.h"

#include "analyzers/iteration/iteration.h"
#include "analyzers/iteration/tables.h"

namespace perfsage::analyzers {

Analyzer iteration_analyzer() {
  namespace tables = iteration::tables;
  Analyzer a;
  a.name = "iteration";
  a.reads = {"steps", "host_events", "device_events"};
  a.writes = {tables::ranks(), tables::device_activity(), tables::schedule()};
  a.run = [](store::Database& db, int64_t run_id, const AnalyzerResources& /*resources*/) {
    iteration::analyze_iteration(db, run_id);
  };
  return a;
}

}  // namespace perfsage::analyzers
