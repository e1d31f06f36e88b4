#include "analyzers/core/analyze_run.h"

#include "analyzers/core/timed_part.h"

namespace perfsage::analyzers {
store::RunRecord analyze_run(store::Database& db, int64_t run_id, const RunIdentity& identity,
                              const AnalyzerResources& resources) {
  store::ensure_derived_tables(db, derived_tables());
  for (const Analyzer& a : analyzers())
    timed_part("analyzer", a.name, [&] { a.run(db, run_id, resources); });
  store::RunRecord summary;
  timed_part("analyzer", "summary", [&] { summary = compute_run_totals(db, run_id, identity); });
  return summary;
}

}  // namespace perfsage::analyzers
