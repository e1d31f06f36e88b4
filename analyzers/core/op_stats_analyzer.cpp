// The op_stats analyzer: Per-op statistics of Ascend device tasks: per op name (op_stats), per op
// type (op_type_stats), tasks per block dim (op_block_dims) and per name with their OP State
// (op_name_totals).
#include "analyzers/core/analyzer.h"
#include "analyzers/core/op_stats.h"
#include "analyzers/core/tables.h"

namespace perfsage::analyzers {

Analyzer op_stats_analyzer() {
  Analyzer a;
  a.name = "op_stats";
  a.reads = {"op_tasks"};
  a.writes = {tables::op_stats(), tables::op_type_stats(), tables::op_block_dims(),
              tables::op_name_totals()};
  a.uses_op_groups = true;
  a.run = [](store::Database& db, int64_t run_id, const AnalyzerResources& resources) {
    compute_op_stats(db, run_id, resources.passes);
  };
  return a;
}

}  // namespace perfsage::analyzers
