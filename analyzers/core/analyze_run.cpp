#include "analyzers/core/analyze_run.h"

#include "analyzers/core/op_stats.h"
#include "analyzers/patterns/analyze_patterns.h"
#include "analyzers/iteration/iteration.h"
#include "analyzers/roofline/roofline.h"

namespace perfsage::analyzers {

store::RunSummary analyze_run(store::Database& db, int64_t run_id, const RunIdentity& identity) {
  compute_op_stats(db, run_id);
  iteration::analyze_iteration(db, run_id);
  analyze_patterns(db, run_id);
  roofline::analyze_roofline(db, run_id);
  return summarize_run(db, run_id, identity);
}

}  // namespace perfsage::analyzers
