// The cpu_self_time analyzer: self time of CPU ops per name (host_op_self) and host ops and
// annotations per name and kind (host_op_totals), read by the host_op fact.
#include "analyzers/core/analyzer.h"
#include "analyzers/core/cpu_self_time.h"
#include "analyzers/core/tables.h"

namespace perfsage::analyzers {

Analyzer cpu_self_time_analyzer() {
  Analyzer a;
  a.name = "cpu_self_time";
  a.reads = {"host_events"};
  a.writes = {tables::host_op_self(), tables::host_op_totals()};
  a.run = [](store::Database& db, int64_t run_id, const AnalyzerResources& /*resources*/) {
    compute_cpu_self_time(db, run_id);
  };
  return a;
}

}  // namespace perfsage::analyzers
